// SPDX-License-Identifier: GPL-2.0-or-later
/* Three threads, started and joined one after another, for the task finder's thread points. */
#include <pthread.h>

static void *work(void *arg)
{
	return arg;
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, work, NULL) || pthread_join(t, NULL))
			return 1;
	}
	return 0;
}
