; switch.asm - switch_to: the one place a CPU stops running one task and
; starts running another. docs/sched.md walks through it.
;
; struct task *switch_to(struct task *prev, struct task *next)
;   rdi = prev (the task running now), rsi = next (the task to resume).
;   Returns, on next's stack, the task that ran before next on this CPU.
;
; Called only by __schedule (kernel/sched.c) with interrupts off and this
; CPU's run-queue lock held. A task that is not running is fully described
; by one number, task->kernel_rsp (offset 0 of struct task): everything else
; it needs is on its own kernel stack, below that address:
;
;   kernel_rsp -> r15, r14, r13, r12, rbx, rbp, return address into __schedule
;
; Which registers, and why only these:
;   rbx, rbp, r12-r15  callee-saved in the System V ABI: __schedule expects
;                      them intact when switch_to "returns", so we save
;                      prev's and restore next's. rbp is also the frame
;                      pointer, so each task's backtrace stays its own.
;   rsp                the stack itself; swapping it is the switch.
;   rip                not touched directly: it is the return address that
;                      `call switch_to` pushed, and `ret` pops next's.
;   rax, rcx, rdx, rsi, rdi, r8-r11
;                      caller-saved: the compiler already assumes any call
;                      destroys them, so nothing needs saving.
;   rflags             IF is saved and restored in C by each task's own
;                      irq_save/irq_restore around the switch; DF is always
;                      clear between functions (ABI); the arithmetic flags
;                      are dead across a call.
;   gs base            per CPU, not per task: it stays.
;   cr3, TSS rsp0, FPU to come with user tasks (docs/sched.md).

bits 64
section .text

TASK_KERNEL_RSP equ 0

global switch_to
switch_to:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi + TASK_KERNEL_RSP], rsp	; prev is now frozen
	mov rsp, [rsi + TASK_KERNEL_RSP]	; from here on we are next
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	; In next's frame the C variable "prev" is stale: it names whatever
	; next switched away from long ago. rdi still holds the task we just
	; left; hand it back so next can finish that task's switch-out.
	mov rax, rdi
	ret

; A new thread's first "return" from switch_to lands here (its stack is
; built by first_frame in kernel/sched.c), with rsp 16-byte aligned and
; rax = the task we switched away from.
extern kthread_first_run
global kthread_entry_stub
kthread_entry_stub:
	mov rdi, rax
	call kthread_first_run
	ud2				; kthread_first_run never returns
