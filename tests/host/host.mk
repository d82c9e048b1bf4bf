# host.mk - the host tests: kernel data structures compiled unchanged for
# user space (tests/host/README.md says how). Included by the Makefile.
#
#   make host-tests    build every host test program and run them all; one
#                      line "host: NAME ok" (or FAILED) each; fails if any did
#
# HOST_TEST_ARGS='seed=N ...' passes words to every program (see each one's
# comment for the words it takes). Needs gcc, clang and clang's
# ThreadSanitizer runtime (Debian: clang libclang-rt-14-dev).

HOST_B     := build/host
HOST_CC    ?= gcc
HOST_CLANG ?= clang
HOST_FLAGS := -std=gnu11 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Itests/host/shim -I.
HOST_LIBS  := -lpthread

# The kernel code under test and the shim it runs on.
HOST_KSRCS := mm/radix-tree.c
HOST_SHIM  := tests/host/shim/host_kernel.c tests/host/shim/rcu_qsbr.c
HOST_DEPS  := $(HOST_KSRCS) $(HOST_SHIM) $(wildcard tests/host/*.h tests/host/shim/*/*.h) \
	mm/radix-tree.h kernel/types.h kernel/atomic.h tests/host/host.mk

# The page cache (mm/filemap.c and mm/iov_iter.c, unchanged) over the tree and the host's
# page allocator, locks and wait queues. clang lacks gcc's noipa (a gdb aid
# in filemap.c) and ignores it.
HOST_PC_SRCS := mm/filemap.c mm/iov_iter.c mm/radix-tree.c $(HOST_SHIM) tests/host/shim/host_mm.c
HOST_PC_DEPS := $(HOST_DEPS) mm/filemap.c mm/iov_iter.c mm/iov_iter.h mm/pagecache.h \
	mm/vmscan.h kernel/list.h kernel/uaccess.h tests/host/shim/host_mm.c

HOST_PROGS := $(HOST_B)/radix_tree_random $(HOST_B)/radix_tree_concurrent \
	$(HOST_B)/radix_tree_concurrent_tsan \
	$(HOST_B)/pagecache_concurrent $(HOST_B)/pagecache_concurrent_tsan

.PHONY: host-tests
host-tests: $(HOST_PROGS)
	@sh tests/host/run-host-tests $(HOST_B) $(HOST_TEST_ARGS)
	@sh tests/host/check-disk-selftest.sh

# Sequential: AddressSanitizer and UBSan catch what the model cannot.
$(HOST_B)/radix_tree_random: tests/host/radix_random.c $(HOST_DEPS)
	@mkdir -p $(HOST_B)
	$(Q)$(HOST_CC) $(HOST_FLAGS) -O2 -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(HOST_KSRCS) $(HOST_SHIM) $(HOST_LIBS)
	$(if $(Q),@echo "  HOSTCC $@")

# Concurrent, plain: for gdb.
$(HOST_B)/radix_tree_concurrent: tests/host/radix_concurrent.c $(HOST_DEPS)
	@mkdir -p $(HOST_B)
	$(Q)$(HOST_CC) $(HOST_FLAGS) -O2 -o $@ $< $(HOST_KSRCS) $(HOST_SHIM) $(HOST_LIBS)
	$(if $(Q),@echo "  HOSTCC $@")

# Concurrent, under ThreadSanitizer.
$(HOST_B)/radix_tree_concurrent_tsan: tests/host/radix_concurrent.c $(HOST_DEPS)
	@mkdir -p $(HOST_B)
	@command -v $(HOST_CLANG) >/dev/null 2>&1 || \
		{ echo "host-tests: $(HOST_CLANG) not found (Debian: clang libclang-rt-14-dev)"; exit 1; }
	$(Q)$(HOST_CLANG) $(HOST_FLAGS) -O1 -fsanitize=thread -o $@ $< $(HOST_KSRCS) \
		$(HOST_SHIM) $(HOST_LIBS)
	$(if $(Q),@echo "  CLANG  $@")

# The host half of make bench (not a test: plain -O2).
$(HOST_B)/radix_bench: tests/host/radix_bench.c $(HOST_DEPS)
	@mkdir -p $(HOST_B)
	$(Q)$(HOST_CC) $(HOST_FLAGS) -O2 -o $@ $< $(HOST_KSRCS) $(HOST_SHIM) $(HOST_LIBS)
	$(if $(Q),@echo "  HOSTCC $@")

# Page cache, concurrent, plain: for gdb, and for the test of the test.
$(HOST_B)/pagecache_concurrent: tests/host/pagecache_concurrent.c $(HOST_PC_DEPS)
	@mkdir -p $(HOST_B)
	$(Q)$(HOST_CC) $(HOST_FLAGS) -O2 -o $@ $< $(HOST_PC_SRCS) $(HOST_LIBS)
	$(if $(Q),@echo "  HOSTCC $@")

# Page cache, concurrent, under ThreadSanitizer.
$(HOST_B)/pagecache_concurrent_tsan: tests/host/pagecache_concurrent.c $(HOST_PC_DEPS)
	@mkdir -p $(HOST_B)
	@command -v $(HOST_CLANG) >/dev/null 2>&1 || \
		{ echo "host-tests: $(HOST_CLANG) not found (Debian: clang libclang-rt-14-dev)"; exit 1; }
	$(Q)$(HOST_CLANG) $(HOST_FLAGS) -Wno-unknown-attributes -O1 -fsanitize=thread -o $@ $< \
		$(HOST_PC_SRCS) $(HOST_LIBS)
	$(if $(Q),@echo "  CLANG  $@")

# find_get_page per second per thread, lockless and locked (not a test: plain
# -O2); tests/host/callgrind-pagecache counts its instructions per lookup.
$(HOST_B)/pagecache_bench: tests/host/pagecache_bench.c $(HOST_PC_DEPS)
	@mkdir -p $(HOST_B)
	$(Q)$(HOST_CC) $(HOST_FLAGS) -O2 -o $@ $< $(HOST_PC_SRCS) $(HOST_LIBS)
	$(if $(Q),@echo "  HOSTCC $@")
