// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runok/shards_hot's workload: one child pinned to each of CPUs 0 and 1, each making CALLS
 * getppid() system calls; the parent waits for both.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 40000

static void calls_on(int cpu)
{
	cpu_set_t set;
	long i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
}

int main(void)
{
	int cpu;

	for (cpu = 0; cpu < 2; cpu++)
		if (fork() == 0) {
			calls_on(cpu);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
