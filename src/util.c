// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void out_of_memory(void)
{
	fputs("ERROR: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb_steal(&sb);
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap * 2 : 64;

	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void sb_addn(struct strbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_add(struct strbuf *sb, const char *s)
{
	sb_addn(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_addn(sb, &c, 1);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *sb_steal(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}

char *read_text_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = { 0 };
	char buf[65536];
	size_t n;
	int err;

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_addn(&sb, buf, n);
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		free(sb.buf);
		errno = err;
		return NULL;
	}
	if (len)
		*len = sb.len;
	return sb_steal(&sb);
}

/* stap's distance between two names: an edit distance where a kept character costs 0, a
 * character replaced by the same letter in the other case 1, and any other replacement,
 * insertion or deletion 2; but characters inserted or deleted at the start of either
 * name, before any other edit, cost 1 (stap's table starts from the plain distance). */
static size_t name_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xmalloc((lb + 1) * sizeof(*row));
	size_t result;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diagonal = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t above = row[j], best;
			unsigned char ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];

			if (ca == cb)
				best = diagonal;
			else
				best = diagonal + (tolower(ca) == tolower(cb) ? 1 : 2);
			if (above + 2 < best)
				best = above + 2;
			if (row[j - 1] + 2 < best)
				best = row[j - 1] + 2;
			row[j] = best;
			diagonal = above;
		}
	}
	result = row[lb];
	free(row);
	return result;
}

struct candidate {
	const char *name;
	size_t distance;
};

/* Nearest first; at the same distance, in byte order (stap keeps its names in a set). */
static int compare_candidates(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;

	if (a->distance != b->distance)
		return a->distance < b->distance ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* sort_nearest(), each name measured as `prefix` and the name. */
static size_t sort_nearest_as(const char *name, const char **names, size_t count,
			      const char *prefix)
{
	struct candidate *all = xcalloc(count + 1, sizeof(*all));
	size_t kept = 0;

	for (size_t i = 0; i < count; i++) {
		char *measured;

		if (!*names[i])
			continue;
		measured = xasprintf("%s%s", prefix, names[i]);
		all[kept++] = (struct candidate){ names[i], name_distance(name, measured) };
		free(measured);
	}
	qsort(all, kept, sizeof(*all), compare_candidates);
	count = 0;
	for (size_t i = 0; i < kept; i++)
		if (!count || strcmp(names[count - 1], all[i].name))
			names[count++] = all[i].name;
	free(all);
	return count;
}

size_t sort_nearest(const char *name, const char **names, size_t count)
{
	return sort_nearest_as(name, names, count, "");
}

enum { SIMILAR_MAX = 5 };

char *similar_names_as(const char *name, const char *const *names, size_t count,
		       const char *prefix)
{
	const char **sorted = xcalloc(count + 1, sizeof(*sorted));
	struct strbuf sb = { 0 };
	size_t nbest;

	if (count)
		memcpy(sorted, names, count * sizeof(*sorted));
	nbest = sort_nearest_as(name, sorted, count, prefix);
	if (nbest > SIMILAR_MAX)
		nbest = SIMILAR_MAX;
	if (nbest == 0) {
		free(sorted);
		return xstrdup("");
	}
	sb_add(&sb, " (similar: ");
	for (size_t i = 0; i < nbest; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", sorted[i]);
	sb_addc(&sb, ')');
	free(sorted);
	return sb_steal(&sb);
}

char *similar_names(const char *name, const char *const *names, size_t count)
{
	return similar_names_as(name, names, count, "");
}

int make_dirs(const char *dir)
{
	char *path = xstrdup(dir);
	int ret = 0;

	for (char *p = path + 1; ret == 0; p++) {
		bool end = !*p;

		if (*p != '/' && !end)
			continue;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			ret = -1;
		if (end)
			break;
		*p = '/';
	}
	free(path);
	return ret;
}

char *tapster_dir(void)
{
	const char *dir = getenv("TAPSTER_DIR");

	if (dir && *dir)
		return xstrdup(dir);
	return tapster_cache_root();
}

char *tapster_cache_root(void)
{
	const char *cache = getenv("TAPSTER_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (cache && *cache)
		return xstrdup(cache);
	if (xdg && *xdg)
		return xasprintf("%s/tapster", xdg);
	return xasprintf("%s/.cache/tapster", home ? home : "");
}

const char *config_value(const char *config, const char *name)
{
	static char value[256];
	size_t len = strlen(name);

	for (const char *line = config ? config : ""; *line;) {
		const char *end = strchrnul(line, '\n');

		if (!strncmp(line, name, len) && line[len] == '=') {
			const char *v = line + len + 1;
			size_t n = (size_t)(end - v);

			if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			snprintf(value, sizeof(value), "%.*s", (int)n, v);
			return value;
		}
		line = *end ? end + 1 : end;
	}
	return "";
}

char *keyed_cache_path(const char *subdir, const char *key)
{
	uint64_t hash = 14695981039346656037ull;
	char *root = tapster_dir(), *dir = xasprintf("%s/%s", root, subdir), *path;

	for (const char *c = key; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
	path = make_dirs(dir) == 0 ? xasprintf("%s/%016llx", dir, (unsigned long long)hash) : NULL;
	free(root);
	free(dir);
	return path;
}

bool write_text_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;

	if (f && fclose(f) != 0)
		ok = false;
	return ok;
}

int run_logged(const char *dir, char *const argv[], const char *command, const char *log,
	       bool append)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (dir && chdir(dir) != 0)
			_exit(127);
		if (argv)
			execvp(argv[0], argv);
		else
			execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}

void copy_file_to(const char *path, FILE *to)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	while (f && fgets(line, sizeof(line), f))
		fputs(line, to);
	if (f)
		fclose(f);
}
