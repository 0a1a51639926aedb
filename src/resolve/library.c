// SPDX-License-Identifier: GPL-2.0-or-later
#include "resolve/library.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

#include "diag.h"
#include "parse/parse.h"
#include "resolve/tapidx.h"
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
	if (names)	/* qsort's array may not be NULL, even for no element */
		qsort(names, (size_t)*n, sizeof(*names), compare_names);
	return names;
}

/*
 * The directories stap reads for one tapset directory DIR, most specific first (a function
 * defined twice is the first one read): DIR/linux/V for each version V of the target, then
 * DIR/linux/ARCH and DIR/linux, then the same without linux/, and DIR itself. For release
 * 6.1.0-56-cloud-amd64 the versions are 6.1.0-56-cloud-amd64, 6.1.0 and 6.1.
 */
struct search_dirs {
	char **items;
	int len;
};

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_if_dir(struct search_dirs *dirs, char *path)
{
	if (!is_dir(path)) {
		free(path);
		return;
	}
	dirs->items = xrealloc(dirs->items, sizeof(*dirs->items) * (size_t)(dirs->len + 1));
	dirs->items[dirs->len++] = path;
}

/* Whether DIR (or DIR/linux) has a subdirectory named like a version: only then is the
 * target's release needed. */
static bool has_version_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	bool found = false;

	if (!d)
		return false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		if (isdigit((unsigned char)e->d_name[0])) {
			found = true;
		} else if (!strcmp(e->d_name, "linux")) {
			char *linux_dir = xasprintf("%s/linux", dir);

			found = has_version_dirs(linux_dir);
			free(linux_dir);
		}
	}
	closedir(d);
	return found;
}

/* 6.1.0-56-cloud-amd64, 6.1.0, 6.1: the release, its part before '-', then that with its
 * last component dropped while it has three or more. */
static int release_versions(const char *release, char versions[][128])
{
	int n = 0;
	size_t base_len = strcspn(release, "-");

	snprintf(versions[n++], 128, "%s", release);
	if (release[base_len])
		snprintf(versions[n++], 128, "%.*s", (int)base_len, release);
	for (;;) {
		char *last = strrchr(versions[n - 1], '.');
		const char *first = strchr(versions[n - 1], '.');

		if (!last || last == first || n == 8)
			break;
		snprintf(versions[n], 128, "%.*s", (int)(last - versions[n - 1]), versions[n - 1]);
		n++;
	}
	return n;
}

static struct search_dirs search_dirs(const char *dir, const struct parse_target *target)
{
	static const char *const prefixes[] = { "/linux", "" };
	struct search_dirs dirs = { 0 };
	char versions[8][128];
	int nversions = 0;
	const char *release = NULL;

	if (target && target->kernel_release && has_version_dirs(dir))
		release = target->kernel_release(target->ctx);
	if (release)
		nversions = release_versions(release, versions);
	for (int p = 0; p < 2; p++) {
		for (int v = 0; v < nversions; v++)
			add_if_dir(&dirs, xasprintf("%s%s/%s", dir, prefixes[p], versions[v]));
		add_if_dir(&dirs, xasprintf("%s%s/x86_64", dir, prefixes[p]));
		add_if_dir(&dirs, xasprintf("%s%s", dir, prefixes[p]));
	}
	return dirs;
}

/* The tapset directories in stap's order: the library's (TAPSTER_TAPSET or
 * SYSTEMTAP_TAPSET when set), then each -I. */
static int tapset_roots(const struct session *session, const char **roots, int max)
{
	int n = 0;

	roots[n++] = session->tapset_dir;
	for (int i = 0; i < session->ninclude_dirs && n < max; i++)
		roots[n++] = session->include_dirs[i];
	return n;
}

/* The tapset files in stap's order: each root's search directories, each sorted. */
static char **library_paths(const struct session *session, const struct parse_target *target,
			    int *count)
{
	char **paths = NULL;
	const char *roots[64];
	int nroots = tapset_roots(session, roots, 64);

	*count = 0;
	for (int r = 0; r < nroots; r++) {
		struct search_dirs dirs = search_dirs(roots[r], target);

		for (int i = 0; i < dirs.len; i++) {
			int n;
			char **names = list_files(dirs.items[i], ".stp", &n);

			paths = xrealloc(paths, sizeof(*paths) * (size_t)(*count + n + 1));
			for (int j = 0; j < n; j++)
				paths[(*count)++] = names[j];
			free(names);
			free(dirs.items[i]);
		}
		free(dirs.items);
	}
	return paths;
}

/* Whether `path` is a file of tapster's own library directory. */
static bool in_own_library(const struct session *session, const char *path)
{
	const char *dir = session->own_tapset_dir;
	size_t len = dir ? strlen(dir) : 0;

	return len && !strncmp(path, dir, len) && path[len] == '/';
}

/* Parses the files of `paths` that `needed` marks (all when it is NULL). */
static struct file *parse_paths(const struct session *session, const struct parse_target *target,
				char **paths, int npaths, const bool *needed, int *count)
{
	/* The script's arguments reach the tapsets too ($#, @1: argv.stp). */
	struct parse_options options = { .guru = true, .guru_mode = session->guru,
					 .argc = session->argc, .argv = session->argv,
					 .target = target, .arch = session->arch,
					 .systemtap_version = session->compatible };
	struct file *files = NULL, **tail = &files;

	/* The tapsets see the library's macros too. */
	options.macro_sources = library_macro_sources(session, target, &options.nmacro_sources);
	*count = 0;
	for (int i = 0; i < npaths; i++) {
		if (needed && !needed[i])
			continue;
		struct source *src = source_read(paths[i], true);
		struct file *file = src ? parse_source(src, &options) : NULL;

		if (file) {
			file->own_library = in_own_library(session, paths[i]);
			*tail = file;
			tail = &file->next;
			(*count)++;
		}
	}
	return files;
}

static void free_paths(char **paths, int npaths)
{
	for (int i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
}

struct file *library_read(const struct session *session, const struct parse_target *target,
			  int *count)
{
	int npaths;
	char **paths = library_paths(session, target, &npaths);
	struct file *files = parse_paths(session, target, paths, npaths, NULL, count);

	free_paths(paths, npaths);
	return files;
}

/* What the index is valid for: the files (path, size, time, inode), tapster's binary and
 * -g; NULL when a path can't be written on one line. */
static char *index_key(const struct session *session, char **paths, int npaths)
{
	struct strbuf key = { 0 };
	struct stat st;

	if (stat("/proc/self/exe", &st) == 0)
		sb_addf(&key, "tapster %lld %lld.%09ld", (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	sb_addf(&key, " guru %d", session->guru);
	for (int i = 0; i < npaths; i++) {
		if (strchr(paths[i], '\n') || stat(paths[i], &st) != 0) {
			free(key.buf);
			return NULL;
		}
		sb_addf(&key, "\t%s %lld %lld.%09ld %llu", paths[i], (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			(unsigned long long)st.st_ino);
	}
	return sb_steal(&key);
}

/* Which files the script needs, from the cached index; false when it can't tell. */
static bool select_needed(const struct session *session, const struct parse_target *target,
			  const struct source *script, struct tapidx *idx, bool *needed,
			  int npaths)
{
	int nmacros;
	struct source **macros = library_macro_sources(session, target, &nmacros);
	int ntexts = nmacros + session->argc;
	const char **texts = xcalloc((size_t)ntexts + 1, sizeof(*texts));
	bool sure;

	/* The macros' words, and the arguments', which $1 and @1 put in the script. */
	for (int i = 0; i < nmacros; i++)
		texts[i] = macros[i]->text;
	for (int i = 0; i < session->argc; i++)
		texts[nmacros + i] = session->argv[i];
	sure = tapidx_select(idx, script->text, texts, ntexts, needed, npaths);
	free(texts);
	return sure;
}

struct file *library_read_needed(const struct session *session,
				 const struct parse_target *target, const struct source *script,
				 int *count)
{
	int npaths, errors = diag_error_count();
	char **paths = library_paths(session, target, &npaths);
	char *key = session->disable_cache ? NULL : index_key(session, paths, npaths);
	char *path = key ? keyed_cache_path("tapidx", key) : NULL;
	struct tapidx *idx = path && !session->poison_cache ? tapidx_load(path, key) : NULL;
	bool *needed = idx ? xcalloc((size_t)npaths + 1, sizeof(bool)) : NULL;
	struct file *files;

	if (needed && !select_needed(session, target, script, idx, needed, npaths)) {
		free(needed);
		needed = NULL;
	}
	files = parse_paths(session, target, paths, npaths, needed, count);
	if (needed)
		*count = npaths;
	else if (path && !idx)
		tapidx_build_and_save(path, key, paths, npaths, diag_error_count() == errors);
	tapidx_free(idx);
	free(needed);
	free(path);
	free(key);
	free_paths(paths, npaths);
	return files;
}

struct library_set *library_read_indexed(const struct session *session,
					 const struct parse_target *target)
{
	struct library_set *set = xcalloc(1, sizeof(*set));
	int npaths, errors = diag_error_count();
	char **paths = library_paths(session, target, &npaths);

	set->files = parse_paths(session, target, paths, npaths, NULL, &set->nfiles);
	if (set->nfiles == npaths)
		set->idx = tapidx_build(paths, npaths, diag_error_count() == errors);
	free_paths(paths, npaths);
	return set;
}

bool library_needed(const struct library_set *set, const struct session *session,
		    const struct parse_target *target, const struct source *script,
		    bool *needed)
{
	if (set->idx && select_needed(session, target, script, set->idx, needed, set->nfiles))
		return true;
	for (int i = 0; i < set->nfiles; i++)
		needed[i] = true;
	return false;
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
struct source **library_macro_sources(const struct session *session,
				      const struct parse_target *target, int *count)
{
	static const struct session *read_for;
	static struct source **sources;
	static int nsources;

	if (read_for != session) {
		const char *roots[64];
		int nroots = tapset_roots(session, roots, 64);

		read_for = session;
		sources = NULL;
		nsources = 0;
		for (int r = 0; r < nroots; r++) {
			struct search_dirs dirs = search_dirs(roots[r], target);

			for (int i = 0; i < dirs.len; i++) {
				read_macro_dir(dirs.items[i], &sources, &nsources);
				free(dirs.items[i]);
			}
			free(dirs.items);
		}
	}
	*count = nsources;
	return sources;
}
