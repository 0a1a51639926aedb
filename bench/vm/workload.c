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
 *   workload -f N
 *
 * The same for N calls of the user-space function bench_func() (the uprobe cases): it is
 * not inlined, and it does next to nothing.
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

/* What the uprobe cases probe. */
__attribute__((noinline)) long bench_func(long i)
{
	__asm__ volatile("" : : : "memory");
	return i + 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int func = argc == 3 && !strcmp(argv[1], "-f");
	long calls = argc > 1 ? atol(argv[argc - 1]) : 0;
	long long start, total;
	long i, sum = 0;

	if (argc == 2 && !strcmp(argv[1], "-t")) {
		printf("%lld\n", now_ns());
		return 0;
	}
	if (calls <= 0) {
		fputs("usage: workload N | workload -f N | workload -t\n", stderr);
		return 2;
	}
	start = now_ns();
	if (func) {
		for (i = 0; i < calls; i++)
			sum += bench_func(i);
	} else {
		for (i = 0; i < calls; i++)
			syscall(SYS_getppid);
	}
	total = now_ns() - start;
	__asm__ volatile("" : : "r"(sum));
	printf("%lld %.1f\n", total, (double)total / (double)calls);
	return 0;
}
