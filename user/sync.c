/*
 * sync - ask the kernel to write every dirty buffer and page to disk.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: sync\nWrites all modified file data to disk.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	sync();
	return 0;
}
