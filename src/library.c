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

/* The files of `dir` named *SUFFIX (".stp", ".stpm"), sorted so that the order (and every
 * message) is stable. */
static char **list_files(const char *dir, const char *suffix, int *n)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t suffix_len = strlen(suffix);

	*n = 0;
	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);

		if (len > suffix_len && !strcmp(e->d_name + len - suffix_len, suffix)) {
			names = xrealloc(names, sizeof(*names) * (size_t)(*n + 1));
			names[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(names, (size_t)*n, sizeof(*names), compare_names);
	return names;
}

static void read_dir(const struct session *session, const struct parse_target *target,
		     const char *dir, struct file ***tail, int *count)
{
	struct parse_options options = { .guru = true, .guru_mode = session->guru,
					 .target = target, .arch = "x86_64" };
	int n;
	char **names = list_files(dir, ".stp", &n);

	/* The tapsets see the library's macros too. */
	options.macro_sources = library_macro_sources(session, &options.nmacro_sources);
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

struct file *library_read(const struct session *session, const struct parse_target *target,
			  int *count)
{
	struct file *files = NULL, **tail = &files;

	*count = 0;
	read_dir(session, target, session->tapset_dir, &tail, count);
	for (int i = 0; i < session->ninclude_dirs; i++)
		read_dir(session, target, session->include_dirs[i], &tail, count);
	return files;
}

static void read_macro_dir(const char *dir, struct source ***sources, int *count)
{
	int n;
	char **names = list_files(dir, ".stpm", &n);

	for (int i = 0; i < n; i++) {
		struct source *src = source_read(names[i], true);

		if (src) {
			*sources = xrealloc(*sources, sizeof(**sources) * (size_t)(*count + 1));
			(*sources)[(*count)++] = src;
		}
		free(names[i]);
	}
	free(names);
}

/* Read once per session: the parser knows the library by these sources. */
struct source **library_macro_sources(const struct session *session, int *count)
{
	static const struct session *read_for;
	static struct source **sources;
	static int nsources;

	if (read_for != session) {
		read_for = session;
		sources = NULL;
		nsources = 0;
		read_macro_dir(session->tapset_dir, &sources, &nsources);
		for (int i = 0; i < session->ninclude_dirs; i++)
			read_macro_dir(session->include_dirs[i], &sources, &nsources);
	}
	*count = nsources;
	return sources;
}
