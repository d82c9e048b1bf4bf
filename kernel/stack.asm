; stack.asm - call_on_stack(top, fn): continue on a new stack, never return.
bits 64
section .text
global call_on_stack
call_on_stack:
	mov rsp, rdi
	xor ebp, ebp		; a fresh stack: backtraces end here
	call rsi
.hang:
	cli
	hlt
	jmp .hang
