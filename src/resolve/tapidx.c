// SPDX-License-Identifier: GPL-2.0-or-later
#include "resolve/tapidx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* A file's flags. ALWAYS: parsed whatever the script (%( conditions, its own @define
 * macros, a wildcard alias name). UNSURE: when it is needed, the index can't tell what
 * else is (a wildcard in the first component of a probe point, a call to a name nothing
 * defines): every file is parsed. */
enum { FILE_ALWAYS = 1, FILE_UNSURE = 2 };

struct def {
	char *name;
	char kind;		/* 'f' function, 'g' global, 'a' the first component of an alias */
	int file;
};

struct idx_file {
	unsigned flags;
	int *deps;		/* the files defining one of its words */
	int ndeps;
};

struct tapidx {
	bool clean;
	int nfiles;
	struct idx_file *files;
	struct def *defs;	/* sorted by name, then file */
	int ndefs;
};

/* ---- Words of a text ---- */

enum tok_kind { TOK_WORD, TOK_MARKED, TOK_STRING, TOK_NUMBER, TOK_PUNCT, TOK_COND };

struct tok {
	const char *s;
	int len;
	enum tok_kind kind;
	bool glued;		/* no space before it */
};

struct toks {
	struct tok *items;
	int len, cap;
};

static void tok_push(struct toks *t, const char *s, int len, enum tok_kind kind, bool glued)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->items = xrealloc(t->items, sizeof(*t->items) * (size_t)t->cap);
	}
	t->items[t->len++] = (struct tok){ s, len, kind, glued };
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Past a comment, string or embedded-C block starting at p, or p when there is none. */
static const char *skip_ignored(const char *p)
{
	if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
		while (*p && *p != '\n')
			p++;
	} else if (p[0] == '/' && p[1] == '*') {
		const char *end = strstr(p + 2, "*/");

		p = end ? end + 2 : p + strlen(p);
	} else if (p[0] == '%' && p[1] == '{') {
		const char *end = strstr(p + 2, "%}");

		p = end ? end + 2 : p + strlen(p);
	}
	return p;
}

static const char *skip_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

static struct toks tokenize(const char *text)
{
	struct toks t = { 0 };
	const char *p = text;
	bool glued = false;

	while (*p) {
		const char *after = skip_ignored(p);
		const char *start = p;

		if (after != p || isspace((unsigned char)*p)) {
			p = after != p ? after : p + 1;
			glued = false;
			continue;
		}
		if (*p == '"') {
			p = skip_string(p);
			tok_push(&t, start, (int)(p - start), TOK_STRING, glued);
		} else if ((*p == '$' || *p == '@') && is_word_char(p[1])) {
			for (p++; is_word_char(*p); p++)
				;
			tok_push(&t, start, (int)(p - start), TOK_MARKED, glued);
		} else if (is_word_char(*p)) {
			bool number = isdigit((unsigned char)*p);

			while (is_word_char(*p))
				p++;
			tok_push(&t, start, (int)(p - start), number ? TOK_NUMBER : TOK_WORD, glued);
		} else if (p[0] == '%' && p[1] == '(') {
			p += 2;
			tok_push(&t, start, 2, TOK_COND, glued);
		} else {
			p++;
			tok_push(&t, start, 1, TOK_PUNCT, glued);
		}
		glued = true;
	}
	return t;
}

static bool tok_is(const struct toks *t, int i, const char *s)
{
	return i >= 0 && i < t->len && t->items[i].len == (int)strlen(s) &&
	       !strncmp(t->items[i].s, s, (size_t)t->items[i].len);
}

static char *tok_text(const struct tok *tok)
{
	return xstrndup(tok->s, (size_t)tok->len);
}

/* ---- What a text defines and names ---- */

struct scan {
	struct def *defs;
	int ndefs;
	unsigned flags;
	char **calls;		/* words called as functions */
	int ncalls;
};

static void scan_add_def(struct scan *sc, const struct tok *tok, char kind)
{
	sc->defs = xrealloc(sc->defs, sizeof(*sc->defs) * (size_t)(sc->ndefs + 1));
	sc->defs[sc->ndefs++] = (struct def){ tok_text(tok), kind, -1 };
}

/* global a, b[10], c = -1, d = "x", e%: past the declaration. */
static int scan_global(struct scan *sc, const struct toks *t, int i)
{
	while (i < t->len && t->items[i].kind == TOK_WORD) {
		scan_add_def(sc, &t->items[i++], 'g');
		if (tok_is(t, i, "%"))
			i++;
		if (tok_is(t, i, "[")) {
			while (i < t->len && !tok_is(t, i, "]"))
				i++;
			i++;
		}
		if (tok_is(t, i, "=")) {
			i++;
			if (tok_is(t, i, "-") || tok_is(t, i, "+"))
				i++;
			i++;
		}
		if (!tok_is(t, i, ","))
			break;
		i++;
	}
	return i;
}

/* The first component of the probe point at i: its words and '*' written together. Sets
 * *wild when it has a wildcard; returns the index past it. */
static int first_component(const struct toks *t, int i, bool *wild)
{
	*wild = false;
	for (int j = i; j < t->len; j++) {
		bool star = tok_is(t, j, "*");

		if (j > i && !t->items[j].glued)
			return j;
		if (star)
			*wild = true;
		else if (t->items[j].kind != TOK_WORD)
			return j;
	}
	return t->len;
}

/*
 * probe A.b, C = D.e, F { }: the first components of the names before '=' (or += -=) are
 * aliases the file defines; a wildcard in one makes the file ALWAYS, one in a probed point
 * makes it UNSURE. Returns the index of the body's '{'.
 */
static int scan_probe(struct scan *sc, const struct toks *t, int i)
{
	int start = i, depth = 0;
	bool at_point = true, wild_name = false, wild_target = false;

	for (; i < t->len; i++) {
		if (at_point) {
			bool wild;
			int end = first_component(t, i, &wild);

			if (end == i)
				return i;
			wild_target |= wild;
			at_point = false;
			i = end - 1;
			continue;
		}
		if (tok_is(t, i, "(")) {
			depth++;
		} else if (tok_is(t, i, ")")) {
			depth--;
		} else if (depth == 0 && tok_is(t, i, ",")) {
			at_point = true;
		} else if (depth == 0 && tok_is(t, i, "=") && !tok_is(t, i + 1, "=")) {
			/* The points so far were names: define their first components. */
			for (int j = start; j < i; j++) {
				bool wild;
				int end = first_component(t, j, &wild);

				if (end == j)
					continue;
				if (j == start || tok_is(t, j - 1, ","))
					scan_add_def(sc, &t->items[j], 'a');
				wild_name |= wild;
				j = end - 1;
			}
			wild_target = false;
			at_point = true;
		} else if (depth == 0 && tok_is(t, i, "{")) {
			break;
		}
	}
	if (wild_name)
		sc->flags |= FILE_ALWAYS;
	if (wild_target)
		sc->flags |= FILE_UNSURE;
	return i;
}

/* Words followed by '(' that are not calls of script functions. */
static bool names_no_function(const struct tok *tok)
{
	static const char *const words[] = {
		"if", "while", "for", "foreach", "return", "delete", "in", "limit", "catch",
		"string", "long", "next", "try", "else", "function", "probe", "global", "private",
		"print", "println", "printf", "printd", "printdln", "sprint", "sprintln",
		"sprintf", "sprintd", "sprintdln", "process", "module", "procfs", "begin", "end",
		"error", "kernel", "perf", "netfilter", "hwbkpt", "tracepoint", "kprobe",
		"python2", "python3", "java", "input",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tok->len == (int)strlen(words[i]) &&
		    !strncmp(tok->s, words[i], (size_t)tok->len))
			return true;
	return false;
}

static void scan_call(struct scan *sc, const struct toks *t, int i)
{
	const struct tok *w = &t->items[i];

	/* $1(...): a function named by an argument; the index can't tell which. */
	if (w->kind == TOK_MARKED && isdigit((unsigned char)w->s[1]) && tok_is(t, i + 1, "(")) {
		sc->calls = xrealloc(sc->calls, sizeof(*sc->calls) * (size_t)(sc->ncalls + 1));
		sc->calls[sc->ncalls++] = xstrdup("");
		return;
	}
	if (w->kind != TOK_WORD || !tok_is(t, i + 1, "(") || names_no_function(w))
		return;
	if (tok_is(t, i - 1, ".") || tok_is(t, i - 1, ">") || tok_is(t, i - 1, "@define") ||
	    tok_is(t, i - 1, "function"))
		return;
	sc->calls = xrealloc(sc->calls, sizeof(*sc->calls) * (size_t)(sc->ncalls + 1));
	sc->calls[sc->ncalls++] = tok_text(w);
}

static void scan_text(struct scan *sc, const struct toks *t)
{
	for (int i = 0; i < t->len; i++) {
		const struct tok *tok = &t->items[i];
		bool member = tok_is(t, i - 1, ".") || tok_is(t, i - 1, ">");

		if (tok->kind == TOK_COND || tok_is(t, i, "@define")) {
			sc->flags |= FILE_ALWAYS;
		} else if (tok_is(t, i, "private")) {
			/* What is private to a file names nothing for the others: a script
			 * word that only a private function or global defines is unresolved,
			 * and the error's "similar" names need the whole library. */
			if (tok_is(t, i + 1, "function") || tok_is(t, i + 1, "global"))
				i += 2;
		} else if (tok_is(t, i, "function") && !member &&
			   i + 1 < t->len && t->items[i + 1].kind == TOK_WORD) {
			scan_add_def(sc, &t->items[i + 1], 'f');
		} else if (tok_is(t, i, "global") && !member) {
			i = scan_global(sc, t, i + 1) - 1;
		} else if (tok_is(t, i, "probe") && !member) {
			i = scan_probe(sc, t, i + 1);
		} else {
			scan_call(sc, t, i);
		}
	}
}

static void scan_free(struct scan *sc)
{
	for (int i = 0; i < sc->ndefs; i++)
		free(sc->defs[i].name);
	for (int i = 0; i < sc->ncalls; i++)
		free(sc->calls[i]);
	free(sc->defs);
	free(sc->calls);
}

/* ---- Looking names up ---- */

static int compare_defs(const void *a, const void *b)
{
	const struct def *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->file - y->file;
}

/* The first definition named name[0..len), or -1. */
static int first_def(const struct tapidx *idx, const char *name, int len)
{
	int lo = 0, hi = idx->ndefs;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		int c = strncmp(idx->defs[mid].name, name, (size_t)len);

		if (c == 0 && idx->defs[mid].name[len])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < idx->ndefs && !strncmp(idx->defs[lo].name, name, (size_t)len) &&
	    !idx->defs[lo].name[len])
		return lo;
	return -1;
}

static bool defines_function(const struct tapidx *idx, const char *name)
{
	int d = first_def(idx, name, (int)strlen(name));

	for (; d >= 0 && d < idx->ndefs && !strcmp(idx->defs[d].name, name); d++)
		if (idx->defs[d].kind == 'f')
			return true;
	return false;
}

/* Calls `mark` on each file defining the word. */
static void each_definer(const struct tapidx *idx, const struct tok *word,
			 void (*mark)(int file, void *ctx), void *ctx)
{
	int d = first_def(idx, word->s, word->len);

	for (; d >= 0 && d < idx->ndefs && !strncmp(idx->defs[d].name, word->s,
						      (size_t)word->len) &&
	       !idx->defs[d].name[word->len]; d++)
		mark(idx->defs[d].file, ctx);
}

/* ---- Building and saving ---- */

struct dep_set {
	int self;
	bool *has;
	struct idx_file *file;
};

static void add_dep(int file, void *ctx)
{
	struct dep_set *set = ctx;

	if (file == set->self || set->has[file])
		return;
	set->has[file] = true;
	set->file->deps = xrealloc(set->file->deps, sizeof(int) * (size_t)(set->file->ndeps + 1));
	set->file->deps[set->file->ndeps++] = file;
}

static void add_file_deps(struct tapidx *idx, int f, const struct toks *t)
{
	struct dep_set set = { f, xcalloc((size_t)idx->nfiles, sizeof(bool)), &idx->files[f] };

	for (int i = 0; i < t->len; i++)
		if (t->items[i].kind == TOK_WORD)
			each_definer(idx, &t->items[i], add_dep, &set);
	free(set.has);
}

struct tapidx *tapidx_build(char *const *paths, int npaths, bool clean)
{
	struct tapidx *idx = xcalloc(1, sizeof(*idx));
	struct toks *toks = xcalloc((size_t)npaths, sizeof(*toks));
	char **texts = xcalloc((size_t)npaths, sizeof(*texts));
	struct scan *scans = xcalloc((size_t)npaths, sizeof(*scans));

	idx->clean = clean;
	idx->nfiles = npaths;
	idx->files = xcalloc((size_t)npaths, sizeof(*idx->files));
	for (int f = 0; f < npaths; f++) {
		texts[f] = read_text_file(paths[f], NULL);
		if (!texts[f]) {
			idx->clean = false;
			texts[f] = xstrdup("");
		}
		toks[f] = tokenize(texts[f]);
		scan_text(&scans[f], &toks[f]);
		idx->files[f].flags = scans[f].flags;
		for (int d = 0; d < scans[f].ndefs; d++) {
			idx->defs = xrealloc(idx->defs, sizeof(*idx->defs) * (size_t)(idx->ndefs + 1));
			idx->defs[idx->ndefs] = scans[f].defs[d];
			idx->defs[idx->ndefs++].file = f;
			scans[f].defs[d].name = NULL;
		}
	}
	if (idx->ndefs)
		qsort(idx->defs, (size_t)idx->ndefs, sizeof(*idx->defs), compare_defs);
	for (int f = 0; f < npaths; f++) {
		add_file_deps(idx, f, &toks[f]);
		for (int c = 0; c < scans[f].ncalls; c++)
			if (!defines_function(idx, scans[f].calls[c]))
				idx->files[f].flags |= FILE_UNSURE;
		scan_free(&scans[f]);
		free(toks[f].items);
		free(texts[f]);
	}
	free(scans);
	free(toks);
	free(texts);
	return idx;
}

static void write_index(FILE *out, const char *key, const struct tapidx *idx)
{
	fprintf(out, "tapster tapset index 1\n%s\n%d %d %d\n", key, idx->clean, idx->nfiles,
		idx->ndefs);
	for (int f = 0; f < idx->nfiles; f++) {
		fprintf(out, "%u %d", idx->files[f].flags, idx->files[f].ndeps);
		for (int d = 0; d < idx->files[f].ndeps; d++)
			fprintf(out, " %d", idx->files[f].deps[d]);
		fputc('\n', out);
	}
	for (int d = 0; d < idx->ndefs; d++)
		fprintf(out, "%c %d %s\n", idx->defs[d].kind, idx->defs[d].file, idx->defs[d].name);
}

void tapidx_build_and_save(const char *path, const char *key, char *const *paths, int npaths,
			   bool clean)
{
	struct tapidx *idx = tapidx_build(paths, npaths, clean);
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	FILE *out = fopen(tmp, "w");

	if (out) {
		write_index(out, key, idx);
		if (fclose(out) == 0)
			rename(tmp, path);
		unlink(tmp);
	}
	free(tmp);
	tapidx_free(idx);
}

/* ---- Loading ---- */

static bool read_files(struct tapidx *idx, char **p)
{
	for (int f = 0; f < idx->nfiles; f++) {
		struct idx_file *file = &idx->files[f];
		char *end;

		file->flags = (unsigned)strtoul(*p, &end, 10);
		file->ndeps = (int)strtol(end, &end, 10);
		if (file->ndeps < 0 || file->ndeps > idx->nfiles)
			return false;
		file->deps = xcalloc((size_t)file->ndeps + 1, sizeof(int));
		for (int d = 0; d < file->ndeps; d++) {
			file->deps[d] = (int)strtol(end, &end, 10);
			if (file->deps[d] < 0 || file->deps[d] >= idx->nfiles)
				return false;
		}
		if (*end != '\n')
			return false;
		*p = end + 1;
	}
	return true;
}

static bool read_defs(struct tapidx *idx, char **p)
{
	for (int d = 0; d < idx->ndefs; d++) {
		struct def *def = &idx->defs[d];
		char *end, *eol;

		def->kind = **p;
		def->file = (int)strtol(*p + 1, &end, 10);
		eol = strchr(end, '\n');
		if (!eol || *end != ' ' || def->file < 0 || def->file >= idx->nfiles)
			return false;
		def->name = xstrndup(end + 1, (size_t)(eol - end - 1));
		*p = eol + 1;
	}
	return true;
}

struct tapidx *tapidx_load(const char *path, const char *key)
{
	char *text = read_text_file(path, NULL);
	static const char magic[] = "tapster tapset index 1\n";
	size_t key_len = strlen(key);
	struct tapidx *idx;
	char *p, *end;
	int clean;

	if (!text || strncmp(text, magic, sizeof(magic) - 1) ||
	    strncmp(text + sizeof(magic) - 1, key, key_len) ||
	    text[sizeof(magic) - 1 + key_len] != '\n') {
		free(text);
		return NULL;
	}
	p = text + sizeof(magic) + key_len;
	idx = xcalloc(1, sizeof(*idx));
	clean = (int)strtol(p, &end, 10);
	idx->nfiles = (int)strtol(end, &end, 10);
	idx->ndefs = (int)strtol(end, &end, 10);
	idx->clean = clean == 1;
	p = end + 1;
	if (*end != '\n' || idx->nfiles < 0 || idx->ndefs < 0 || idx->nfiles > 100000 ||
	    idx->ndefs > 10000000) {
		idx->nfiles = idx->ndefs = 0;
		tapidx_free(idx);
		free(text);
		return NULL;
	}
	idx->files = xcalloc((size_t)idx->nfiles + 1, sizeof(*idx->files));
	idx->defs = xcalloc((size_t)idx->ndefs + 1, sizeof(*idx->defs));
	if (!read_files(idx, &p) || !read_defs(idx, &p) || *p) {
		tapidx_free(idx);
		idx = NULL;
	}
	free(text);
	return idx;
}

void tapidx_free(struct tapidx *idx)
{
	if (!idx)
		return;
	for (int f = 0; f < idx->nfiles; f++)
		free(idx->files[f].deps);
	for (int d = 0; d < idx->ndefs; d++)
		free(idx->defs[d].name);
	free(idx->files);
	free(idx->defs);
	free(idx);
}

/* ---- Selecting ---- */

struct selection {
	const struct tapidx *idx;
	bool *needed;
	int *queue;
	int nqueue;
};

static void need_file(int file, void *ctx)
{
	struct selection *sel = ctx;

	if (sel->needed[file])
		return;
	sel->needed[file] = true;
	sel->queue[sel->nqueue++] = file;
}

/* Whether each function the text calls is one it or the library defines. */
static bool calls_known(const struct tapidx *idx, const struct scan *sc)
{
	for (int c = 0; c < sc->ncalls; c++) {
		bool own = false;

		for (int d = 0; d < sc->ndefs && !own; d++)
			own = sc->defs[d].kind == 'f' && !strcmp(sc->defs[d].name, sc->calls[c]);
		if (!own && !defines_function(idx, sc->calls[c]))
			return false;
	}
	return true;
}

/* Needs the files defining the words of `text`; false when the index can't tell. */
static bool select_for_text(struct selection *sel, const char *text)
{
	struct toks t = tokenize(text);
	struct scan sc = { 0 };
	bool sure;

	scan_text(&sc, &t);
	sure = !(sc.flags & FILE_UNSURE) && calls_known(sel->idx, &sc);
	for (int i = 0; sure && i < t.len; i++)
		if (t.items[i].kind == TOK_WORD)
			each_definer(sel->idx, &t.items[i], need_file, sel);
	scan_free(&sc);
	free(t.items);
	return sure;
}

bool tapidx_select(const struct tapidx *idx, const char *text, const char *const *macro_texts,
		   int nmacro_texts, bool *needed, int npaths)
{
	/* Named by the translator itself: $var$ prints through the first, procfs probes' $value
	 * through the second's file (target_procfs.c), netfilter probes' variables through the
	 * third's (target_netfilter.c). */
	static const struct tok implicit[] = {
		{ "__tap_pretty_string", 19, TOK_WORD, false },
		{ "__procfs_value_get", 18, TOK_WORD, false },
		{ "__netfilter_verdict_get", 23, TOK_WORD, false },
	};
	struct selection sel = { idx, needed, xcalloc((size_t)npaths + 1, sizeof(int)), 0 };
	bool sure = idx->clean && idx->nfiles == npaths;

	for (int f = 0; f < npaths; f++)
		needed[f] = false;
	for (int f = 0; sure && f < npaths; f++)
		if (idx->files[f].flags & FILE_ALWAYS)
			need_file(f, &sel);
	for (size_t i = 0; sure && i < sizeof(implicit) / sizeof(implicit[0]); i++)
		each_definer(idx, &implicit[i], need_file, &sel);
	sure = sure && select_for_text(&sel, text);
	for (int m = 0; sure && m < nmacro_texts; m++)
		sure = select_for_text(&sel, macro_texts[m]);
	while (sure && sel.nqueue) {
		const struct idx_file *file = &idx->files[sel.queue[--sel.nqueue]];

		if (file->flags & FILE_UNSURE)
			sure = false;
		for (int d = 0; d < file->ndeps; d++)
			need_file(file->deps[d], &sel);
	}
	free(sel.queue);
	return sure;
}
