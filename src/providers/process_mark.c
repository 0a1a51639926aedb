// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process(...)[.library("LIB")][.provider("P")].mark("NAME"): a uprobe at each SDT marker
 * (<sys/sdt.h>, target/usyms.h's usyms_marks()) that fits, of the process's file or of the
 * libraries LIB names; the marker's semaphore is the uprobe's reference counter
 * (runtime/uprobes.h). As stap, pp() and -p2 name the marker's place,
 * process("FILE").statement(0xADDR), and -l/-L the marker.
 */
#include "providers/process.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/usyms.h"
#include "util.h"

/* stap's "no match" of a marker, with the nearest five of the markers of the providers that
 * fit (stap's, at any distance): "similar marks"; plain without such a provider. */
static void mark_no_match(const struct probe_point *point, const char *provider_pattern,
			  const char *pattern, const struct umark *marks, size_t count)
{
	const char **names = xcalloc(count + 1, sizeof(*names));
	size_t distinct = 0;
	char *similar;

	for (size_t i = 0; i < count; i++) {
		size_t j = 0;

		if (fnmatch(provider_pattern, marks[i].provider, 0))
			continue;
		while (j < distinct && strcmp(names[j], marks[i].name))
			j++;
		if (j == distinct)
			names[distinct++] = marks[i].name;
	}
	similar = similar_names(pattern, names, distinct);
	provider_no_match(point, similar, "mark", "marks");
	free(similar);
	free(names);
}

/* Where the markers of one file are found, and how the points show them. */
static void add_mark_point(const struct probe_point *point, const struct process_target_file *file,
			   const struct umark *m, bool with_provider, struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(PROVIDER_UMARK, point);
	struct strbuf sb = { 0 };

	/* As stap: pp() the marker's place in its file; -p2 that point from the process's
	 * (with its library); -l the marker. */
	sb_addf(&sb, "process(\"%s\").statement(0x%llx)", file->target, m->vaddr);
	add_marks(&sb, point);
	free(d->pp);
	d->pp = sb_steal(&sb);
	sb_addf(&sb, "process(\"%s\")", file->exe);
	if (file->library)
		sb_addf(&sb, ".library(\"%s\")", file->library);
	free(d->origin);
	d->origin = xasprintf("%s.statement(0x%llx)", sb.buf, m->vaddr);
	if (with_provider)
		sb_addf(&sb, ".provider(\"%s\")", m->provider);
	sb_addf(&sb, ".mark(\"%s\")", m->name);
	d->listed = sb_steal(&sb);
	sb_add(&sb, d->origin);
	add_marks(&sb, point);
	free(d->origin);
	d->origin = sb_steal(&sb);
	d->pc = m->vaddr;
	free(d->function);
	d->function = xstrdup(m->name);
	free(d->module);
	d->module = xstrdup(m->provider);
	d->symbol = xstrdup(file->target);
	d->offset = m->offset;
	d->semaphore = m->semaphore;
	d->mark_args = xstrdup(m->args);
	free(d->comment);
	d->comment = file->dynamic ? xasprintf(" /* pc=.dynamic+0x%llx */", m->vaddr) :
				     xasprintf(" /* pc=.absolute+0x%llx */", m->offset);
	add_derived_point(tail, d);
}

struct mark_query {
	const struct component *provider;	/* or NULL */
	const char *pattern;
};

/* The markers of `file` that fit: how many points were added. With `no_match`, none is
 * stap's error with the similar marks (a file without markers: plain "no match"). */
static size_t file_marks(const struct probe_point *point, const struct process_target_file *file,
			 bool no_match, void *ctx, struct derived_point ***tail)
{
	const struct mark_query *q = ctx;
	const struct component *provider = q->provider;
	const char *pattern = q->pattern;
	const char *provider_pattern = provider ? component_string(provider) : "*";
	size_t count = 0, matched = 0;
	struct umark *marks = *file->path ? usyms_marks(file->path, &count) : NULL;

	for (size_t i = 0; i < count; i++) {
		if (fnmatch(provider_pattern, marks[i].provider, 0) ||
		    fnmatch(pattern, marks[i].name, 0))
			continue;
		add_mark_point(point, file, &marks[i], provider != NULL, tail);
		matched++;
	}
	if (!matched && no_match && count)
		mark_no_match(point, provider_pattern, pattern, marks, count);
	else if (!matched && no_match)
		provider_refuse(point, "no match");
	usyms_free_marks(marks, count);
	return matched;
}

bool derive_process_marks(const struct probe_point *point, const struct provider_env *env,
			  const struct component *library, const struct component *provider,
			  const struct component *mark, struct derived_point ***tail)
{
	struct mark_query q = { provider, component_string(mark) };

	if (mark->next) {
		provider_invalid_suffix(point, mark->next);
		return false;
	}
	return process_each_file(point, env, library, file_marks, &q, tail);
}
