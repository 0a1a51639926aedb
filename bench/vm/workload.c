// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmark's workload: N getppid() system calls in a tight loop, timed with
 * clock_gettime(CLOCK_MONOTONIC). Under qemu's -icount shift=0 the guest's clock is its
 * instruction count, so the time repeats to the nanosecond.
 *
 *   workload N
 *
 * Prints "TOTAL_NS NS_PER_CALL" (the second with one decimal).
 *
 *   workload -t
 *
 * Prints the clock's time in ns: stamps that time what happens between them (the start and
 * the stop of a session of many probes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 0;
	long long start, total;
	long i;

	if (argc == 2 && !strcmp(argv[1], "-t")) {
		printf("%lld\n", now_ns());
		return 0;
	}
	if (calls <= 0) {
		fputs("usage: workload N | workload -t\n", stderr);
		return 2;
	}
	start = now_ns();
	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
	total = now_ns() - start;
	printf("%lld %.1f\n", total, (double)total / (double)calls);
	return 0;
}
