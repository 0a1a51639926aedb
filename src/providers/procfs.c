// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs("PATH").read, procfs("PATH").read.maxsize(N), procfs("PATH").write, each with an
 * optional .umask(M) before .read/.write, and procfs.read/procfs.write (PATH "command"):
 * the file /proc/systemtap/MODULE/PATH (runtime/procfs.h). A read probe fills what a
 * reader of the file gets ($value = "..." or $value .= "..."); a write probe runs for each
 * write(2) with $value the bytes written. The forms and their errors are stap's.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

/* A located error at the point's first component, after "while resolving probe point".
 * `reason` (a literal without '%') is the format: diag.c counts repeats of one format as
 * similar errors, as stap does of one message; the 0 only keeps it from being the sole
 * argument. */
static bool refuse_path(const struct probe_point *point, const char *reason)
{
	struct token_desc first = { "identifier", point->components->name };

	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &first, point->components->loc, reason, 0);
	return false;
}

/* stap's rules for PATH: relative, no empty, "." or ".." component. */
static bool check_path(const struct probe_point *point, const char *path)
{
	size_t len = strlen(path);

	if (path[0] == '/')
		return refuse_path(point, "procfs path cannot start with a '/'");
	if (!len || path[len - 1] == '/')
		return refuse_path(point, "procfs path cannot end with a '/'");
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");

		if (!n)
			return refuse_path(point, "procfs path component cannot be empty");
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return refuse_path(point, "procfs path cannot be relative (and contain '.' or"
					   " '..')");
		p += n;
		if (*p)
			p++;
	}
	return true;
}

static bool is_plain(const struct component *c, const char *name)
{
	return c && !c->arg && !strcmp(c->name, name);
}

/* What follows .read: nothing, or .maxsize(N) with N > 0. */
static bool read_suffix(const struct probe_point *point, const struct component *c,
			int64_t *maxsize)
{
	*maxsize = 0;
	if (!c)
		return true;
	if (strcmp(c->name, "maxsize") || !component_number(c, maxsize) || c->next) {
		provider_invalid_suffix(point, strcmp(c->name, "maxsize") ||
					!component_number(c, maxsize) ? c : c->next);
		return false;
	}
	if (*maxsize <= 0) {
		provider_refuse(point, "maxsize must be greater than 0");
		return false;
	}
	return true;
}

static bool derive_procfs(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail);

/* procfs(...).* (or .**), its last component `star`: the .read and the .write point, as
 * stap lists them; each shows the point as written as its origin. */
static bool derive_both(const struct probe_point *point, const struct component *star,
			const struct provider_env *env, struct derived_point ***tail)
{
	static const char *const kinds[] = { "read", "write" };
	char *origin = probe_point_text(point);
	bool ok = true;

	for (size_t k = 0; ok && k < 2; k++) {
		struct probe_point copy = *point;
		struct component **to = &copy.components;
		struct derived_point **first = *tail;

		for (const struct component *c = point->components; c; c = c->next) {
			*to = xmalloc(sizeof(**to));
			**to = *c;
			if (c == star)
				(*to)->name = (char *)kinds[k];
			to = &(*to)->next;
		}
		ok = derive_procfs(&copy, env, tail);
		if (ok && *first) {
			free((*first)->origin);
			(*first)->origin = xstrdup(origin);
		}
		while (copy.components) {
			struct component *next = copy.components->next;

			free(copy.components);
			copy.components = next;
		}
	}
	free(origin);
	return ok;
}

static bool derive_procfs(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	static const char *const all[] = { "read", "umask", "write", NULL };
	static const char *const read_write[] = { "read", "write", NULL };
	const struct component *first = point->components, *c = first->next;
	const char *path = first->arg ? component_string(first) : "command";
	struct derived_point *d;
	int64_t umask = 0, maxsize = 0;
	bool has_umask = false;

	(void)env;
	if (!path) {
		provider_mismatch(point, first, NULL);
		return false;
	}
	if (first->arg && !check_path(point, path))
		return false;
	if (!c) {
		provider_truncated(point, first, "read umask(number) write");
		return false;
	}
	if (!strcmp(c->name, "umask") && component_number(c, &umask)) {
		has_umask = true;
		if (!c->next) {
			provider_truncated(point, c, "read write");
			return false;
		}
		c = c->next;
	}
	if ((is_plain(c, "*") || is_plain(c, "**")) && !c->next)
		return derive_both(point, c, env, tail);
	if (!is_plain(c, "read") && !is_plain(c, "write")) {
		provider_mismatch(point, c, has_umask ? read_write : all);
		return false;
	}
	if (is_plain(c, "write") && c->next) {
		provider_invalid_suffix(point, c->next);
		return false;
	}
	if (is_plain(c, "read") && !read_suffix(point, c->next, &maxsize))
		return false;
	d = derived_point_new(is_plain(c, "read") ? PROVIDER_PROCFS_READ : PROVIDER_PROCFS_WRITE,
			      point);
	d->symbol = xstrdup(path);
	d->umask = umask;
	d->has_umask = has_umask;
	d->maxsize = maxsize;
	add_derived_point(tail, d);
	return true;
}

static bool is_procfs(const struct derived_point *d)
{
	return d->kind == PROVIDER_PROCFS_READ || d->kind == PROVIDER_PROCFS_WRITE;
}

/* Whether `dir` is a directory of `path` ("a" of "a/b"). */
static bool is_parent(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	return !strncmp(dir, path, n) && path[n] == '/';
}

/* At most one read probe a procfs path, and no path both a file and another's directory. */
static bool procfs_check_paths(const struct program *program)
{
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next) {
			if (!is_procfs(d))
				continue;
			for (const struct derived_probe *q = program->probes; q; q = q->next)
				for (const struct derived_point *e = q->points; e; e = e->next) {
					if (e == d || !is_procfs(e))
						continue;
					if (is_parent(d->symbol, e->symbol)) {
						diag_error("semantic error", "procfs path \"%s\" is"
							   " both a file and the directory of"
							   " \"%s\"\n", d->symbol, e->symbol);
						return false;
					}
					/* Once, at the second read point of a path. */
					if (d->kind == PROVIDER_PROCFS_READ &&
					    e->kind == PROVIDER_PROCFS_READ && !strcmp(d->symbol, e->symbol) &&
					    (q->index > p->index || (q == p && e > d))) {
						diag_error("semantic error", "only one read procfs probe"
							   " can exist for procfs path \"%s\"\n",
							   d->symbol);
						return false;
					}
				}
		}
	return true;
}

/* ---- Pass 3: runtime/procfs.h's tables ---- */

#define MAXSTRINGLEN_TEXT "MAXSTRINGLEN"

struct procfs_entry {
	const struct derived_point *d;
	int pp, probe;
};

struct procfs_state {
	struct procfs_entry *entries;
	int nentries;
	struct strbuf probes, files, dirs;
	int nfiles, ndirs;
};

static void procfs_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			 const struct derived_point *d, int pp)
{
	struct procfs_state *s = state;

	(void)ctx;
	s->entries = xrealloc(s->entries, (size_t)(s->nentries + 1) * sizeof(*s->entries));
	s->entries[s->nentries++] = (struct procfs_entry){ d, pp, p->index };
}

/* The file's mode: a read probe's r--r--r-- and a write probe's -w--w--w- (the first
 * one's), each less its umask, or r-------- and -w------- without one. */
static unsigned file_mode(const struct procfs_entry *read, const struct procfs_entry *write)
{
	unsigned mode = 0;

	if (read)
		mode |= read->d->has_umask ? 0444 & ~(unsigned)read->d->umask : 0400;
	if (write)
		mode |= write->d->has_umask ? 0222 & ~(unsigned)write->d->umask : 0200;
	return mode;
}

/* Whether the entries before `i` have its path. */
static bool seen_path(const struct procfs_state *s, int i)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(s->entries[j].d->symbol, s->entries[i].d->symbol))
			return true;
	return false;
}

/* The directories of `path` not yet in s->dirs, parents first. */
static void add_dirs(struct emit_ctx *ctx, struct procfs_state *s, const char *path)
{
	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		char *dir = xstrndup(path, (size_t)(slash - path));
		char *literal = ctx->c_string(dir);
		char *line = xasprintf("\t%s,\n", literal);

		if (!s->dirs.buf || !strstr(s->dirs.buf, line)) {
			sb_add(&s->dirs, line);
			s->ndirs++;
		}
		free(line);
		free(literal);
		free(dir);
	}
}

/* One file: its read probe, then its write probes, in tap_procfs_probes[]. */
static void add_file(struct emit_ctx *ctx, struct procfs_state *s, int i, int *nprobes)
{
	const char *path = s->entries[i].d->symbol;
	const struct procfs_entry *read = NULL, *write = NULL;
	int first = *nprobes, nwrites = 0;
	char *literal = ctx->c_string(path);

	for (int j = i; j < s->nentries; j++) {
		const struct procfs_entry *e = &s->entries[j];

		if (strcmp(e->d->symbol, path) || e->d->kind != PROVIDER_PROCFS_READ)
			continue;
		read = e;
		sb_addf(&s->probes, "\t{ .pp = &tap_pp_%d, .body = probe_%d },\n", e->pp, e->probe);
		(*nprobes)++;
	}
	for (int j = i; j < s->nentries; j++) {
		const struct procfs_entry *e = &s->entries[j];

		if (strcmp(e->d->symbol, path) || e->d->kind != PROVIDER_PROCFS_WRITE)
			continue;
		if (!write)
			write = e;
		sb_addf(&s->probes, "\t{ .pp = &tap_pp_%d, .body = probe_%d },\n", e->pp, e->probe);
		(*nprobes)++;
		nwrites++;
	}
	sb_addf(&s->files, "\t{ .path = %s, .mode = 0%o, .bufsize = ", literal,
		file_mode(read, write));
	if (read && read->d->maxsize)
		sb_addf(&s->files, "%lld", (long long)read->d->maxsize);
	else
		sb_add(&s->files, MAXSTRINGLEN_TEXT);
	if (read)
		sb_addf(&s->files, ", .read = &tap_procfs_probes[%d]", first);
	if (nwrites)
		sb_addf(&s->files, ", .writes = &tap_procfs_probes[%d], .nwrites = %d",
			first + (read ? 1 : 0), nwrites);
	sb_add(&s->files, " },\n");
	s->nfiles++;
	add_dirs(ctx, s, path);
	free(literal);
}

static void procfs_module_end(struct emit_ctx *ctx, void *state)
{
	struct procfs_state *s = state;
	int nprobes = 0;

	for (int i = 0; i < s->nentries; i++)
		if (!seen_path(s, i))
			add_file(ctx, s, i, &nprobes);
}

static void procfs_write_counts(const void *state, FILE *out)
{
	const struct procfs_state *s = state;

	fprintf(out, "#define TAP_NUM_PROCFS_FILES %d\n#define TAP_NUM_PROCFS_DIRS %d\n",
		s->nfiles, s->ndirs);
}

static void procfs_write_tables(const void *state, FILE *out)
{
	const struct procfs_state *s = state;

	emit_table(out, "static const struct tap_been_probe tap_procfs_probes", s->nentries,
		   &s->probes);
	emit_table(out, "static struct tap_procfs_file tap_procfs_files", s->nfiles, &s->files);
	emit_table(out, "static const char *const tap_procfs_dirs", s->ndirs, &s->dirs);
}

static void procfs_release(void *state)
{
	struct procfs_state *s = state;

	free(s->entries);
	free(s->probes.buf);
	free(s->files.buf);
	free(s->dirs.buf);
}

static const char *procfs_type_name(const struct derived_point *d)
{
	(void)d;
	return "procfs";
}

const struct point_emitter emitter_procfs = {
	.kinds = 1u << PROVIDER_PROCFS_READ | 1u << PROVIDER_PROCFS_WRITE,
	.type_name = procfs_type_name,
	.state_size = sizeof(struct procfs_state),
	.runtime_header = "procfs.h",
	.point = procfs_point,
	.module_end = procfs_module_end,
	.write_counts = procfs_write_counts,
	.write_tables = procfs_write_tables,
	.release = procfs_release,
};

static const struct probe_type procfs_types[] = {
	{ "procfs.read", false },
	{ "procfs.read.maxsize(number)", false },
	{ "procfs.umask(number).read", false },
	{ "procfs.umask(number).read.maxsize(number)", false },
	{ "procfs.umask(number).write", false },
	{ "procfs.write", false },
	{ "procfs(string).read", false },
	{ "procfs(string).read.maxsize(number)", false },
	{ "procfs(string).umask(number).read", false },
	{ "procfs(string).umask(number).read.maxsize(number)", false },
	{ "procfs(string).umask(number).write", false },
	{ "procfs(string).write", false },
	{ NULL, false },
};

const struct provider provider_procfs = {
	.name = "procfs", .derive = derive_procfs, .types = procfs_types,
	.check = procfs_check_paths,
};
