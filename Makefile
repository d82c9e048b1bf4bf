# Roundabout - build, run, debug and test.
#
#   make          build build/roundabout.elf and build/roundabout.iso
#   make run      boot it in QEMU (-smp 8) on this terminal's serial console
#   make gdb      boot it halted and attach gdb (see README.md)
#   make test     build, then run every test; last line "N passed, N failed"
#   make torture  the long runs, every lab graded in full (make lab-check), and
#                 the gdb tests again against make gdb's own build (DEBUG=1,
#                 -Og) in a temporary copy of the tree (make gdb-tests-debug);
#                 make test's gdb-tests use the -O2 build
#   make lab LAB=n, make grade LAB=n   start lab n on a branch, grade it (docs/labs/)
#
# Variables: CMDLINE='words' (kernel command line for run/gdb), SMP=8, MEM=512M,
# ACCEL=tcg|kvm (kvm only on your own machine with real KVM), DEBUG=1 (build
# with -Og, so gdb shows locals; make gdb's default), GDBPORT=N (make gdb).

CC      := gcc
LD      := ld
NASM    := nasm
PYTHON  := python3
SMP     ?= 8
MEM     ?= 512M
ACCEL   ?= tcg
CMDLINE ?=

B := build
# V=1 shows every compiler command.
Q := $(if $(V),,@)

CFLAGS := -std=gnu11 -ffreestanding -fno-builtin -nostdlib -nostdinc \
	-isystem $(shell $(CC) -print-file-name=include) \
	-mno-red-zone -mcmodel=kernel -mno-sse -mno-sse2 -mno-mmx -mno-80387 \
	-mgeneral-regs-only -fno-pic -fno-pie -fno-stack-protector \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
	-fno-asynchronous-unwind-tables -fno-strict-aliasing \
	-g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wmissing-prototypes -Wstrict-prototypes -Wshadow -I. -MMD -MP
LDFLAGS := -nostdlib -static -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments -T linker.ld

ifeq ($(ACCEL),kvm)
QEMU_ACCEL := -accel kvm -cpu host
else
QEMU_ACCEL := -accel tcg,thread=multi -cpu max
endif
QEMU_ARGS := $(QEMU_ACCEL) -smp $(SMP) -m $(MEM) -display none -no-reboot \
	-boot d -cdrom $(B)/roundabout.iso \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04

C_SRCS   := $(wildcard kernel/*.c mm/*.c fs/*.c fs/*/*.c drivers/*.c tests/*.c bench/*.c)
ASM_SRCS := $(wildcard boot/*.asm kernel/*.asm)
OBJS := $(C_SRCS:%.c=$(B)/%.o) $(ASM_SRCS:%.asm=$(B)/%.o)

# Host tools the build and tests need; any missing one runs install-deps.sh.
NEEDED_TOOLS := gcc nasm grub-mkrescue xorriso mformat qemu-system-x86_64 gdb tmux socat \
	musl-gcc mkfs.ext2 e2fsck python3 clang spin valgrind
MISSING := $(shell PATH="$$PATH:/sbin:/usr/sbin"; for t in $(NEEDED_TOOLS); do \
	command -v $$t >/dev/null 2>&1 || echo $$t; done; \
	[ -d /usr/lib/grub/i386-pc ] || echo grub-pc-bin; \
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.tsan-x86_64.a >/dev/null 2>&1 || \
	echo libclang-rt-14-dev; \
	[ -f /usr/include/x86_64-linux-gnu/asm/unistd_64.h ] || echo linux-libc-dev)

.PHONY: all deps run gdb gdb-tests gdb-tests-debug tty-tests tty-tests-broken linux-compare test torture bench bench-linux clean fuzz-images check-layers check-syscall-doc \
	lab grade lab-selftest lab-check
all: $(B)/roundabout.elf $(B)/roundabout.iso

deps:
ifneq ($(strip $(MISSING)),)
	@echo "missing host tools: $(MISSING)"
	tools/install-deps.sh
endif

$(OBJS) $(B)/root.img: | deps

# -O2, or -Og with DEBUG=1; build/opt.txt changes with it, so switching rebuilds.
OPT = $(if $(filter 1,$(DEBUG)),-Og,-O2)
$(B)/opt.txt: FORCE
	@mkdir -p $(B)
	@echo '$(OPT)' | cmp -s - $@ || echo '$(OPT)' > $@
$(C_SRCS:%.c=$(B)/%.o): $(B)/opt.txt

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(OPT) -c $< -o $@
	$(if $(Q),@echo "  CC    $<")

$(B)/%.o: %.asm
	@mkdir -p $(dir $@)
	$(Q)$(NASM) -f elf64 -o $@ $<
	$(if $(Q),@echo "  NASM  $<")

# The kernel embeds its own symbol table for backtraces. Link once with an
# empty table, extract the function symbols, link again with them. The table
# sits after every function, so the second link moves no function; the check
# below proves it.
$(B)/ksyms-empty.S: tools/gen-ksyms
	@mkdir -p $(B)
	$(PYTHON) tools/gen-ksyms --empty > $@
$(B)/ksyms.S: $(B)/roundabout.pass1.elf tools/gen-ksyms
	$(Q)$(PYTHON) tools/gen-ksyms $< > $@
$(B)/ksyms-empty.o: $(B)/ksyms-empty.S
	$(Q)$(CC) -c $< -o $@
$(B)/ksyms.o: $(B)/ksyms.S
	$(Q)$(CC) -c $< -o $@

$(B)/roundabout.pass1.elf: $(OBJS) $(B)/ksyms-empty.o linker.ld
	@echo "  LD    $@"
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/ksyms-empty.o
$(B)/roundabout.elf: $(OBJS) $(B)/ksyms.o linker.ld
	@echo "  LD    $@"
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/ksyms.o
	@$(PYTHON) tools/gen-ksyms $@ | cmp -s - $(B)/ksyms.S || \
		{ echo "ksyms: second link moved a function"; rm -f $@; exit 1; }

# The root file system image (module2): ext2 of user/root with 32 MiB free
# (ROOT_FREE_MIB). GRUB loads a module at about 50 ms per MiB under TCG, so
# the tests boot a smaller one with 12 MiB free.
ROOT_FREE_MIB ?= 32
ROOT_FILES := $(shell find user/root 2>/dev/null)
include user/user.mk
# On a fresh machine musl-gcc comes from install-deps.sh: build no program before it ran.
$(USER_PROG_FILES): | deps
$(B)/root.img: $(ROOT_FILES) $(USER_PROG_FILES) tools/mkimage
	@mkdir -p $(B)
	$(Q)tools/mkimage --free $(ROOT_FREE_MIB) --add $(USER_ROOT) $@
	$(if $(Q),@echo "  IMG   $@")

$(B)/test-root.img: $(ROOT_FILES) tools/mkimage
	@mkdir -p $(B)
	$(Q)tools/mkimage --free 12 $@
	$(if $(Q),@echo "  IMG   $@")

# The kernel command line baked into build/roundabout.iso; rewritten only
# when CMDLINE changes, so the ISO is rebuilt only then.
$(B)/cmdline.txt: FORCE
	@mkdir -p $(B)
	@echo '$(CMDLINE)' | cmp -s - $@ || echo '$(CMDLINE)' > $@
FORCE:

# The ISO carries the root image gzip'd; GRUB unpacks it while loading
# (tools/grubcfg says why: it makes the boot seconds shorter).
$(B)/root.img.gz: $(B)/root.img
	$(Q)gzip -1 -n -c $< > $@.tmp && mv $@.tmp $@

$(B)/roundabout.iso: $(B)/roundabout.elf $(B)/root.img.gz $(B)/cmdline.txt
	@echo "  ISO   $@"
	$(Q)rm -rf $(B)/iso && mkdir -p $(B)/iso/boot/grub
	$(Q)cp $(B)/roundabout.elf $(B)/root.img.gz $(B)/iso/boot/
	$(Q)$(PYTHON) tools/grubcfg --cmdline "$$(cat $(B)/cmdline.txt)" \
		--module root.img.gz > $(B)/iso/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(B)/iso 2> $(B)/grub-mkrescue.log || \
		{ cat $(B)/grub-mkrescue.log; exit 1; }

# The guest's own exit (exit N at the first shell, isa-debug-exit) is how a
# session ends, not a failure of make: QEMU says (N << 1) | 1 then, and the
# kernel has printed "roundabout: exit N" (QEMU's own start-up errors, also
# odd, print their message above). An even status is QEMU's failure.
run: all
	@qemu-system-x86_64 $(QEMU_ARGS) -serial mon:stdio; st=$$?; \
	if [ $$((st & 1)) = 1 ]; then exit 0; else exit $$st; fi

# QEMU halted, gdb attached and stopped in kmain, the console in a tmux pane
# or on a pty; QEMU ends with gdb (tools/gdb-session --help).
gdb: DEBUG ?= 1
gdb: all
	$(PYTHON) tools/gdb-session --smp $(SMP) --mem $(MEM) --accel $(ACCEL) \
		$(if $(GDBPORT),--port $(GDBPORT))

# make gdb on a terminal (Ctrl-C, gdb killed), every rb- command and every
# gdb walkthrough in the docs as written, each checked in a boot
# (tests/gdb/run-gdb-tests --help).
gdb-tests: all
	DEBUG=$(if $(filter 1,$(DEBUG)),1,0) $(PYTHON) tests/gdb/run-gdb-tests

# The same tests against what make gdb builds by default (DEBUG=1, -Og: the
# locals a student looks at, the frames gdb unwinds), in a temporary copy
# of the tracked files so that build/ stays -O2 (make torture; a build of
# its own: about a minute on two cores).
gdb-tests-debug:
	$(Q)t=$$(mktemp -d) && trap 'rm -rf "$$t"' EXIT && \
	git ls-files -z | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$$t" && \
	$(MAKE) -C "$$t" --no-print-directory gdb-tests DEBUG=1

# The shell typed at through tmux: C-c ends cat, not the shell; background
# jobs; raw mode (tests/tty/run-tty-tests --help). tty-tests-broken boots with
# tty.debug_no_isig and passes only if the C-c test catches it.
# Programs whose Linux output is recorded in tests/linux-outputs, all run in
# one boot and compared line for line (tools/linux-compare --help;
# 'tools/linux-compare --record' records them again on this host).
linux-compare: all
	$(PYTHON) tools/linux-compare

tty-tests: all
	$(PYTHON) tests/tty/run-tty-tests
tty-tests-broken: all
	$(PYTHON) tests/tty/run-tty-tests --expect-broken

$(B)/test-module.bin: tools/mkpattern
	@mkdir -p $(B)
	$(PYTHON) tools/mkpattern 12345 $@

include tests/host/host.mk
include tests/model/model.mk
include tests/corrupt/corrupt.mk

# A file with a user extended attribute, for tests/disks.txt's xattr test.
$(B)/xattr-stage: tests/xattr/mkxattr
	$(Q)rm -rf $@ && $(PYTHON) tests/xattr/mkxattr $@

# Symbolic links for mke2fs -d to copy (tests/disks.txt, ext2_symlinks):
# a fast one (target in the inode), a slow one (a 204-byte target, in a
# block) and a relative one a directory down.
$(B)/symlink-stage: Makefile
	$(Q)rm -rf $@ && mkdir -p $@/links/dir && printf 'host file\n' > $@/links/file && \
		ln -s file $@/links/fast && ln -s ../file $@/links/dir/up && \
		ln -s "$$(printf './%.0s' $$(seq 100))file" $@/links/slow

# Randomly damaged ext2 images (tools/fuzz-images --help): 200 of them (8
# regions x 25 seeds, about 45 s) in make test, none of which may panic,
# hang or leak; FUZZ_SEEDS=N more, from a random first seed, in make torture.
FUZZ_SEEDS ?= 250
fuzz-images: all corrupt-images
	$(PYTHON) tools/fuzz-images --seeds 1-25 --per-boot 100

# Calls and #includes go down the floors (docs/architecture.md); the
# selftest shows the check failing on a forbidden include.
check-layers: all
	$(PYTHON) tools/check-layers
	$(PYTHON) tools/check-layers --selftest
	$(PYTHON) tools/gen-unistd --check

# docs/syscalls.md's "Adding a system call", followed to the letter in a
# temporary copy of the tree: built and its test booted.
check-syscall-doc: all
	$(PYTHON) tools/check-syscall-doc

# The labs (docs/labs/README.md, tools/lab --help): make lab LAB=n starts
# lab n on a new branch lab-n, make grade LAB=n prints its points and score
# (AS_BROKEN=SWITCH grades the reference as a known-wrong solution).
lab:
	$(if $(LAB),,$(error make lab LAB=n: which lab? tools/lab list))
	$(PYTHON) tools/lab start $(LAB)

grade: all $(B)/test-root.img
	$(if $(LAB),,$(error make grade LAB=n: which lab? tools/lab list))
	$(PYTHON) tools/lab grade $(LAB) --no-build $(if $(AS_BROKEN),--as-broken $(AS_BROKEN))

# make test's short check of the labs (about 30 s): markers, start's
# refusals, every stub applied and built, one boot of the stubbed kernel,
# and docs/user-programs.md's new program in one boot. The reference's
# full marks need no boot of their own: every item it grades is a test of
# make test (docs/labs/README.md). make torture grades every lab fully.
lab-selftest: all
	$(PYTHON) tools/lab selftest

lab-check: all $(B)/test-root.img
	$(PYTHON) tools/lab selftest --full

test: all $(B)/test-module.bin $(B)/test-root.img corrupt-images $(B)/xattr-stage $(B)/symlink-stage busybox-stage \
		check-layers check-syscall-doc host-tests model-check corrupt-selftest user-host-tests fuzz-images gdb-tests \
		lab-selftest tty-tests linux-compare
	$(PYTHON) tools/run-tests --smp-list 1,2,3,8

# Debian's busybox (busybox-static, tools/install-deps.sh) and the script it
# runs, staged for the user/busybox_everyday boot (qemu-run --add) and for
# its run on this host (user/tests/t_busybox.c). Without busybox the stage
# has no binary, and that test fails saying so.
BUSYBOX ?= /bin/busybox
.PHONY: busybox-stage
busybox-stage:
	@mkdir -p $(B)/busybox-root/bin $(B)/busybox-root/busybox
	@cp tests/busybox/everyday.sh $(B)/busybox-root/busybox/
	@if [ -x $(BUSYBOX) ]; then cmp -s $(BUSYBOX) $(B)/busybox-root/bin/busybox || \
		cp $(BUSYBOX) $(B)/busybox-root/bin/busybox; \
	else rm -f $(B)/busybox-root/bin/busybox; \
		echo "busybox-stage: no $(BUSYBOX): user/busybox_everyday will fail" \
		"(tools/install-deps.sh installs busybox-static)"; fi
user-host-tests: busybox-stage

# Numbers, not verdicts: never fails on a figure (tools/bench --help).
bench: all $(HOST_B)/radix_bench $(HOST_B)/pagecache_bench
	$(PYTHON) tools/bench --smp $(SMP)
	$(MAKE) --no-print-directory bench-linux

# Roundabout against Debian's Linux, same QEMU machine and binary
# (tools/bench-linux --help); BENCH_LINUX='--threads 1,2 --ms 100' etc.
BENCH_SMP ?= 2
bench-linux: all $(B)/user/peerinit
	tools/install-deps.sh --bench
	$(PYTHON) tools/bench-linux --smp $(BENCH_SMP) --mem $(MEM) --accel $(ACCEL) $(BENCH_LINUX)

# Long runs that do not fit make test: rcutorture, the radix-tree race,
# the page-cache torture (under a tight cap) and the get_user_pages_fast
# torture, each for minutes on 8 CPUs; the fault-path torture on 4; the
# system-call fuzzer with a new seed on 1 and on 8 CPUs (tools/fuzz);
# FUZZ_SEEDS x 8 randomly damaged ext2 images (fresh seeds each run); the
# gdb tests against a DEBUG=1 (-Og) build (make gdb-tests-debug); and
# every lab graded in full: the reference full marks, each known-wrong
# switch less, each handout solution (tools/lab-solutions) full marks,
# each stub zero (make lab-check).
TORTURE_SECONDS ?= 300
torture: all corrupt-images
	tools/qemu-run --smp 8 --timeout $$(( $(TORTURE_SECONDS) + 120 )) \
		--cmdline 'ktest=rcutorture test.rcutorture_seconds=$(TORTURE_SECONDS)'
	tools/qemu-run --smp 8 --timeout $$(( $(TORTURE_SECONDS) + 120 )) \
		--cmdline 'ktest=radix_concurrent_readers_see_old_or_new test.radix_seconds=$(TORTURE_SECONDS)'
	tools/qemu-run --smp 8 --timeout $$(( $(TORTURE_SECONDS) + 120 )) \
		--cmdline 'ktest=pagecache_torture pagecache.max_pages=48 test.pagecache_seconds=$(TORTURE_SECONDS)'
	tools/qemu-run --smp 8 --timeout $$(( $(TORTURE_SECONDS) + 120 )) \
		--cmdline 'gup.debug_delay_us=300' -- /tests/t_gup_torture $(TORTURE_SECONDS)
	tools/qemu-run --smp 4 --timeout $$(( $(TORTURE_SECONDS) + 120 )) \
		--cmdline 'pagecache.max_pages=64' -- /tests/t_fault_torture $(TORTURE_SECONDS)
	$(PYTHON) tools/fuzz-images --seeds $(FUZZ_SEEDS) --per-boot 100
	$(PYTHON) tools/fuzz --random --smp 1 --seconds $(TORTURE_SECONDS)
	$(PYTHON) tools/fuzz --random --smp 8 --children 8 --seconds $(TORTURE_SECONDS)
	$(MAKE) --no-print-directory gdb-tests-debug
	$(MAKE) --no-print-directory lab-check

clean:
	rm -rf $(B)

-include $(OBJS:.o=.d)
