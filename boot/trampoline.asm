; trampoline.asm - where an application processor (AP) starts.
;
; A start-up IPI (SIPI) wakes an AP in 16-bit real mode at physical address
; (vector << 12). kernel/smp.c copies the bytes between trampoline_start and
; trampoline_end to TRAMP_BASE (0x8000, below 1 MiB), fills in the data
; block at the end, and sends INIT-SIPI-SIPI. The code is written to run at
; TRAMP_BASE: every absolute address is computed as TRAMP_BASE + (label -
; trampoline_start). Steps, in the order gdb shows them:
;   1. real mode: load a tiny GDT, set CR0.PE, far-jump to 32-bit code;
;   2. protected mode: enable PAE, load CR3 with tables that identity-map
;      low memory as well as the kernel, set EFER.LME/NXE, enable paging;
;   3. far-jump to 64-bit code (still at a low, identity-mapped address);
;   4. load the stack, the entry point and its argument from the data block
;      and jump to the kernel's higher-half C entry (ap_entry in kernel/smp.c).

TRAMP_BASE equ 0x8000
%define ABS(label) (TRAMP_BASE + (label) - trampoline_start)

section .rodata
global trampoline_start, trampoline_end, trampoline_data

bits 16
trampoline_start:
	cli
	cld
	xor ax, ax
	mov ds, ax
	lgdt [ABS(tramp_gdt_ptr)]
	mov eax, cr0
	or eax, 1			; step 1: protection on
	mov cr0, eax
	jmp dword 0x08:ABS(tramp_pm32)

bits 32
tramp_pm32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5			; step 2: PAE
	mov cr4, eax
	mov eax, [ABS(td_cr3)]
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)	; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)	; PG, WP
	mov cr0, eax
	jmp 0x18:ABS(tramp_lm64)	; step 3

bits 64
tramp_lm64:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [ABS(td_stack)]	; step 4
	mov rdi, [ABS(td_arg)]
	mov rax, [ABS(td_entry)]
	push 0				; backtraces end here
	xor ebp, ebp
	jmp rax

align 8
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code
	dq 0x00cf92000000ffff		; 0x10: data
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
tramp_gdt_ptr:
	dw tramp_gdt_ptr - tramp_gdt - 1
	dd ABS(tramp_gdt)

align 8
trampoline_data:			; filled in by kernel/smp.c for each AP
td_cr3:		dq 0			; physical address of the start-up PML4 (< 4 GiB)
td_stack:	dq 0			; initial rsp (top of the AP's kernel stack)
td_entry:	dq 0			; C entry point
td_arg:		dq 0			; its argument: the CPU number
trampoline_end:
