/*
 * t_mmap - memory mappings: anonymous memory, protection, unmapping,
 * mremap, the heap (brk and malloc), madvise, fork's copy-on-write, and
 * the coherence of file mappings with read() and write().
 *
 * Faults are provoked in forked children and checked through their wait
 * status, so the test itself never takes a signal.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

#define PAGE 4096

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static void *map_anon(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* Fork a child that stores one byte at p; returns its pid. */
static pid_t child_store(volatile char *p)
{
	pid_t pid = fork();
	if (pid == 0) {
		*p = 1;
		_exit(0);
	}
	return pid;
}

/* Fork a child that loads one byte at p; returns its pid. */
static pid_t child_load(volatile char *p)
{
	pid_t pid = fork();
	if (pid == 0) {
		(void)*p;
		_exit(0);
	}
	return pid;
}

static void test_anonymous(void)
{
	size_t len = 1 << 20;
	unsigned char *p = map_anon(len);
	CHECK(p != MAP_FAILED, "anonymous mmap of 1 MiB succeeds");
	CHECK(((uintptr_t)p & (PAGE - 1)) == 0, "the mapping is page-aligned");
	CHECK(all_bytes(p, len, 0), "anonymous memory is zero-filled");
	memset(p, 0xa5, len);
	CHECK(all_bytes(p, len, 0xa5), "anonymous memory is writable");
	CHECK_OK(munmap(p, len), "munmap of the whole mapping succeeds");
	CHECK_ERR(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), EINVAL,
		  "mmap of length 0 gives EINVAL");
	CHECK_ERR(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, -1, 0), EBADF,
		  "a file mapping of descriptor -1 gives EBADF");
	CHECK_ERR(munmap((char *)p + 1, PAGE), EINVAL, "munmap of an unaligned address gives EINVAL");
}

static void test_protect(void)
{
	char *p = map_anon(2 * PAGE);
	p[0] = 'r';
	CHECK_OK(mprotect(p, PAGE, PROT_READ), "mprotect to read-only succeeds");
	CHECK_EQ(p[0], 'r', "a read-only page still reads");
	tap_check_killed(child_store(p), SIGSEGV, "a store to a read-only page kills with SIGSEGV");
	tap_check_exit(child_store(p + PAGE), 0, "the next page, still writable, takes a store");
	mprotect(p, PAGE, PROT_NONE);
	tap_check_killed(child_load(p), SIGSEGV, "a load from a PROT_NONE page kills with SIGSEGV");
	CHECK_OK(mprotect(p, PAGE, PROT_READ | PROT_WRITE), "mprotect back to read-write");
	p[1] = 'w';
	CHECK(p[0] == 'r' && p[1] == 'w', "the page kept its data and takes stores again");
	munmap(p, 2 * PAGE);
	tap_check_killed(child_load(p), SIGSEGV, "a load from an unmapped page kills with SIGSEGV");
	tap_check_killed(child_store(p + PAGE), SIGSEGV, "a store to an unmapped page kills with SIGSEGV");
}

static void test_mremap(void)
{
	unsigned char *p = map_anon(PAGE);
	memset(p, 0x5a, PAGE);
	unsigned char *q = mremap(p, PAGE, 16 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap grows a mapping from 1 to 16 pages");
	if (q == MAP_FAILED)
		return;
	CHECK(all_bytes(q, PAGE, 0x5a), "the grown mapping keeps the old contents");
	CHECK(all_bytes(q + PAGE, 15 * PAGE, 0), "the new part is zero-filled");
	memset(q + 15 * PAGE, 1, PAGE);
	CHECK(all_bytes(q + 15 * PAGE, PAGE, 1), "the new part is writable");
	munmap(q, 16 * PAGE);
}

/*
 * Lengths and addresses at the edges of user space: no room is ENOMEM, and
 * nothing may wrap around into the kernel half (a gap search computing
 * "top - len" for a huge len once did, and moved a page there).
 */
#define K_ADDR ((void *)0xffff800000000000UL)
#define NONCANON ((void *)0x8000000000000000UL)
#define WRAP_LEN 0xfffffffffffff000UL

/*
 * Every call that takes a range, at the edges: the last user page, the
 * kernel half, a non-canonical address, lengths that wrap, ranges that
 * leave user space or cross a hole. The answers are Linux's.
 */
static void test_bounds_edges(unsigned long top)
{
	char *last = mmap((void *)(top - PAGE), PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(last == (char *)(top - PAGE), "MAP_FIXED_NOREPLACE maps the last page of user space");
	CHECK_ERR(mmap(last, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0), EEXIST, "MAP_FIXED_NOREPLACE over a mapping gives EEXIST");
	CHECK_ERR(mmap(last, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		  ENOMEM, "MAP_FIXED from the last page to past the top gives ENOMEM");
	CHECK_ERR(mmap(K_ADDR, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0), ENOMEM, "MAP_FIXED_NOREPLACE in the kernel half gives ENOMEM");
	CHECK_ERR(mmap(NONCANON, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		  ENOMEM, "MAP_FIXED at a non-canonical address gives ENOMEM");
	CHECK_ERR(mmap((void *)0x100000000UL, WRAP_LEN, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), ENOMEM,
		  "MAP_FIXED with a length that wraps gives ENOMEM");
	void *hint = mmap(K_ADDR, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(hint != MAP_FAILED && (unsigned long)hint < top,
	      "a kernel-half hint without MAP_FIXED maps in user space");
	munmap(hint, PAGE);

	CHECK_ERR(mprotect(K_ADDR, PAGE, PROT_READ), ENOMEM, "mprotect in the kernel half gives ENOMEM");
	CHECK_ERR(mprotect(NONCANON, PAGE, PROT_READ), ENOMEM,
		  "mprotect at a non-canonical address gives ENOMEM");
	CHECK_ERR(mprotect((void *)top, PAGE, PROT_READ), ENOMEM,
		  "mprotect of the guard page above user space gives ENOMEM");
	CHECK_ERR(mprotect(last, 2 * PAGE, PROT_READ), ENOMEM,
		  "mprotect from the last page to past the top gives ENOMEM");
	CHECK_ERR(mprotect(last, WRAP_LEN, PROT_READ), ENOMEM,
		  "mprotect with a length that wraps gives ENOMEM");

	CHECK_ERR(munmap(K_ADDR, PAGE), EINVAL, "munmap in the kernel half gives EINVAL");
	CHECK_ERR(munmap((void *)top, PAGE), EINVAL, "munmap of the guard page above user space gives EINVAL");
	CHECK_ERR(munmap(last, 2 * PAGE), EINVAL, "munmap from the last page to past the top gives EINVAL");
	CHECK_ERR(munmap(last, WRAP_LEN), EINVAL, "munmap with a length that wraps gives EINVAL");
	CHECK_ERR(munmap(last, 0), EINVAL, "munmap of length 0 gives EINVAL");

	CHECK_ERR(madvise(K_ADDR, PAGE, MADV_DONTNEED), ENOMEM,
		  "madvise MADV_DONTNEED in the kernel half gives ENOMEM");
	CHECK_ERR(madvise((void *)top, PAGE, MADV_DONTNEED), ENOMEM,
		  "madvise MADV_DONTNEED of the guard page above user space gives ENOMEM");
	CHECK_ERR(madvise(last, WRAP_LEN, MADV_DONTNEED), EINVAL,
		  "madvise with a length that wraps gives EINVAL");
	/* Linux changes the mapped part before it meets the hole; Roundabout
	 * changes nothing (docs/user.md): make it writable either way. */
	mprotect(last, PAGE, PROT_READ | PROT_WRITE);
	last[0] = 5;
	CHECK_ERR(madvise(last - PAGE, 2 * PAGE, MADV_DONTNEED), ENOMEM,
		  "madvise MADV_DONTNEED over a hole and a mapping gives ENOMEM");
	CHECK(last[0] == 0, "but drops the mapped part all the same");
	CHECK_ERR(madvise(last - PAGE, PAGE, MADV_NORMAL), ENOMEM,
		  "madvise MADV_NORMAL of an unmapped page gives ENOMEM");
	CHECK_OK(madvise(last, PAGE, MADV_NORMAL), "madvise MADV_NORMAL of a mapped page succeeds");
	CHECK_EQ(madvise(last, 0, MADV_DONTNEED), 0, "madvise of length 0 returns 0");

	CHECK_ERR(mremap(last, PAGE, 2 * PAGE, 0), ENOMEM,
		  "mremap growing the last page in place past the top gives ENOMEM");
	CHECK_ERR(mremap(K_ADDR, 2 * PAGE, PAGE, 0), EFAULT, "mremap shrinking in the kernel half gives EFAULT");
	CHECK_ERR(mremap(K_ADDR, PAGE, 2 * PAGE, MREMAP_MAYMOVE), EFAULT,
		  "mremap growing in the kernel half gives EFAULT");
	CHECK_ERR(mremap((void *)top, PAGE, PAGE, 0), EFAULT,
		  "mremap of the guard page above user space gives EFAULT");
	CHECK_ERR(mremap(last, 0, PAGE, MREMAP_MAYMOVE), EINVAL,
		  "mremap of a private mapping with an old length of 0 gives EINVAL");
	CHECK_ERR(mremap(last, PAGE, 0, MREMAP_MAYMOVE), EINVAL, "mremap to a length of 0 gives EINVAL");

	char *cur = (char *)syscall(SYS_brk, 0);
	CHECK((char *)syscall(SYS_brk, K_ADDR) == cur, "brk into the kernel half leaves the break");
	CHECK((char *)syscall(SYS_brk, (void *)top) == cur, "brk to the top of user space leaves the break");
	CHECK((char *)syscall(SYS_brk, (void *)WRAP_LEN) == cur,
	      "brk to the last page of the address space leaves the break");
	munmap(last, PAGE);
}

static void test_bounds(void)
{
	const unsigned long top = 0x7ffffffff000UL;
	CHECK_ERR(mmap(NULL, top - PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), ENOMEM,
		  "mmap of nearly all of user space gives ENOMEM");
	CHECK_ERR(mmap((void *)top, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		       -1, 0), ENOMEM, "MAP_FIXED past the top of user space gives ENOMEM");
	CHECK_ERR(mmap((void *)0xffff800000000000UL, PAGE, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), ENOMEM,
		  "MAP_FIXED in the kernel half gives ENOMEM");
	unsigned char *p = map_anon(PAGE);
	p[0] = 7;
	CHECK_ERR(mremap(p, PAGE, 0x7fff00000000UL, MREMAP_MAYMOVE), ENOMEM,
		  "mremap to a length larger than the free space gives ENOMEM");
	CHECK_ERR(mremap(p, PAGE, 0xfffffffffffff000UL, MREMAP_MAYMOVE), ENOMEM,
		  "mremap to a length that wraps gives ENOMEM");
	CHECK_ERR(mremap(p, PAGE, 0xfffffffffffff000UL, 0), ENOMEM,
		  "mremap in place to a length that wraps gives ENOMEM");
	CHECK(p[0] == 7, "the mapping is untouched by the refused calls");
	munmap(p, PAGE);
	test_bounds_edges(top);
}

static void test_brk(void)
{
	char *cur = (char *)syscall(SYS_brk, 0);
	CHECK(cur != NULL && cur != (char *)-1, "brk(0) returns the current break");
	char *want = cur + 64 * PAGE;
	char *got = (char *)syscall(SYS_brk, want);
	CHECK(got == want, "brk grows the heap by 256 KiB");
	if (got == want) {
		CHECK(all_bytes((unsigned char *)cur, 64 * PAGE, 0), "new heap memory is zero");
		memset(cur, 3, 64 * PAGE);
		CHECK(all_bytes((unsigned char *)cur, 64 * PAGE, 3), "new heap memory is writable");
		CHECK((char *)syscall(SYS_brk, cur) == cur, "brk shrinks the heap back");
	}
	CHECK((char *)syscall(SYS_brk, (char *)4096) == cur,
	      "brk below the heap's start fails by returning the current break");
}

static void test_malloc(void)
{
	enum { SMALL = 5000 };
	static unsigned char *blocks[SMALL];
	int ok = 1;
	for (int i = 0; i < SMALL; i++) {
		blocks[i] = malloc(16 + i % 200);
		if (!blocks[i])
			ok = 0;
		else
			memset(blocks[i], i & 0xff, 16 + i % 200);
	}
	for (int i = 0; ok && i < SMALL; i++)
		ok = all_bytes(blocks[i], 16 + i % 200, i & 0xff);
	CHECK(ok, "5000 small malloc blocks keep their own contents");
	for (int i = 0; i < SMALL; i++)
		free(blocks[i]);
	size_t big = 16 << 20;
	unsigned char *b = calloc(1, big);
	CHECK(b && all_bytes(b, big, 0), "a 16 MiB calloc block is zero");
	if (b) {
		memset(b, 7, big);
		CHECK(all_bytes(b, big, 7), "a 16 MiB malloc block is writable");
	}
	free(b);
}

static void test_madvise(void)
{
	unsigned char *p = map_anon(4 * PAGE);
	memset(p, 9, 4 * PAGE);
	CHECK_OK(madvise(p, 4 * PAGE, MADV_DONTNEED), "madvise MADV_DONTNEED succeeds");
	CHECK(all_bytes(p, 4 * PAGE, 0), "private anonymous memory reads zero after MADV_DONTNEED");
	munmap(p, 4 * PAGE);
}

static void test_fork_sharing(void)
{
	volatile char *priv = map_anon(PAGE);
	volatile char *shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	priv[0] = 'p';
	shared[0] = 's';
	pid_t pid = fork();
	if (pid == 0) {
		priv[0] = 'P';
		shared[0] = 'S';
		_exit(priv[0] == 'P' ? 0 : 1);
	}
	tap_check_exit(pid, 0, "a child sees its own store to private memory");
	CHECK_EQ(priv[0], 'p', "a child's store to MAP_PRIVATE memory is not seen by the parent");
	CHECK_EQ(shared[0], 'S', "a child's store to MAP_SHARED anonymous memory is seen by the parent");
	munmap((void *)priv, PAGE);
	munmap((void *)shared, PAGE);
}

/* A scratch file of two pages of 'a'. */
static int make_file(const char *name)
{
	char buf[2 * PAGE];
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(buf, 'a', sizeof buf);
	write(fd, buf, sizeof buf);
	return fd;
}

static void test_file_shared(void)
{
	int fd = make_file("shared");
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "MAP_SHARED of a file succeeds");
	if (m == MAP_FAILED)
		return;
	CHECK(m[0] == 'a' && m[2 * PAGE - 1] == 'a', "the mapping shows the file's bytes");
	pwrite(fd, "W", 1, 10);
	CHECK_EQ(m[10], 'W', "write() is seen through a MAP_SHARED mapping");
	m[PAGE + 5] = 'M';
	char c = 0;
	pread(fd, &c, 1, PAGE + 5);
	CHECK_EQ(c, 'M', "a store through MAP_SHARED is seen by read()");
	close(fd);
	CHECK_EQ(m[10], 'W', "the mapping outlives close() of its descriptor");
	munmap(m, 2 * PAGE);
	fd = open("shared", O_RDONLY);
	pread(fd, &c, 1, PAGE + 5);
	CHECK_EQ(c, 'M', "the store is in the file after munmap");
	close(fd);
}

static void test_file_private(void)
{
	int fd = make_file("private");
	char *priv = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	char *shr = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(priv != MAP_FAILED && shr != MAP_FAILED, "MAP_PRIVATE and MAP_SHARED of one file");
	if (priv == MAP_FAILED || shr == MAP_FAILED)
		return;
	CHECK_EQ(priv[3], 'a', "a MAP_PRIVATE mapping shows the file's bytes");
	priv[3] = 'X';
	char c = 0;
	pread(fd, &c, 1, 3);
	CHECK_EQ(c, 'a', "a MAP_PRIVATE store is not seen by read()");
	CHECK_EQ(shr[3], 'a', "a MAP_PRIVATE store is not seen by a MAP_SHARED mapping");
	CHECK_EQ(priv[3], 'X', "the MAP_PRIVATE mapping keeps its own store");
	pwrite(fd, "Y", 1, 3);
	CHECK_EQ(priv[3], 'X', "a later write() does not replace the private copy");
	munmap(priv, 2 * PAGE);
	munmap(shr, 2 * PAGE);
	close(fd);
}

static void test_file_eof(void)
{
	int fd = open("short", O_RDWR | O_CREAT | O_TRUNC, 0644);
	write(fd, "0123456789", 10);
	char *m = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "a mapping may be longer than the file");
	if (m == MAP_FAILED)
		return;
	CHECK(m[9] == '9' && all_bytes((unsigned char *)m + 10, PAGE - 10, 0),
	      "the last page reads zero past the end of the file");
	tap_check_killed(child_load(m + PAGE), SIGBUS,
			 "a load from a page wholly past the end of the file kills with SIGBUS");
	munmap(m, 2 * PAGE);
	close(fd);
}

/*
 * MAP_SHARED|MAP_ANONYMOUS memory stays shared with a forked child, and a
 * futex in it works across the two processes (a shared futex: the kernel
 * must key it by the page, not by the address space).
 */
static void test_shared_anon_futex(void)
{
	volatile int *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);
	CHECK(w != MAP_FAILED, "MAP_SHARED|MAP_ANONYMOUS maps");
	w[0] = 0;
	w[1] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		while (w[0] == 0)	/* FUTEX_WAIT: sleep while the word is 0 */
			syscall(SYS_futex, &w[0], 0 /* FUTEX_WAIT */, 0, NULL, NULL, 0);
		w[1] = 42;		/* the parent sees this store */
		_exit(0);
	}
	usleep(50000);
	w[0] = 1;
	syscall(SYS_futex, &w[0], 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a child waiting on a shared futex is woken");
	CHECK_EQ(w[1], 42, "the child's store to shared anonymous memory is seen by the parent");
	munmap((void *)w, 4096);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_mmap\nChecks mmap, mprotect, munmap, mremap, brk,"
		       " madvise and file-mapping coherence.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	tap_enter_scratch("t_mmap");
	test_anonymous();
	test_protect();
	test_mremap();
	test_bounds();
	test_brk();
	test_malloc();
	test_madvise();
	test_fork_sharing();
	test_file_shared();
	test_file_private();
	test_file_eof();
	tap_leave_scratch();
	test_shared_anon_futex();
	return tap_done();
}
