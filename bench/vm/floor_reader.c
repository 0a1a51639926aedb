// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user-space half of the benchmark's floor (d) (bench/vm/floor_d.c): reads the lines of
 * its relay files (one a CPU) and writes them to a file, as tapster-run reads its module's
 * output and writes -o FILE. Stripped to the minimum: it sleeps in poll() until the relay
 * says a sub-buffer is full, then reads what each file has with one read() and writes it
 * with one write(). SIGTERM ends it once everything left is written.
 *
 *   floor_reader OUT FILE...
 *
 * Prints "ready" on stdout once its files are open and closes stdout, so that the caller
 * can wait for it before the workload starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_FILES 64

static char buf[1 << 20];
static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Moves what `fd` has now to `out`; false once it has nothing. */
static int forward(int fd, int out)
{
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n <= 0)
		return 0;
	for (ssize_t done = 0, w; done < n; done += w) {
		w = write(out, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			w = 0;
		else if (w <= 0)
			exit(1);
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct pollfd pfd[MAX_FILES];
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t term, sleeping;
	int nfiles = argc - 2, out;

	if (argc < 3 || nfiles > MAX_FILES) {
		fputs("usage: floor_reader OUT FILE...\n", stderr);
		return 2;
	}
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < nfiles; i++) {
		pfd[i].fd = open(argv[i + 2], O_RDONLY);
		pfd[i].events = POLLIN;
		if (pfd[i].fd < 0) {
			perror(argv[i + 2]);
			return 1;
		}
	}
	/* SIGTERM is let in only while it sleeps: none is missed between a check and a sleep. */
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &sleeping);
	sigdelset(&sleeping, SIGTERM);
	puts("ready");
	fclose(stdout);
	while (!stopping) {
		if (ppoll(pfd, nfiles, NULL, &sleeping) < 0 && errno != EINTR)
			return 1;
		for (int i = 0; i < nfiles; i++)
			if (pfd[i].revents & POLLIN)
				forward(pfd[i].fd, out);
	}
	for (int i = 0; i < nfiles; i++)
		while (forward(pfd[i].fd, out))
			;
	return close(out) ? 1 : 0;
}
