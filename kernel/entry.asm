; entry.asm - interrupt and exception entry stubs.
;
; Every vector 0..255 has a stub that makes the stack look the same: the CPU's
; frame (ss, rsp, rflags, cs, rip), an error code (the CPU's, or 0 for the
; vectors that push none), the vector number, then all general registers.
; That is struct trap_frame in kernel/trap.h. The common path then builds a
; fake call frame (interrupted rip + rbp) so a backtrace taken inside a
; handler walks on into the interrupted code, calls trap_dispatch(frame), and
; returns with iretq. Coming from user mode (CS.RPL = 3) it swaps GS.

bits 64
section .text
extern trap_dispatch

%macro STUB_NOERR 1
isr_stub_%1:
	push 0
	push %1
	jmp trap_common
%endmacro

%macro STUB_ERR 1
isr_stub_%1:
	push %1
	jmp trap_common
%endmacro

; NMI, double fault and machine check can arrive anywhere, even between a
; swapgs and the instruction after it, so CS alone cannot tell whose GS base
; is loaded: these "paranoid" vectors go to paranoid_common, which asks the
; GS-base MSR instead.
%macro STUB_PARANOID 2
isr_stub_%1:
%if %2 = 0
	push 0
%endif
	push %1
	jmp paranoid_common
%endmacro

; Vectors where the CPU pushes an error code: 8, 10-14, 17, 21, 29, 30.
%assign v 0
%rep 256
%if v = 2 || v = 18
	STUB_PARANOID v, 0
%elif v = 8
	STUB_PARANOID v, 1
%elif (v >= 10 && v <= 14) || v = 17 || v = 21 || v = 29 || v = 30
	STUB_ERR v
%else
	STUB_NOERR v
%endif
%assign v v + 1
%endrep

%macro PUSH_REGS 0
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
%endmacro

%macro POP_REGS 0
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
%endmacro

%macro CALL_DISPATCH 0
	mov rdi, rsp			; struct trap_frame *
	push qword [rdi + 17 * 8]	; fake frame: interrupted rip ...
	push rbp			; ... and its frame pointer
	mov rbp, rsp
	call trap_dispatch
	add rsp, 16
%endmacro

paranoid_common:
	cld
	PUSH_REGS
	xor r12d, r12d			; r12 (callee-saved): 1 if we swapped GS
	mov ecx, 0xc0000101		; MSR_GS_BASE
	rdmsr
	test edx, edx			; kernel per-CPU areas live in the upper half
	js .gs_ok
	swapgs
	mov r12d, 1
.gs_ok:
	CALL_DISPATCH
	test r12d, r12d
	jz .no_swap
	swapgs
.no_swap:
	POP_REGS
	add rsp, 16
	iretq

trap_common:
	cld
	test qword [rsp + 24], 3	; CS of the interrupted code
	jz .kernel_in
	swapgs
.kernel_in:
	PUSH_REGS
	CALL_DISPATCH
	cli				; the dispatcher may have enabled them: none may
					; arrive between the swapgs below and iretq
	POP_REGS
	test qword [rsp + 24], 3
	jz .kernel_out
	swapgs
.kernel_out:
	add rsp, 16			; vector and error code
	iretq

section .rodata
global isr_stub_table
align 8
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep

; ---------------------------------------------------------------- system calls
section .text
;
; SYSCALL (kernel/user.h): the CPU put the user rip in rcx and rflags in
; r11, loaded CS/SS from STAR and masked IF, TF, DF and AC (FMASK). The
; stack is still the user's: swapgs to reach this CPU's struct cpu, park
; the user rsp there, switch to the task's kernel stack, and build the same
; struct trap_frame a trap from user mode would (vector 0x80 marks it).

CPU_USER_RSP equ 88		; struct cpu (kernel/percpu.h), checked by a
CPU_SYSCALL_RSP equ 96		; _Static_assert in kernel/user.c
USER_CS_SEL equ 0x2b
USER_DS_SEL equ 0x23

extern syscall_dispatch
global syscall_entry
syscall_entry:
	swapgs
	mov [gs:CPU_USER_RSP], rsp
	mov rsp, [gs:CPU_SYSCALL_RSP]
	push USER_DS_SEL		; ss
	push qword [gs:CPU_USER_RSP]	; rsp
	push r11			; rflags
	push USER_CS_SEL		; cs
	push rcx			; rip
	push 0				; error code
	push 0x80			; vector: "a system call"
	PUSH_REGS
	sti
	mov rdi, rsp			; struct trap_frame *
	push qword [rdi + 17 * 8]	; fake frame, as CALL_DISPATCH builds
	push 0
	mov rbp, rsp
	call syscall_dispatch
	add rsp, 16
	cli
	mov rdi, rsp
	jmp user_return_frame

; user_return(struct trap_frame *tf): leave for user mode with tf's
; registers (interrupts off). sysretq when it can restore the frame exactly
; - a canonical user rip, the usual selectors, rcx = rip and r11 = rflags -
; else iretq, which can return anywhere with any registers (SYSRET with a
; non-canonical rip would fault in ring 0).
global user_return
user_return:
	cli
user_return_frame:
	mov rsp, rdi
	mov rax, [rsp + 17 * 8]		; rip
	mov rcx, 0x00007ffffffff000
	cmp rax, rcx
	jae .iret
	cmp qword [rsp + 18 * 8], USER_CS_SEL
	jne .iret
	cmp qword [rsp + 21 * 8], USER_DS_SEL
	jne .iret
	cmp rax, [rsp + 12 * 8]		; sysret returns rip in rcx and rflags
	jne .iret			; in r11: exact only if the frame has
	mov rax, [rsp + 19 * 8]		; them there already (a syscall's own
	cmp rax, [rsp + 4 * 8]		; frame), not after a signal or a trap
	jne .iret
	POP_REGS
	mov rcx, [rsp + 16]		; rip for sysret
	mov r11, [rsp + 32]		; rflags for sysret
	mov rsp, [rsp + 40]		; the user stack
	swapgs
	o64 sysret
.iret:
	POP_REGS
	add rsp, 16			; vector and error code
	swapgs
	iretq
