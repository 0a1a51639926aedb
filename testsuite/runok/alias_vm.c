// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/alias_vm: the break is page-aligned, then grown by exactly 1 MiB
// (brk(2)); a page is written, a child forked, and the page written again (a write to a
// page the fork write-protected).
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

static char page[8192] __attribute__((aligned(4096)));

int main(void)
{
	uintptr_t cur = (uintptr_t)sbrk(0);
	pid_t child;
	int status = 0;

	if (cur & 4095)
		sbrk(4096 - (cur & 4095));
	if (sbrk(1 << 20) == (void *)-1)
		return 1;

	page[0] = 1;
	child = fork();
	if (child == 0)
		_exit(0);
	page[0] = 2;
	waitpid(child, &status, 0);
	return status;
}
