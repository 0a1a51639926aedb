// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the script's stdout records go. Without -o: stdout. With -o FILE: FILE; with -S
 * size[,N] as well, FILE.0, FILE.1, ... switching to the next before a record would take a
 * file past size MB and removing the oldest when there are more than N. switch_file() (a
 * record) and SIGUSR2 switch to the next file at once; without -S, FILE is followed by
 * FILE.1, FILE.2, ... In bulk mode each
 * CPU has its own file, FILE_CPU (FILE_CPU.0, FILE_CPU.1, ... with -S; FILE_cpuCPU in the
 * background, -D, as staprun's); without -o bulk
 * output goes to stdout as usual. A record is never split between files. FILE may hold
 * strftime(3) conversions ("out-%Y%m%d-%H%M%S"), as staprun's: they are expanded with
 * the local time when each file is opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"

#define MAX_CPUS 4096

struct sink {
	int fd;			/* -1 until opened */
	unsigned int index;	/* the file's number with -S */
	unsigned long long bytes;	/* written to the current file */
};

static struct output_options options;
static struct sink sinks[MAX_CPUS];

/*
 * The short records of one read of out that go to the same file are gathered here and
 * written with one write(): a probe that prints a line on every hit would otherwise cost
 * the traced system a system call per line (when no other CPU prints in between, its lines
 * come as one long record). output_flush() writes them out; the caller flushes after
 * each read, and before anything else that writes (stderr records, a switch of file).
 */
static char pending[1 << 16];
static size_t pending_len;
static int pending_fd = -1;

void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* the reader went away; nothing better to do */
		buf += n;
		len -= (size_t)n;
	}
}

void output_flush(void)
{
	if (pending_len)
		write_all(pending_fd, pending, pending_len);
	pending_len = 0;
}

static void output_add(int fd, const char *buf, size_t len)
{
	if (pending_len && (fd != pending_fd || pending_len + len > sizeof(pending)))
		output_flush();
	/* A long record (the lines of many hits: runtime/transport.h) is written from where it
	 * is rather than copied first. */
	if (len >= sizeof(pending) / 4) {
		output_flush();
		write_all(fd, buf, len);
		return;
	}
	memcpy(pending + pending_len, buf, len);
	pending_len += len;
	pending_fd = fd;
}

void output_init(const struct output_options *opt)
{
	options = *opt;
	if (!options.path)
		options.bulk = false;
	for (int i = 0; i < MAX_CPUS; i++)
		sinks[i].fd = -1;
}

/* FILE with its strftime(3) conversions expanded for the local time now. */
static void expand_path(char *path, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!strchr(options.path, '%')) {
		if ((size_t)snprintf(path, size, "%s", options.path) >= size)
			fail("output file name too long: %s", options.path);
		return;
	}
	if (!localtime_r(&now, &tm) || strftime(path, size, options.path, &tm) == 0)
		fail("Invalid FILE name format");
}

static void file_name(unsigned int cpu, unsigned int index, char *name, size_t size)
{
	char path[PATH_MAX];
	int n;

	const char *cpu_prefix = options.background ? "cpu" : "";

	expand_path(path, sizeof(path));
	if (options.bulk && options.max_bytes)
		n = snprintf(name, size, "%s_%s%u.%u", path, cpu_prefix, cpu, index);
	else if (options.bulk)
		n = snprintf(name, size, "%s_%s%u", path, cpu_prefix, cpu);
	else if (options.max_bytes || index)
		n = snprintf(name, size, "%s.%u", path, index);
	else
		n = snprintf(name, size, "%s", path);
	if (n < 0 || (size_t)n >= size)
		fail("output file name too long: %s", path);
}

static void open_sink(struct sink *sink, unsigned int cpu)
{
	char name[PATH_MAX];

	file_name(cpu, sink->index, name, sizeof(name));
	sink->fd = open_as_user(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (sink->fd < 0)
		fail("Couldn't open output file %s: %s", name, strerror(errno));
	sink->bytes = 0;
	if (options.max_files && sink->index >= options.max_files) {
		file_name(cpu, sink->index - options.max_files, name, sizeof(name));
		unlink(name);
	}
}

void output_open_first(void)
{
	if (options.path && !options.bulk)
		open_sink(&sinks[0], 0);
}

static struct sink *sink_for(unsigned int cpu)
{
	struct sink *sink = &sinks[options.bulk ? cpu % MAX_CPUS : 0];

	if (sink->fd < 0)
		open_sink(sink, options.bulk ? cpu % MAX_CPUS : 0);
	return sink;
}

void output_write(unsigned int cpu, const char *buf, size_t len)
{
	struct sink *sink;

	if (!options.path) {
		output_add(STDOUT_FILENO, buf, len);
		return;
	}
	sink = sink_for(cpu);
	if (options.max_bytes && sink->bytes && sink->bytes + len > options.max_bytes) {
		output_flush();
		close(sink->fd);
		sink->index++;
		open_sink(sink, options.bulk ? cpu % MAX_CPUS : 0);
	}
	output_add(sink->fd, buf, len);
	sink->bytes += len;
}

/* switch_file() or SIGUSR2: each open file's output goes on in its next file. */
void output_switch(void)
{
	output_flush();
	for (unsigned int cpu = 0; options.path && cpu < MAX_CPUS; cpu++) {
		struct sink *sink = &sinks[cpu];

		if (sink->fd < 0)
			continue;
		close(sink->fd);
		sink->index++;
		open_sink(sink, cpu);
	}
}

void output_close(void)
{
	output_flush();
	for (int i = 0; i < MAX_CPUS; i++) {
		if (sinks[i].fd >= 0)
			close(sinks[i].fd);
		sinks[i].fd = -1;
	}
}
