// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of perf_threads.stp: three threads, started and joined one after another,
 * each calling pt_work(). */
#include <pthread.h>

void *pt_work(void *arg)
{
	return arg;
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, pt_work, NULL) || pthread_join(t, NULL))
			return 1;
	}
	return 0;
}
