// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Times a command for the benchmarks: runs it once to warm the caches, then RUNS times with
 * its output sent to /dev/null, and prints one line
 *
 *     MEDIAN_MS MIN_MS MAX_MS CPU_MEDIAN_MS
 *
 * (wall time from fork to exit, and the child's user+system CPU time). Exits 1, naming the
 * status, when a run fails.
 *
 *     timeit RUNS COMMAND [ARG...]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double timeval_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/* One run; false when the command does not exit with status 0. */
static bool run_once(char **argv, double *wall, double *cpu)
{
	double start = now_ms();
	pid_t pid = fork();
	struct rusage usage;
	int status;

	if (pid < 0) {
		perror("timeit: fork");
		exit(1);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &usage) < 0) {
		perror("timeit: wait4");
		exit(1);
	}
	*wall = now_ms() - start;
	*cpu = timeval_ms(usage.ru_utime) + timeval_ms(usage.ru_stime);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status))
		fprintf(stderr, "timeit: %s exited with status %d\n", argv[0], WEXITSTATUS(status));
	else
		fprintf(stderr, "timeit: %s was killed by signal %d\n", argv[0], WTERMSIG(status));
	return false;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *values, int n)
{
	qsort(values, (size_t)n, sizeof(*values), compare_doubles);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[1]) : 0;
	double wall, cpu;

	if (runs < 1) {
		fprintf(stderr, "usage: timeit RUNS COMMAND [ARG...]\n");
		return 2;
	}
	double *walls = calloc((size_t)runs, sizeof(*walls));
	double *cpus = calloc((size_t)runs, sizeof(*cpus));

	if (!walls || !cpus)
		return 1;
	if (!run_once(argv + 2, &wall, &cpu))
		return 1;
	for (int i = 0; i < runs; i++)
		if (!run_once(argv + 2, &walls[i], &cpus[i]))
			return 1;
	double min = walls[0], max = walls[0];

	for (int i = 1; i < runs; i++) {
		if (walls[i] < min)
			min = walls[i];
		if (walls[i] > max)
			max = walls[i];
	}
	printf("%.2f %.2f %.2f %.2f\n", median(walls, runs), min, max, median(cpus, runs));
	free(walls);
	free(cpus);
	return 0;
}
