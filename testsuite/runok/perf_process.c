// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of perf_process.stp, which probes it as
 * process("/tmp/tapster-runok/perf_process"): pp_step() runs five times, each spinning for
 * 20 ms of the process's CPU time (the task clock's default sample period is 1 ms). */
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

int pp_step(int n)
{
	double start = cpu_ms();
	volatile long spins = 0;

	while (cpu_ms() - start < 20)
		spins++;
	return n + (spins > 0);
}

int main(void)
{
	int total = 0;

	for (int i = 0; i < 5; i++)
		total = pp_step(total);
	return total == 5 ? 0 : 1;
}
