/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every pass: allocation that never returns NULL, growable strings. */
#ifndef TAPSTER_UTIL_H
#define TAPSTER_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Appends `value` to the malloc'd `array` of `count` elements (both lvalues, updated). */
#define ARRAY_PUSH(array, count, value)                                          \
	do {                                                                     \
		(array) = xrealloc((array), ((count) + 1) * sizeof(*(array)));    \
		(array)[(count)++] = (value);                                    \
	} while (0)

/* A growable NUL-terminated string. */
struct strbuf {
	char *buf;
	size_t len, cap;
};

void sb_add(struct strbuf *sb, const char *s);
void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
char *sb_steal(struct strbuf *sb);	/* returns the buffer (never NULL) and resets sb */

/* A whole file's contents, NUL-terminated, its length in *len (when not NULL); NULL with
 * errno set when it can't be read. */
char *read_text_file(const char *path, size_t *len);

/* stap's suggestion for a name it does not know: " (similar: a, b, c)" naming the five of
 * `names` nearest to `name` (as sort_nearest() orders them), or "" when there are none.
 * Always a new string. */
char *similar_names(const char *name, const char *const *names, size_t count);
/* The same, each of `names` measured as `prefix` and the name (stap measures tracepoints by
 * the names of its query functions, "stapprobe_sched_switch"); the names are shown bare. */
char *similar_names_as(const char *name, const char *const *names, size_t count,
		       const char *prefix);
/* Sorts `names` as stap orders its suggestions: by stap's weighted edit distance to `name`
 * (2 an insertion, deletion or replacement, 1 a replacement by the other case of the
 * letter), then in byte order; empty names and repeats are dropped. Returns how many are
 * left. */
size_t sort_nearest(const char *name, const char **names, size_t count);

/* tapster's directory of caches (malloc'd): $TAPSTER_DIR, else $TAPSTER_CACHE, else
 * ${XDG_CACHE_HOME:-~/.cache}/tapster. */
char *tapster_dir(void);
/* Where the VM kits are (their vm/ folder): $TAPSTER_CACHE, else $XDG_CACHE_HOME/tapster,
 * else ~/.cache/tapster. */
char *tapster_cache_root(void);

/* Writes TEXT to PATH (made or truncated); false on any error. */
bool write_text_file(const char *path, const char *text);
/* Runs ARGV (or, ARGV NULL, `sh -c COMMAND`) in DIR (NULL: here), its output and errors
 * into LOG (appended with `append`, else LOG is truncated first); its exit status, or -1
 * when it did not exit. */
int run_logged(const char *dir, char *const argv[], const char *command, const char *log,
	       bool append);
/* Copies the text of PATH to `to` (nothing when it can't be read). */
void copy_file_to(const char *path, FILE *to);

/* mkdir -p DIR; 0, or -1 with errno. */
int make_dirs(const char *dir);

/* $TAPSTER_DIR/SUBDIR/HASH, HASH the FNV-1a hash of `key` in 16 hex digits, the directory
 * made (malloc'd); NULL when it can't be made. */
char *keyed_cache_path(const char *subdir, const char *key);

/* CONFIG_NAME's value in the text of a kernel .config (NULL: none), its quotes removed;
 * "" when unset. The value lives until the next call. */
const char *config_value(const char *config, const char *name);

#endif
