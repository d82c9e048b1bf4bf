; stack.asm - call_on_stack(top, fn): continue on a new stack, never return.
bits 64
section .text
global call_on_stack
call_on_stack:
	mov rsp, rdi
	push 0			; a fresh stack: backtraces (ours and gdb's) end here
	xor ebp, ebp
	call rsi
.hang:
	cli
	hlt
	jmp .hang
