// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The progress line (progress.h). A SIGALRM every half second writes it (when its seconds or
 * its count changed): the step itself
 * runs on, mostly waiting for a child (kbuild, qemu), and the waits restart (SA_RESTART).
 * The handler only formats digits and calls write(), which is safe in a signal handler.
 * TAPSTER_PROGRESS_DELAY_MS sets when the line first shows (default 2000), for tests.
 */
#include "progress.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 500
#define DEFAULT_DELAY_MS 2000

static volatile sig_atomic_t step_active;
static volatile sig_atomic_t line_shown;
static volatile sig_atomic_t shown_seconds;	/* what the line says now */
static const char *step_what;
/* The step's count, when it has one: "WHAT: DONE/TOTAL UNIT" (progress_count()). */
static volatile long count_done = -1, count_total;
static const char *volatile count_unit;
static volatile long shown_done = -1;	/* the count the line shows now */
static struct timespec step_start;
static long delay_ms = -1;
static struct sigaction saved_action;

static long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* Appends the decimal digits of `n` (>= 0) to `buf` at `len`; the new length. */
static size_t put_number(char *buf, size_t len, long n)
{
	char digits[24];
	size_t k = 0;

	do {
		digits[k++] = (char)('0' + n % 10);
		n /= 10;
	} while (n && k < sizeof(digits));
	while (k)
		buf[len++] = digits[--k];
	return len;
}

/* ": DONE/TOTAL UNIT" (": DONE UNIT" without a total) when the step has a count. */
static size_t put_count(char *buf, size_t len)
{
	const char *unit = count_unit;
	size_t unit_len;

	if (count_done < 0 || !unit)
		return len;
	buf[len++] = ':';
	buf[len++] = ' ';
	len = put_number(buf, len, count_done);
	if (count_total > 0) {
		buf[len++] = '/';
		len = put_number(buf, len, count_total);
	}
	unit_len = strlen(unit);
	if (unit_len > 24)
		unit_len = 24;
	buf[len++] = ' ';
	memcpy(buf + len, unit, unit_len);
	return len + unit_len;
}

static void show_line(int sig)
{
	char line[256];
	size_t len = 0, what_len;
	long ms;
	int saved_errno;

	(void)sig;
	if (!step_active)
		return;
	ms = ms_since(&step_start);
	if (ms < delay_ms)
		return;
	if (line_shown && shown_seconds == ms / 1000 && shown_done == count_done)
		return;
	saved_errno = errno;
	what_len = strlen(step_what);
	if (what_len > sizeof(line) - 96)
		what_len = sizeof(line) - 96;
	line[len++] = '\r';
	memcpy(line + len, step_what, what_len);
	len += what_len;
	len = put_count(line, len);
	memcpy(line + len, " ... ", 5);
	len += 5;
	len = put_number(line, len, ms / 1000);
	memcpy(line + len, " s\033[K", 5);
	len += 5;
	if (write(STDERR_FILENO, line, len) > 0) {
		line_shown = 1;
		shown_seconds = ms / 1000;
		shown_done = count_done;
	}
	errno = saved_errno;
}

static void set_timer(long ms)
{
	struct itimerval it = { { ms / 1000, ms % 1000 * 1000 }, { ms / 1000, ms % 1000 * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

void progress_begin(const char *what)
{
	struct sigaction sa = { .sa_handler = show_line, .sa_flags = SA_RESTART };

	progress_end();
	if (!isatty(STDERR_FILENO))
		return;
	if (delay_ms < 0) {
		const char *env = getenv("TAPSTER_PROGRESS_DELAY_MS");

		delay_ms = env && *env ? atol(env) : DEFAULT_DELAY_MS;
	}
	step_what = what;
	count_done = -1;
	count_total = 0;
	count_unit = NULL;
	shown_done = -1;
	clock_gettime(CLOCK_MONOTONIC, &step_start);
	line_shown = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &saved_action);
	step_active = 1;
	set_timer(TICK_MS);
}

void progress_count(long done, long total, const char *unit)
{
	sigset_t alarm, saved;

	if (!step_active || done < 0)
		return;
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alarm, &saved);
	count_unit = unit;
	count_total = total;
	count_done = done;
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

void progress_write(const char *text, size_t len)
{
	sigset_t alarm, saved;

	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alarm, &saved);
	if (line_shown && write(STDERR_FILENO, "\r\033[K", 4) == 4)
		line_shown = 0;
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		text += n;
		len -= (size_t)n;
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

void progress_end(void)
{
	if (!step_active)
		return;
	set_timer(0);
	step_active = 0;
	sigaction(SIGALRM, &saved_action, NULL);
	if (line_shown && write(STDERR_FILENO, "\r\033[K", 4) < 0) {
		/* Nothing more to do for a terminal that went away. */
	}
	line_shown = 0;
}
