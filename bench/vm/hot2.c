// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of bench/run-shards-bench.sh: one child pinned to each online CPU, each
 * calling getppid() for SECONDS seconds and counting its calls; prints their sum.
 *
 *   hot2 SECONDS
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), cpu;
	long *counts = mmap(NULL, (size_t)cpus * sizeof(long), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long total = 0;

	if (counts == MAP_FAILED)
		return 1;
	for (cpu = 0; cpu < cpus; cpu++) {
		if (fork() == 0) {
			cpu_set_t set;
			double end = now() + seconds;
			long n = 0;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
			while (n % 256 || now() < end) {
				syscall(SYS_getppid);
				n++;
			}
			counts[cpu] = n;
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	for (cpu = 0; cpu < cpus; cpu++)
		total += counts[cpu];
	printf("%ld\n", total);
	return 0;
}
