// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of uentry_exec.stp: uexe_work() execs the program again from inside (300
 * times, one task, each call at a stack pointer of its own: its depth's alloca below it),
 * so that no call returns; the last program then calls uexe_work() three times, returning.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXECS 300

__attribute__((noinline)) int uexe_work(int n, int again)
{
	if (again) {
		char next[16];

		snprintf(next, sizeof(next), "%d", n + 1);
		execl("/proc/self/exe", "uentry_exec", next, (char *)NULL);
		_exit(2);
	}
	return n * 2;
}

/* A call of uexe_work() with `depth` * 16 bytes more of stack under it. */
__attribute__((noinline)) static int uexe_at(int depth, int n, int again)
{
	char *pad = alloca(16 * depth + 16);

	memset(pad, 0, 16);
	return uexe_work(n, again) + pad[0];
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 0;
	int i;

	if (depth < EXECS)
		return uexe_at(depth, depth, 1);
	for (i = 1000; i < 1003; i++)
		uexe_at(0, i, 0);
	return 0;
}
