// SPDX-License-Identifier: GPL-2.0-or-later
#include "library.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.stp files of `dir`, sorted so that the order (and every message) is stable. */
static char **list_tapsets(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	char **names = NULL;

	*n = 0;
	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".stp")) {
			names = xrealloc(names, sizeof(*names) * (size_t)(*n + 1));
			names[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(names, (size_t)*n, sizeof(*names), compare_names);
	return names;
}

static void read_dir(const char *dir, struct file ***tail, int *count)
{
	struct parse_options options = { .guru = true };
	int n;
	char **names = list_tapsets(dir, &n);

	for (int i = 0; i < n; i++) {
		struct source *src = source_read(names[i], true);
		struct file *file = src ? parse_source(src, &options) : NULL;

		if (file) {
			**tail = file;
			*tail = &file->next;
			(*count)++;
		}
		free(names[i]);
	}
	free(names);
}

struct file *library_read(const struct session *session, int *count)
{
	struct file *files = NULL, **tail = &files;

	*count = 0;
	read_dir(session->tapset_dir, &tail, count);
	for (int i = 0; i < session->ninclude_dirs; i++)
		read_dir(session->include_dirs[i], &tail, count);
	return files;
}
