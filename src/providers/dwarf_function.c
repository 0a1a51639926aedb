// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel.function and kernel.statement points that come from the kernel's DWARF
 * (dwpoints.h), as stap derives them:
 *     kernel.function("f[@file[:N|:N-M|:*|+N]]")[.call|.inline|.exported|.return]
 *     kernel.statement("f[@file[:N|:N-M|:*|+N]]")
 * f and file are globs; file matches the function's declaration file or its end after a
 * '/'. A function point is each out-of-line copy of f (.call: only those, .return: a
 * return probe on them), or each instance inlined elsewhere (.inline); a plain point takes
 * both, as stap does (an instance's variables come from their DWARF locations there). Its
 * line part is ignored, as stap 4.8 does (with its warning unless it names f's
 * declaration line).
 * A statement point is a line of an out-of-line copy of f at the lowest address that has
 * it (outside what f inlined). pp() shows the function's declaration:
 * kernel.function("vfs_read@fs/read_write.c:450").
 */
#include "providers/dwarf_points.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/dwpoints.h"
#include "target/ksyms.h"
#include "util.h"

/* "f@file:N-M" taken apart. */
struct dw_spec {
	char *function;
	bool literal;		/* function has no wildcard: strcmp, much cheaper than fnmatch */
	char *file;		/* NULL: any */
	enum { LINES_NONE, LINES_ONE, LINES_RANGE, LINES_ALL, LINES_RELATIVE } lines;
	int first, last;
};

static bool parse_number(const char *s, const char **end, int *value)
{
	char *e;
	long n = strtol(s, &e, 10);

	if (e == s || n < 0 || n > INT_MAX)
		return false;
	*value = (int)n;
	*end = e;
	return true;
}

/* The line part after the file: ":N", ":N-M", ":*", "+N"; false when it is none. */
static bool parse_lines(const char *s, struct dw_spec *spec)
{
	const char *end;

	if (!strcmp(s, ":*")) {
		spec->lines = LINES_ALL;
		return true;
	}
	if ((*s != ':' && *s != '+') || !parse_number(s + 1, &end, &spec->first))
		return false;
	spec->last = spec->first;
	spec->lines = *s == '+' ? LINES_RELATIVE : LINES_ONE;
	if (*s == ':' && *end == '-') {
		if (!parse_number(end + 1, &end, &spec->last) || spec->last < spec->first)
			return false;
		spec->lines = LINES_RANGE;
	}
	return !*end;
}

static bool parse_spec(const char *text, struct dw_spec *spec)
{
	const char *at = strchr(text, '@');
	const char *lines;

	memset(spec, 0, sizeof(*spec));
	spec->function = at ? xstrndup(text, at - text) : xstrdup(text);
	spec->literal = !strpbrk(spec->function, "*?[\\");
	if (!at)
		return true;
	lines = at + 1 + strcspn(at + 1, ":+");
	spec->file = xstrndup(at + 1, lines - at - 1);
	return !*lines || parse_lines(lines, spec);
}

static void free_spec(struct dw_spec *spec)
{
	free(spec->function);
	free(spec->file);
}

/* Whether `file` is what the pattern names: the whole path, or its end after a '/'. */
static bool file_matches(const char *pattern, const char *file)
{
	char *tail;
	bool match;

	if (!fnmatch(pattern, file, 0))
		return true;
	tail = xasprintf("*/%s", pattern);
	match = !fnmatch(tail, file, 0);
	free(tail);
	return match;
}

static bool site_matches(const struct dw_site *site, const struct dw_spec *spec)
{
	return (spec->literal ? !strcmp(spec->function, site->name) :
				!fnmatch(spec->function, site->name, 0)) &&
	       (!spec->file || file_matches(spec->file, site->file));
}

/* Where a kprobe can go for `pc`: the function symbol that holds it, if kprobes take that
 * function; at the nearest unique symbol below when others share its name (kprobes find
 * the first of a name). The symbol must exist in the target. */
static bool placement(const struct dwpoints *dp, const struct ksyms *ks, uint64_t pc,
		      const char **symbol, uint64_t *offset)
{
	uint64_t start;
	bool unique;

	if (!ks || !dwpoints_symbol(dp, pc, symbol, &start, &unique) ||
	    ksyms_blacklisted(ks, *symbol))
		return false;
	if (!unique && !dwpoints_unique_symbol_below(dp, start, symbol, &start))
		return false;
	*offset = pc - start;
	return ksyms_exists(ks, *symbol);
}

/* stap's warning for an out-of-line function that kprobes refuse (once per point). */
static void warn_blacklisted(const struct dwpoints *dp, const struct ksyms *ks,
			     const struct dw_site *site, const struct provider_env *env)
{
	struct token_desc probe_keyword = { "keyword", NULL };
	const char *symbol;
	uint64_t start;
	bool unique;

	if (site->is_inline || !dwpoints_symbol(dp, site->pc, &symbol, &start, &unique) ||
	    !ksyms_blacklisted(ks, symbol))
		return;
	diag_warning_at(&probe_keyword, env->probe_loc, "function %s is blocklisted", site->name);
}

/* Names `d` as its point's text `head` (`kernel.function("...")`) with the point's suffixes
 * from `first_suffix` on and its marks; its function is `function`, its comment the pc. */
static void name_point(struct derived_point *d, const struct probe_point *point,
		       const struct component *first_suffix, struct strbuf *head,
		       const char *function, const struct dwpoints *dp, uint64_t pc)
{
	for (const struct component *c = first_suffix; c; c = c->next) {
		int64_t n;

		sb_addf(head, ".%s", c->name);
		if (component_number(c, &n))
			sb_addf(head, "(%" PRId64 ")", n);
	}
	add_marks(head, point);
	free(d->pp);
	d->pp = sb_steal(head);
	free(d->origin);
	d->origin = xstrdup(d->pp);
	free(d->function);
	d->function = xstrdup(function);
	free(d->comment);
	d->comment = xasprintf(" /* pc=_stext+0x%" PRIx64 " */",
			       pc - dwpoints_symbol_address(dp, "_stext"));
}

/* The derived point at `pc` of `site`: pp is FAMILY("name@file:LINE") and the suffixes. */
static struct derived_point *site_point(const struct probe_point *point,
					const struct component *first_suffix,
					const struct dwpoints *dp, const struct dw_site *site,
					int line, uint64_t pc, const char *symbol, uint64_t offset,
					enum provider_kind kind)
{
	struct derived_point *d = derived_point_new(kind, point);
	struct strbuf sb = { 0 };
	bool is_statement = !strcmp(point->components->next->name, "statement");

	sb_addf(&sb, "kernel.%s(\"%s@%s:%d\")", is_statement ? "statement" : "function",
		site->name, site->file, line);
	name_point(d, point, first_suffix, &sb, site->name, dp, pc);
	d->symbol = xstrdup(symbol);
	d->offset = offset;
	d->scope_die = site->die;
	d->pc = pc;
	d->mid_function = site->is_inline || pc != site->pc;
	return d;
}

/* Whether the kernel's symbols and DWARF index are there; if not, the point's error. */
static bool dwarf_at_hand(const struct probe_point *point, const struct ksyms *ks,
			  const struct dwpoints *dp)
{
	if (ks && dp)
		return true;
	if (ks)
		provider_refuse(point, "the kernel's debuginfo can't be read");
	else
		provider_resolving(point);
	return false;
}

/* Which sites a function point takes, by its suffix. */
static bool wanted(const struct dw_site *site, const struct dw_function_query *q,
		   const struct ksyms *ks)
{
	switch (q->which) {
	case DW_CALL:
	case DW_RETURN:
	case DW_CALLEES:
		return !site->is_inline;
	case DW_INLINE:
		return site->is_inline;
	case DW_EXPORTED:
		return !site->is_inline && ks && ksyms_exported(ks, site->name);
	default:
		return true;
	}
}

void dwarf_missing(const struct probe_point *point, const struct provider_env *env)
{
	char *reason = xasprintf("missing x86_64 kernel/module debuginfo [man warning::debuginfo]"
				 " under '%s'", env && env->build_dir ? env->build_dir : "");

	provider_refuse(point, reason);
	free(reason);
}

/* stap's "no match", with the nearest function names (none for a statement). */
static void no_match(const struct probe_point *point, const struct dw_spec *spec,
		     const struct ksyms *ks)
{
	size_t count;
	const char *const *names = ks && !diag_quiet() ? ksyms_names(ks, &count) : NULL;
	char *similar = names && spec ? similar_names(spec->function, names, count) : xstrdup("");

	/* stap names DWARF's suggestions "similar functions". */
	provider_no_match(point, similar, "functions", "functions");
	free(similar);
}

/* stap 4.8 ignores the line of a function point; it warns unless the point names one
 * function by its declaration line. */
static void warn_line(const struct dw_spec *spec, const struct dw_site *only, size_t count,
		      const struct provider_env *env)
{
	struct token_desc probe_keyword = { "keyword", NULL };

	if (spec->lines == LINES_NONE)
		return;
	if (spec->lines == LINES_ONE && count == 1 && only && only->line == spec->first &&
	    !strpbrk(spec->function, "*?["))
		return;
	diag_warning_at(&probe_keyword, env->probe_loc,
			"For probing a particular line, use a .statement() probe, not"
			" .function()");
}

/* The sites' indices in stap's order: compilation units last to first, each unit's sites
 * in DIE order. The array is the caller's. */
static size_t *stap_order(const struct dw_site *sites, size_t count)
{
	size_t *order = xcalloc(count + 1, sizeof(*order));
	size_t out = 0, end = count;

	while (end > 0) {
		size_t start = end;

		while (start > 0 && sites[start - 1].cu == sites[end - 1].cu)
			start--;
		for (size_t i = start; i < end; i++)
			order[out++] = i;
		end = start;
	}
	return order;
}

/* A site's canonical point, kernel.function("name@file:line"). */
static char *site_text(const struct dw_site *site)
{
	return xasprintf("kernel.function(\"%s@%s:%d\")", site->name, site->file, site->line);
}

/* .callees(depth): the instances inlined in `caller` (stap 4.8 finds no other callees in
 * this kernel's DWARF 5), each probed at its entry as a function point whose origin is
 * CALLER.callee("name@file:line"); then, breadth first, theirs down to `depth`. */
static size_t add_callees(const struct probe_point *point, const struct dwpoints *dp,
			  const struct ksyms *ks, const struct dw_site *caller,
			  const char *caller_text, const struct dw_function_query *q,
			  int64_t depth, struct derived_point ***tail)
{
	size_t n, added = 0;
	struct dw_site *callees = dwpoints_inlined_in(dp, caller->die, &n);
	bool *taken = xcalloc(n + 1, sizeof(*taken));

	for (size_t i = 0; i < n; i++) {
		const struct dw_site *s = &callees[i];
		const char *symbol;
		uint64_t offset;
		struct derived_point *d;

		if ((q->callee && fnmatch(q->callee, s->name, 0)) ||
		    !placement(dp, ks, s->pc, &symbol, &offset))
			continue;
		d = site_point(point, NULL, dp, s, s->line, s->pc, symbol, offset,
			       PROVIDER_KPROBE);
		free(d->origin);
		d->origin = xasprintf("%s.callee(\"%s@%s:%d\")", caller_text, s->name, s->file,
				      s->line);
		add_derived_point(tail, d);
		taken[i] = true;
		added++;
	}
	for (size_t i = 0; depth > 1 && i < n; i++) {
		char *text;

		if (!taken[i])
			continue;
		text = site_text(&callees[i]);
		added += add_callees(point, dp, ks, &callees[i], text, q, depth - 1, tail);
		free(text);
	}
	free(taken);
	free(callees);
	return added;
}

static int by_pc(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The pcs of the points from `first` on, sorted. */
static uint64_t *points_pcs(const struct derived_point *first, size_t *count)
{
	uint64_t *pcs = NULL;
	size_t n = 0;

	for (const struct derived_point *d = first; d; d = d->next) {
		pcs = xrealloc(pcs, (n + 1) * sizeof(*pcs));
		pcs[n++] = d->pc;
	}
	if (n)
		qsort(pcs, n, sizeof(*pcs), by_pc);
	*count = n;
	return pcs;
}

/* The functions of the symbol table that the DWARF does not describe (assembly, .cold
 * parts) or describes under another name (an alias: SYSCALL_DEFINE0's __x64_sys_getppid is
 * __do_sys_getppid): stap probes them too, as kernel.function("name"). A symbol at a pc
 * that one of the DWARF's points took already (`first` on) is left out. */
static size_t add_symbol_functions(const struct probe_point *point, const struct component *func,
				   const struct dwpoints *dp, const struct ksyms *ks,
				   const struct dw_spec *spec, const struct dw_function_query *q,
				   const struct derived_point *first, struct derived_point ***tail)
{
	size_t count, added = 0, ntaken;
	const char **names;
	uint64_t *taken;

	if (spec->file || q->which == DW_INLINE || q->which == DW_CALLEES)
		return 0;
	if (q->which == DW_EXPORTED && !ksyms_exports_known(ks))
		return 0;
	names = q->which == DW_EXPORTED ? ksyms_match_exported(ks, spec->function, &count) :
					  ksyms_match(ks, spec->function, &count);
	taken = points_pcs(first, &ntaken);
	for (size_t i = 0; i < count; i++) {
		uint64_t address = dwpoints_symbol_address(dp, names[i]), start;
		struct derived_point *d;
		struct strbuf sb = { 0 };
		const char *holder;
		bool unique;

		if (!address || bsearch(&address, taken, ntaken, sizeof(*taken), by_pc) ||
		    !dwpoints_symbol(dp, address, &holder, &start, &unique) || start != address)
			continue;
		d = derived_point_new(q->which == DW_RETURN ? PROVIDER_KRETPROBE : PROVIDER_KPROBE,
				      point);
		sb_addf(&sb, "kernel.function(\"%s\")", names[i]);
		name_point(d, point, func->next, &sb, names[i], dp, address);
		d->pc = address;
		d->maxactive = (int)q->maxactive;
		add_derived_point(tail, d);
		added++;
	}
	free(names);
	free(taken);
	return added;
}

/* What derive_dwarf_function gathers while it goes over the sites. */
struct function_search {
	const struct probe_point *point;
	const struct component *func;
	const struct dw_function_query *q;
	const struct provider_env *env;
	const struct dwpoints *dp;
	const struct ksyms *ks;
	struct derived_point **local;	/* where the next point goes */
	const struct dw_site *last;	/* the last site taken, and how many functions */
	size_t matched;
};

/* The points of one matching site: its own, or its callees'. */
static size_t take_site(struct function_search *fs, const struct dw_site *site)
{
	const struct dw_function_query *q = fs->q;
	const char *symbol;
	uint64_t offset;

	if (!fs->last || strcmp(fs->last->name, site->name))
		fs->matched++;
	fs->last = site;
	if (q->which == DW_CALLEES) {
		char *text = site_text(site);
		size_t added = add_callees(fs->point, fs->dp, fs->ks, site, text, q, q->depth,
					   &fs->local);

		free(text);
		return added;
	}
	if (!placement(fs->dp, fs->ks, site->pc, &symbol, &offset) ||
	    (q->which == DW_RETURN && offset)) {
		warn_blacklisted(fs->dp, fs->ks, site, fs->env);
		return 0;
	}
	add_derived_point(&fs->local, site_point(fs->point, fs->func->next, fs->dp, site,
						 site->line, site->pc, symbol, offset,
						 q->which == DW_RETURN ? PROVIDER_KRETPROBE :
									 PROVIDER_KPROBE));
	return 1;
}

bool derive_dwarf_function(const struct probe_point *point, const struct component *func,
			   const struct dw_function_query *q, const struct provider_env *env,
			   const struct debuginfo *di, struct derived_point ***tail)
{
	struct derived_point *first = NULL;
	struct function_search fs = { point, func, q, env, dwpoints_of(di),
				      env->symbols ? env->symbols(env->ctx) : NULL, &first,
				      NULL, 0 };
	struct dw_site *sites;
	struct dw_spec spec;
	size_t count, taken = 0, *order;

	if (!dwarf_at_hand(point, fs.ks, fs.dp))
		return false;
	if (!parse_spec(component_string(func), &spec)) {
		free_spec(&spec);
		no_match(point, NULL, NULL);
		return false;
	}
	sites = dwpoints_sites_named(fs.dp, spec.function, spec.literal, &count);
	order = stap_order(sites, count);
	/* As stap: the out-of-line copies first, then the inlined instances, each from the
	 * last compilation unit to the first, in DIE order within one. */
	for (size_t k = 0; k < 2 * count; k++) {
		const struct dw_site *site = &sites[order[k % count]];

		if (site->is_inline == (k >= count) && site_matches(site, &spec) &&
		    wanted(site, q, fs.ks))
			taken += take_site(&fs, site);
	}
	if (taken)
		warn_line(&spec, fs.matched == 1 ? fs.last : NULL, fs.matched, env);
	free(order);
	free(sites);
	taken += add_symbol_functions(point, func, fs.dp, fs.ks, &spec, q, first, &fs.local);
	for (struct derived_point *d = first; d; d = d->next)
		d->maxactive = (int)q->maxactive;
	if (first) {
		**tail = first;
		*tail = fs.local;
	} else {
		no_match(point, &spec, fs.ks);
	}
	free_spec(&spec);
	return taken > 0;
}

/* stap's error for a line without code: the nearest lines before and after that have. */
static void no_line_records(int line, const char *file, const struct dw_line *lines, size_t n)
{
	int before = 0, after = 0;
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (lines[i].line < line)
			before = lines[i].line;
		else if (lines[i].line > line && !after)
			after = lines[i].line;
	}
	if (before && after)
		sb_addf(&sb, " (try :%d or :%d)", before, after);
	else if (before || after)
		sb_addf(&sb, " (try :%d)", before ? before : after);
	diag_error("semantic error", "no line records for %s:%d [man error::dwarf]%s\n", file,
		   line, sb.buf ? sb.buf : "");
	free(sb.buf);
}

static bool line_wanted(const struct dw_spec *spec, int line)
{
	return spec->lines == LINES_ALL || (line >= spec->first && line <= spec->last);
}

/* The statement points of one out-of-line function; false when an exact line it lacks
 * was asked for (nothing added). */
static size_t add_statements(const struct probe_point *point, const struct dwpoints *dp,
			     const struct ksyms *ks, const struct dw_site *site,
			     struct dw_spec *spec, struct derived_point ***tail,
			     struct dw_line **lines, size_t *nlines)
{
	const char *symbol;
	uint64_t offset;
	size_t added = 0;

	if (spec->lines == LINES_NONE) {
		if (!placement(dp, ks, site->pc, &symbol, &offset))
			return 0;
		add_derived_point(tail, site_point(point, NULL, dp, site, site->line, site->pc,
						   symbol, offset, PROVIDER_KPROBE));
		return 1;
	}
	*lines = dwpoints_lines(dp, site, nlines);
	for (size_t i = 0; i < *nlines; i++) {
		const struct dw_line *l = &(*lines)[i];

		if (!line_wanted(spec, l->line) || !placement(dp, ks, l->pc, &symbol, &offset))
			continue;
		add_derived_point(tail, site_point(point, NULL, dp, site, l->line, l->pc, symbol,
						   offset, PROVIDER_KPROBE));
		added++;
	}
	return added;
}

bool derive_dwarf_statement(const struct probe_point *point, const struct component *stmt,
			    const struct provider_env *env, const struct debuginfo *di,
			    struct derived_point ***tail)
{
	const struct dwpoints *dp = dwpoints_of(di);
	const struct ksyms *ks = env->symbols ? env->symbols(env->ctx) : NULL;
	const struct dw_site *missing = NULL;
	struct dw_site *sites;
	struct dw_line *missing_lines = NULL;
	size_t count, nmissing = 0, taken = 0;
	int missing_line = 0;
	struct dw_spec spec;

	if (stmt->next) {
		provider_invalid_suffix(point, stmt->next);
		return false;
	}
	if (!dwarf_at_hand(point, ks, dp))
		return false;
	if (!parse_spec(component_string(stmt), &spec)) {
		free_spec(&spec);
		no_match(point, NULL, NULL);
		return false;
	}
	sites = dwpoints_sites_named(dp, spec.function, spec.literal, &count);
	for (size_t i = 0; i < count; i++) {
		struct dw_line *lines = NULL;
		size_t nlines = 0, added;
		struct dw_spec one = spec;

		if (sites[i].is_inline || !site_matches(&sites[i], &spec))
			continue;
		if (spec.lines == LINES_RELATIVE) {
			one.first = one.last = sites[i].line + spec.first;
			one.lines = LINES_ONE;
		}
		added = add_statements(point, dp, ks, &sites[i], &one, tail, &lines, &nlines);
		taken += added;
		if (!added && one.lines == LINES_ONE && !missing) {
			missing = &sites[i];
			missing_lines = lines;
			nmissing = nlines;
			missing_line = one.first;
			continue;
		}
		free(lines);
	}
	if (!taken) {
		if (missing)
			no_line_records(missing_line, missing->file, missing_lines, nmissing);
		no_match(point, NULL, ks);
	}
	free(missing_lines);
	free(sites);
	free_spec(&spec);
	return taken > 0;
}
