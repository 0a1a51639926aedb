// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Types from headers, for @cast(p, "T", "kernel<linux/fs.h>") and @cast(p, "T", "<sys/un.h>"):
 * an empty translation unit that includes the headers, compiled with -g and
 * -fno-eliminate-unused-debug-types (every type the headers declare is then in its DWARF) by
 * the target's kbuild (kernel headers, with the tree's include flags) or the host's gcc (user
 * headers), and read by dwtypes.c. The object is kept in TAPSTER_DIR/header-types/HASH.o
 * (HASH of the kernel release, the build tree and the headers), made in a directory
 * of its own next to it: a header list compiles once.
 */
#include "target/ktypes.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target/dwtypes.h"
#include "session.h"
#include "util.h"

#define TU_NAME "hdrtypes"

/* Whether a header's name is one make and the compiler take as it is. */
static bool plain_header_name(const char *name, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-",
			    name[i]) || !name[i])
			return false;
	return true;
}

/* The headers of "<a.h><b.h>", one a string (NULL-terminated, malloc'd); NULL when the list
 * is not of that form. */
static char **header_list(const char *headers)
{
	char **list = NULL;
	size_t n = 0;

	for (const char *p = headers; *p;) {
		const char *end = *p == '<' ? strchr(p, '>') : NULL;

		if (!end || !plain_header_name(p + 1, (size_t)(end - p - 1))) {
			for (size_t i = 0; i < n; i++)
				free(list[i]);
			free(list);
			return NULL;
		}
		list = xrealloc(list, (n + 2) * sizeof(*list));
		list[n++] = xstrndup(p + 1, (size_t)(end - p - 1));
		list[n] = NULL;
		p = end + 1;
	}
	return list;
}

static void free_list(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}




/* The kernel TU: DIR/Kbuild names it with the headers' -include flags, and kbuild builds
 * the one object in the target's tree; make's exit status. */
static int compile_kernel(const struct session *s, const char *dir, char **headers,
			  const char *log)
{
	struct strbuf flags = { 0 };
	char *kbuild = xasprintf("%s/Kbuild", dir), *text, *mdir = xasprintf("M=%s", dir);
	const char *fixed[] = { "make", "-s", "--no-print-directory", "-C", s->kernel_build_dir, mdir,
				TU_NAME ".o" };
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	char **argv = xcalloc(nfixed + (size_t)s->make_args.count + 1, sizeof(*argv));
	int status = -1;

	for (size_t i = 0; headers[i]; i++) {
		sb_add(&flags, " -include ");
		sb_add(&flags, headers[i]);
	}
	text = xasprintf("obj-m := " TU_NAME ".o\nccflags-y := -g"
			 " -fno-eliminate-unused-debug-types%s\n", flags.buf ? flags.buf : "");
	for (size_t i = 0; i < nfixed; i++)
		argv[i] = (char *)fixed[i];
	for (int i = 0; i < s->make_args.count; i++)
		argv[nfixed + (size_t)i] = (char *)s->make_args.items[i];
	if (write_text_file(kbuild, text)) {
		char *source = xasprintf("%s/" TU_NAME ".c", dir);

		if (write_text_file(source, ""))
			status = run_logged(NULL, argv, NULL, log, false);
		free(source);
	}
	free(argv);
	free(text);
	free(kbuild);
	free(mdir);
	free(flags.buf);
	return status;
}

/* The user TU: the host's gcc (as stap's) on an empty C file; its exit status. */
static int compile_user(const char *dir, char **headers, const char *log)
{
	size_t n = 0;
	char *object = xasprintf("%s/" TU_NAME ".o", dir);
	char **argv;
	int status;

	while (headers[n])
		n++;
	argv = xcalloc(2 * n + 10, sizeof(*argv));
	n = 0;
	argv[n++] = "gcc";
	argv[n++] = "-g";
	argv[n++] = "-fno-eliminate-unused-debug-types";
	argv[n++] = "-c";
	argv[n++] = "-x";
	argv[n++] = "c";
	for (size_t i = 0; headers[i]; i++) {
		argv[n++] = "-include";
		argv[n++] = headers[i];
	}
	argv[n++] = "/dev/null";
	argv[n++] = "-o";
	argv[n++] = object;
	status = run_logged(NULL, argv, NULL, log, false);
	free(argv);
	free(object);
	return status;
}

/* Removes the files of DIR (kbuild's leave no folders) and DIR. */
static void remove_build_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *entry;

	while (d && (entry = readdir(d))) {
		char *path;

		if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
			continue;
		path = xasprintf("%s/%s", dir, entry->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Compiles the headers' TU in a directory of its own (made next to `cached`, so that two
 * runs never share one) and, unless `keep` is false, moves the object to `cached`; the
 * object's path, or NULL (after make's or the compiler's output and stap's warning of its
 * status) when the headers do not compile. *build_dir: the directory, for the caller to
 * remove. */
static char *compile_headers(const struct session *s, char **list, bool kernel,
			     const char *cached, bool keep, char **build_dir)
{
	char *dir = xasprintf("%s.XXXXXX", cached), *object, *log;
	int status;

	*build_dir = NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	*build_dir = dir;
	object = xasprintf("%s/" TU_NAME ".o", dir);
	log = xasprintf("%s/" TU_NAME ".log", dir);
	status = kernel ? compile_kernel(s, dir, list, log) : compile_user(dir, list, log);
	if (status != 0) {
		copy_file_to(log, stderr);
		fprintf(stderr, "WARNING: %s exited with status: %d\n", kernel ? "kbuild" : "gcc",
			status);
		free(object);
		object = NULL;
	} else if (keep && rename(object, cached) == 0) {
		free(object);
		object = xstrdup(cached);
	}
	free(log);
	return object;
}

/* The object with the headers' types: TAPSTER_DIR/header-types/HASH.o, compiled now unless
 * it is there (with --disable-cache, compiled in a directory *build_dir under TMPDIR that
 * the caller removes); NULL when they do not compile. */
static char *header_object(const struct session *s, const char *headers, bool kernel,
			   char **build_dir)
{
	char *key = xasprintf("%s\n%s\n%s", kernel ? s->kernel_release : "user",
			      kernel ? s->kernel_build_dir : "", headers);
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	/* --disable-cache: not even TAPSTER_DIR is made; built under TMPDIR. */
	char *base = s->disable_cache ? xasprintf("%s/tapster-hdrtypes", tmp) :
		     keyed_cache_path("header-types", key), *cached, *object;
	char **list = header_list(headers);

	free(key);
	*build_dir = NULL;
	if (!base || !list) {
		free(base);
		free_list(list);
		return NULL;
	}
	cached = xasprintf("%s.o", base);
	if (!s->disable_cache && !s->poison_cache && access(cached, R_OK) == 0)
		object = xstrdup(cached);
	else
		object = compile_headers(s, list, kernel, cached, !s->disable_cache, build_dir);
	free(cached);
	free(base);
	free_list(list);
	return object;
}

struct loaded_headers {
	char *key;
	const struct ktypes *types;
};

const struct ktypes *ktypes_load_headers(const struct session *s, const char *headers,
					 bool kernel)
{
	static struct loaded_headers *loaded;
	static size_t nloaded;
	char *key = xasprintf("%c%s", kernel ? 'k' : 'u', headers), *object, *build_dir;
	struct dwtypes *dw;

	for (size_t i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].key, key)) {
			free(key);
			return loaded[i].types;
		}
	object = header_object(s, headers, kernel, &build_dir);
	dw = object ? dwtypes_open_module(object) : NULL;
	if (build_dir)
		remove_build_dir(build_dir);	/* the types were read (libdw keeps them) */
	free(build_dir);
	if (dw && s->verbose > 1)
		fprintf(stderr, "Types of %s%s from DWARF: %s\n", kernel ? "kernel" : "", headers,
			object);
	free(object);
	loaded = xrealloc(loaded, (nloaded + 1) * sizeof(*loaded));
	loaded[nloaded].key = key;
	loaded[nloaded].types = dw ? dwtypes_types(dw) : NULL;
	return loaded[nloaded++].types;
}
