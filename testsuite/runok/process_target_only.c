// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of process_target_only.stp. Run by -c, it calls ptt_work(1), then from a
 * thread ptt_work(2) and from a forked child ptt_work(3) (the target's tree), then waits
 * (up to 10 s) for the copy the script starts with system() ("other": a process outside the
 * tree, the loader's) to have called ptt_work(4). The other copy, started as the session
 * begins, waits for the target to have started (the probes are all in place by then).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OTHER_GO "/tmp/process_target_only.go"
#define OTHER_DONE "/tmp/process_target_only.done"

/* Waits up to 10 s for the file `path`, and removes it. */
static void wait_for(const char *path)
{
	struct stat st;
	int i;

	for (i = 0; i < 1000 && stat(path, &st); i++)
		usleep(10000);
	unlink(path);
}

static void create(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

__attribute__((noinline)) int ptt_work(int n)
{
	__asm__ volatile("" ::: "memory");
	return n + 1;
}

static void *ptt_thread(void *arg)
{
	ptt_work(2);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "other")) {
		wait_for(OTHER_GO);
		ptt_work(4);
		create(OTHER_DONE);
		return 0;
	}
	create(OTHER_GO);
	ptt_work(1);
	pthread_create(&t, NULL, ptt_thread, NULL);
	pthread_join(t, NULL);
	child = fork();
	if (child == 0) {
		ptt_work(3);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	wait_for(OTHER_DONE);
	return 0;
}
