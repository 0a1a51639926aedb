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
struct plt_file {
	const char *path;	/* the host's */
	const char *target;	/* the target's: the uprobe's file */
	const char *exe;	/* the process's file, the target's */
	const char *library;	/* the library component as shown, or NULL */
	bool dynamic;		/* ET_DYN: stap's pc=.dynamic+ */
};

static void add_plt_point(const struct probe_point *point, const struct plt_file *file,
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
	similar = similar_names_within(pattern, names, distinct, 1000);
	provider_no_match(point, similar, "function", "functions");
	free(similar);
	free(names);
}

/* The entries of `file` that fit: how many points were added. With `no_match`, none is
 * stap's error. */
static size_t file_plt(const struct probe_point *point, const struct plt_file *file,
		       const char *pattern, enum provider_kind kind, bool no_match,
		       struct derived_point ***tail)
{
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
	const char *pattern = plt->arg ? component_string(plt) : "*";
	const struct component *next = plt->next;
	enum provider_kind kind = PROVIDER_UPROBE;
	struct process_library *libs = NULL;
	size_t nlibs = 0, matched = 0;
	char exe[PATH_MAX];
	bool one;

	if (next && !next->arg && !strcmp(next->name, "return")) {
		kind = PROVIDER_URETPROBE;
		next = next->next;
	}
	if (next) {
		provider_invalid_suffix(point, next);
		return false;
	}
	if (!process_file(point, env, exe))
		return false;
	if (!library) {
		struct plt_file file = { exe, target_file_path(env, exe),
					 target_file_path(env, exe), NULL,
					 *exe && usyms_is_dynamic(exe) };

		return file_plt(point, &file, pattern, kind, true, tail) > 0;
	}
	if (!process_libraries(point, exe, library, &libs, &nlibs))
		return false;
	one = nlibs == 1 && libs[0].named;
	for (size_t i = 0; i < nlibs; i++) {
		struct plt_file file = { libs[i].path, target_file_path(env, libs[i].path),
					 target_file_path(env, exe), libs[i].shown,
					 usyms_is_dynamic(libs[i].path) };

		matched += file_plt(point, &file, pattern, kind, one, tail);
	}
	if (!matched && !one)
		provider_refuse(point, "no match");
	process_free_libraries(libs, nlibs);
	return matched > 0;
}
