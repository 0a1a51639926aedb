// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process(...)[.library("LIB")].plt("NAME") [.return], and .plt for .plt("*"): a uprobe
 * (a uretprobe) at each entry of the program linkage table (target/usyms.h's usyms_plt())
 * whose symbol fits, of the process's file or of the libraries LIB names. As stap, pp() and
 * -p2 name the entry's place, process("FILE").statement(0xADDR), -l the entry,
 * process("PATH").plt("NAME"); $$name is the entry's symbol.
 */
#include "providers/process.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "target/usyms.h"
#include "util.h"

/* Where the entries of one file are found, and how the points show them. */
static void add_plt_point(const struct probe_point *point, const struct process_target_file *file,
			  const struct uplt *e, enum provider_kind kind,
			  struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(kind, point);
	const char *suffix = kind == PROVIDER_URETPROBE ? ".return" : "";
	struct strbuf sb = { 0 };

	sb_addf(&sb, "process(\"%s\").statement(0x%llx)%s", file->target, e->vaddr, suffix);
	add_marks(&sb, point);
	free(d->pp);
	d->pp = sb_steal(&sb);
	sb_addf(&sb, "process(\"%s\")", file->exe);
	if (file->library)
		sb_addf(&sb, ".library(\"%s\")", file->library);
	free(d->origin);
	d->origin = xasprintf("%s.statement(0x%llx)%s", sb.buf, e->vaddr, suffix);
	sb_addf(&sb, ".plt(\"%s\")%s", e->name, suffix);
	d->listed = sb_steal(&sb);
	sb_add(&sb, d->origin);
	add_marks(&sb, point);
	free(d->origin);
	d->origin = sb_steal(&sb);
	d->pc = e->vaddr;
	free(d->function);
	d->function = xstrdup(e->name);
	d->symbol = xstrdup(file->target);
	d->offset = e->offset;
	d->plt = true;
	free(d->comment);
	d->comment = file->dynamic ? xasprintf(" /* pc=.dynamic+0x%llx */", e->vaddr) :
				     xasprintf(" /* pc=.absolute+0x%llx */", e->offset);
	add_derived_point(tail, d);
}

/* stap's "no match" of a PLT name: the nearest five of the file's (at any distance). */
static void plt_no_match(const struct probe_point *point, const char *pattern,
			 const struct uplt *entries, size_t count)
{
	const char **names = xcalloc(count + 1, sizeof(*names));
	size_t distinct = 0;
	char *similar;

	for (size_t i = 0; i < count; i++) {
		size_t j = 0;

		while (j < distinct && strcmp(names[j], entries[i].name))
			j++;
		if (j == distinct && *entries[i].name)
			names[distinct++] = entries[i].name;
	}
	similar = similar_names(pattern, names, distinct);
	provider_no_match(point, similar, "function", "functions");
	free(similar);
	free(names);
}

struct plt_query {
	const char *pattern;
	enum provider_kind kind;	/* a uprobe, or a uretprobe (.return) */
};

/* The entries of `file` that fit: how many points were added. With `no_match`, none is
 * stap's error. */
static size_t file_plt(const struct probe_point *point, const struct process_target_file *file,
		       bool no_match, void *ctx, struct derived_point ***tail)
{
	const struct plt_query *q = ctx;
	const char *pattern = q->pattern;
	enum provider_kind kind = q->kind;
	size_t count = 0, matched = 0;
	struct uplt *entries = *file->path ? usyms_plt(file->path, &count) : NULL;

	for (size_t i = 0; i < count; i++) {
		if (fnmatch(pattern, entries[i].name, 0))
			continue;
		add_plt_point(point, file, &entries[i], kind, tail);
		matched++;
	}
	if (!matched && no_match && count)
		plt_no_match(point, pattern, entries, count);
	else if (!matched && no_match)
		provider_refuse(point, "no match");
	usyms_free_plt(entries, count);
	return matched;
}

bool derive_process_plt(const struct probe_point *point, const struct provider_env *env,
			const struct component *library, const struct component *plt,
			struct derived_point ***tail)
{
	struct plt_query q = { plt->arg ? component_string(plt) : "*", PROVIDER_UPROBE };
	const struct component *next = plt->next;

	if (next && !next->arg && !strcmp(next->name, "return")) {
		q.kind = PROVIDER_URETPROBE;
		next = next->next;
	}
	if (next) {
		provider_invalid_suffix(point, next);
		return false;
	}
	return process_each_file(point, env, library, file_plt, &q, tail);
}
