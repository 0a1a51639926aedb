// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/alias_sched_more: it moves itself to the other CPU of the two
// (sched_setaffinity), forks a child that waits for a signal, sends it SIGTERM, reaps it,
// and sleeps 200 ms (the child's task is freed after an RCU grace period).
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec nap = { 0, 200000000 };
	cpu_set_t set;
	int status = 0;
	pid_t child;

	CPU_ZERO(&set);
	CPU_SET(sched_getcpu() ^ 1, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;

	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	kill(child, SIGTERM);
	waitpid(child, &status, 0);
	nanosleep(&nap, NULL);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ? 0 : 1;
}
