// SPDX-License-Identifier: GPL-2.0-or-later
/* Output files sent back by a VM job on its control port (see vm_outfiles.h). */
#define _GNU_SOURCE
#include "run/vm_outfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static bool plain_file_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static int create_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		fprintf(stderr, "ERROR: Couldn't open output file %s: %s\n", path, strerror(errno));
	free(path);
	return fd;
}

bool vm_outfile_start(struct vm_outfile *of, const char *line)
{
	char name[256], *end;
	const char *size_text;
	unsigned long long size;
	size_t len;

	if (strncmp(line, "file ", 5))
		return false;
	size_text = strrchr(line, ' ');
	len = (size_t)(size_text - (line + 5));
	if (size_text <= line + 5 || len >= sizeof(name))
		return false;
	memcpy(name, line + 5, len);
	name[len] = '\0';
	errno = 0;
	size = strtoull(size_text + 1, &end, 10);
	if (*end || end == size_text + 1 || errno || !plain_file_name(name))
		return false;
	vm_outfile_close(of);
	of->fd = of->dir ? create_file(of->dir, name) : -1;
	of->left = size;
	if (!size)
		vm_outfile_close(of);
	return true;
}

size_t vm_outfile_take(struct vm_outfile *of, const char *buf, size_t n)
{
	size_t take = n < of->left ? n : (size_t)of->left;
	size_t done = 0;

	while (of->fd >= 0 && done < take) {
		ssize_t w = write(of->fd, buf + done, take - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr, "ERROR: cannot write an output file: %s\n", strerror(errno));
			close(of->fd);
			of->fd = -1;
			break;
		}
		done += (size_t)w;
	}
	of->left -= take;
	if (!of->left)
		vm_outfile_close(of);
	return take;
}

void vm_outfile_close(struct vm_outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	of->left = 0;
}
