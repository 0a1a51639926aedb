// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of uentry_exit.stp: 300 children at once, each calling uex_work(), which
 * exits (_exit() in a nested call) before it returns; all reaped only after the last has
 * exited (300 tasks, none reused). The parent then calls uex_work() three times, returning.
 */
#include <sys/wait.h>
#include <unistd.h>

#define CHILDREN 300

__attribute__((noinline)) static void uex_leave(int n)
{
	_exit(n & 1);
}

__attribute__((noinline)) int uex_work(int n, int leave)
{
	if (leave)
		uex_leave(n);
	return n * 2;
}

int main(void)
{
	int i;

	for (i = 0; i < CHILDREN; i++)
		if (fork() == 0)
			uex_work(i, 1);
	while (wait(NULL) > 0)
		;
	for (i = 1000; i < 1003; i++)
		uex_work(i, 0);
	return 0;
}
