; boot.asm - multiboot2 header and the 32-bit to 64-bit entry path.
;
; GRUB loads the kernel ELF at its physical addresses (1 MiB up) and jumps to
; _start in 32-bit protected mode with paging off, EAX = multiboot2 magic and
; EBX = physical address of the boot information block. We:
;   1. check the magic and that the CPU has long mode (CPUID 0x80000001 EDX.LM);
;   2. build early page tables: the first 4 GiB mapped three times with 2 MiB
;      pages - identity (so the next instruction after enabling paging still
;      exists), at the direct map 0xffff800000000000, and at the kernel's
;      link address 0xffffffff80000000 (first 1 GiB);
;   3. turn on PAE, EFER.LME and EFER.NXE, then CR0.PG and CR0.WP;
;   4. load a 64-bit GDT and far-jump into 64-bit code;
;   5. jump to the higher half, clear .bss, switch to the boot stack and
;      call kmain(magic, info) in C.
; mm/paging.c later replaces these tables with the final ones.

MB2_MAGIC        equ 0xe85250d6
MB2_BOOT_MAGIC   equ 0x36d76289
KERNEL_VMA       equ 0xffffffff80000000

section .multiboot2 progbits alloc noexec nowrite align=8
mb2_header:
	dd MB2_MAGIC
	dd 0				; architecture: i386 protected mode
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))
	dw 0, 0				; end tag
	dd 8
mb2_header_end:

section .boot.text progbits alloc exec nowrite align=16
bits 32
global _start
_start:
	cli
	cld
	mov edi, eax			; keep magic and info for kmain
	mov esi, ebx
	cmp eax, MB2_BOOT_MAGIC
	jne .not_multiboot2

	mov eax, 0x80000000		; step 1: long mode present?
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	; step 2: four page directories of 2 MiB pages cover 0..4 GiB
	mov ecx, 0
.fill_pd:
	mov eax, ecx
	shl eax, 21			; physical address = index * 2 MiB
	or eax, 0x83			; present, writable, 2 MiB page
	mov [early_pd + ecx * 8], eax
	mov eax, ecx
	shr eax, 11			; high 32 bits of index * 2 MiB
	mov [early_pd + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 2048
	jne .fill_pd

	mov ecx, 0
.fill_pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, early_pd
	or eax, 0x03
	mov [early_pdpt_low + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jne .fill_pdpt

	mov eax, early_pd		; 0xffffffff80000000 -> first GiB
	or eax, 0x03
	mov [early_pdpt_high + 510 * 8], eax

	mov eax, early_pdpt_low
	or eax, 0x03
	mov [early_pml4 + 0 * 8], eax	; identity
	mov [early_pml4 + 256 * 8], eax	; direct map
	mov eax, early_pdpt_high
	or eax, 0x03
	mov [early_pml4 + 511 * 8], eax	; kernel image

	; step 3
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, early_pml4
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)	; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)	; PG, WP
	mov cr0, eax

	; step 4
	lgdt [early_gdt_ptr]
	jmp 0x08:long_mode_low

.not_multiboot2:
	mov ebx, msg_not_mb2
	jmp early_fail
.no_long_mode:
	mov ebx, msg_no_lm
	jmp early_fail

; early_fail: print the string at EBX on COM1 (already set up by the
; firmware well enough to transmit), then leave QEMU through isa-debug-exit.
early_fail:
	mov dx, 0x3fd
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	mov al, [ebx]
	test al, al
	jz .out
	mov dx, 0x3f8
	out dx, al
	inc ebx
	mov dx, 0x3fd
	jmp .wait
.out:
	mov dx, 0xf4
	mov al, 125
	out dx, al
.halt:
	hlt
	jmp .halt

bits 64
long_mode_low:
	mov rax, higher_half		; step 5
	jmp rax

section .text
extern kmain
extern __bss_start
extern __bss_end
global boot_stack_top
higher_half:
	xor eax, eax
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax
	mov rbx, rdi			; clear .bss (the boot stack lives there)
	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	shr rcx, 3
	rep stosq
	mov rdi, rbx
	mov rsp, boot_stack_top
	push 0				; a zero return address and frame pointer:
	xor ebp, ebp			; backtraces (ours and gdb's) stop here
	call kmain			; kmain(magic in EDI, info in ESI)
.hang:
	cli
	hlt
	jmp .hang

section .boot.data progbits alloc noexec write align=16
early_gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code
	dq 0x00cf92000000ffff		; 0x10: data
early_gdt_ptr:
	dw early_gdt_ptr - early_gdt - 1
	dd early_gdt
msg_not_mb2:
	db 10, "roundabout: panic: not loaded by a multiboot2 boot loader", 10, 0
msg_no_lm:
	db 10, "roundabout: panic: this CPU has no 64-bit long mode", 10, 0

section .boot.bss nobits alloc noexec write align=4096
early_pml4:	resb 4096
early_pdpt_low:	resb 4096
early_pdpt_high: resb 4096
early_pd:	resb 4096 * 4

section .bss
align 16
boot_stack:	resb 16384
boot_stack_top:
