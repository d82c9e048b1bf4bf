# user/user.mk - the user programs of Roundabout's root file system.
#
#   make -f user/user.mk user-progs        build them into $(B)/user/root/
#   make -f user/user.mk user-host-tests   run user/tests/t_* here on Linux
#
# The top Makefile includes this file; it also works alone. Every program
# is one C file, built static with musl so the same binary runs on Linux
# and on Roundabout. $(B)/user/root/ is laid out as the guest tree:
# programs in /bin, init as /sbin/init, the test programs in /tests.

B ?= build
Q ?= @
MUSL_CC ?= musl-gcc
USER_CFLAGS ?= -std=c11 -D_GNU_SOURCE -static -O2 -Wall -Wextra -Werror -pthread \
	-Iuser/include

USER_ROOT := $(B)/user/root
USER_BIN := sh ls cat echo sleep mkdir rm mv cp stat sync free uname pcdemo gupbench dbbench preadbench fuzz peerbench
USER_TESTS := $(sort $(basename $(notdir $(wildcard user/tests/t_*.c))))

# The installed binaries, by their paths in the guest.
USER_PROGS := $(USER_BIN:%=/bin/%) /sbin/init $(USER_TESTS:%=/tests/%)
USER_PROG_FILES := $(USER_PROGS:%=$(USER_ROOT)%)

.PHONY: user-progs user-host-tests
user-progs: $(USER_PROG_FILES)

$(USER_ROOT)/bin/%: user/%.c user/include/roundabout.h
	@mkdir -p $(dir $@)
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -o $@ $<
	$(if $(Q),@echo "  MUSL  $@")

# The fuzzer is two files, and names the calls with a table made from the
# Linux x86-64 numbers header (docs/user-programs.md, fuzz).
UNISTD_64 ?= /usr/include/x86_64-linux-gnu/asm/unistd_64.h
$(B)/user/gen/syscall_names.h: $(UNISTD_64)
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Made from $(notdir $<) by user/user.mk: Linux x86-64 call names. */'; \
	  echo 'static const char *const syscall_names[] = {'; \
	  sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$$/\t[\2] = "\1",/p' $<; \
	  echo '};'; } > $@

$(USER_ROOT)/bin/fuzz: user/fuzz.c user/fuzz_calls.c user/fuzz.h $(B)/user/gen/syscall_names.h
	@mkdir -p $(dir $@)
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -I$(B)/user/gen -o $@ user/fuzz.c user/fuzz_calls.c
	$(if $(Q),@echo "  MUSL  $@")

$(USER_ROOT)/sbin/init: user/init.c user/include/roundabout.h
	@mkdir -p $(dir $@)
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -o $@ $<
	$(if $(Q),@echo "  MUSL  $@")

# The first process of the Linux peer boot (tools/bench-linux); not in the image.
$(B)/user/peerinit: user/peerinit.c
	@mkdir -p $(dir $@)
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -o $@ $<
	$(if $(Q),@echo "  MUSL  $@")

$(USER_ROOT)/tests/%: user/tests/%.c $(wildcard user/tests/*.h) user/include/roundabout.h
	@mkdir -p $(dir $@)
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -o $@ $<
	$(if $(Q),@echo "  MUSL  $@")

# Each test program prints "ok N"/"not ok N" lines and exits 0 only when
# all pass; a test that hangs is stopped after 60 s and counts as failed.
# t_rmap reads Roundabout's own /proc counters and t_pin calls its own
# SYS_rb_pin (ENOSYS on Linux), t_failnth its /proc/fail-nth, t_kernel_hash
# its /proc/kernel-hash, t_exhaust and t_enospc its limits and disks, and
# t_held_at_poweroff writes to / for a tests/disks.txt boot, and t_tty needs
# the console as its terminal: they run only there.
USER_ROUNDABOUT_ONLY := t_rmap t_pin t_gup_torture t_failnth t_kernel_hash t_exhaust t_enospc \
	t_held_at_poweroff t_tty
USER_TEST_FILES := $(filter-out $(USER_ROUNDABOUT_ONLY:%=$(USER_ROOT)/tests/%),$(USER_TESTS:%=$(USER_ROOT)/tests/%))
user-host-tests: $(USER_TEST_FILES)
	@progs=0; checks=0; bad=0; \
	for t in $(USER_TEST_FILES); do \
		name=$${t##*/}; progs=$$((progs + 1)); \
		out=$$(timeout 60 $$t 2>&1); rc=$$?; \
		checks=$$((checks + $$(printf '%s\n' "$$out" | grep -c '^ok '))); \
		if [ $$rc -ne 0 ]; then \
			bad=$$((bad + 1)); \
			printf '%s\n' "$$out" | grep -v '^ok ' | sed "s/^/$$name: /"; \
			echo "$$name: exit status $$rc"; \
		fi; \
	done; \
	if [ $$bad -ne 0 ]; then \
		echo "host: user tests on Linux: $$bad of $$progs programs failed"; exit 1; \
	fi; \
	echo "host: user tests on Linux: $$progs programs, $$checks checks ok"
