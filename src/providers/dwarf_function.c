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
#include "target/dwtypes.h"
#include "target/ksyms.h"
#include "target/usyms.h"
#include "util.h"

/* Where the points of a DWARF index go: the kernel's (kprobes at a symbol and an offset)
 * or a user-space file's (uprobes at offsets in the file). */
struct dw_target {
	const struct dwpoints *dp;
	const struct ksyms *ks;			/* the kernel's; NULL for a user file */
	const struct dw_user_file *user;	/* NULL for the kernel */
	const struct provider_env *env;
};

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
 * the first of a name). The symbol must exist in the target. A uprobe goes at the file's
 * offset of `pc`, its symbol the file. */
static bool placement(const struct dw_target *t, uint64_t pc, const char **symbol,
		      uint64_t *offset)
{
	const struct dwpoints *dp = t->dp;
	const struct ksyms *ks = t->ks;
	unsigned long long in_file;
	uint64_t start;
	bool unique;

	if (t->user) {
		*symbol = t->user->target;
		if (!usyms_file_offset(t->user->path, pc, &in_file))
			return false;
		*offset = in_file;
		return true;
	}
	if (!ks || !dwpoints_symbol(dp, pc, symbol, &start, &unique) ||
	    ksyms_blacklisted(ks, *symbol))
		return false;
	if (!unique && !dwpoints_unique_symbol_below(dp, start, symbol, &start))
		return false;
	*offset = pc - start;
	return ksyms_exists(ks, *symbol);
}

/* stap's warning for an out-of-line function that kprobes refuse (once per point). */
static void warn_blacklisted(const struct dw_target *t, const struct dw_site *site)
{
	struct token_desc probe_keyword = { "keyword", NULL };
	const struct dwpoints *dp = t->dp;
	const struct ksyms *ks = t->ks;
	const char *symbol;
	uint64_t start;
	bool unique;

	if (!ks || site->is_inline || !dwpoints_symbol(dp, site->pc, &symbol, &start, &unique) ||
	    !ksyms_blacklisted(ks, symbol))
		return;
	diag_warning_at(&probe_keyword, t->env->probe_loc, "function %s is blocklisted",
			site->name);
}

/* The components from `first_suffix` on, after `head`. */
static void add_suffix_names(struct strbuf *head, const struct component *first_suffix)
{
	for (const struct component *c = first_suffix; c; c = c->next) {
		int64_t n;

		sb_addf(head, ".%s", c->name);
		if (component_number(c, &n))
			sb_addf(head, "(%" PRId64 ")", n);
	}
}

/* The point's suffixes from `first_suffix` on and its marks, after `head`. */
static void add_suffixes(struct strbuf *head, const struct probe_point *point,
			 const struct component *first_suffix)
{
	add_suffix_names(head, first_suffix);
	add_marks(head, point);
}

/* Names `d` as its point's text `head` (`kernel.function("...")`) with the point's suffixes
 * from `first_suffix` on and its marks; its function is `function`, its comment the pc. */
static void name_point(struct derived_point *d, const struct probe_point *point,
		       const struct component *first_suffix, struct strbuf *head,
		       const char *function, const struct dwpoints *dp, uint64_t pc)
{
	add_suffixes(head, point, first_suffix);
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

/* A user file's point `text` ("function(\"f@file:N\")") as pp() names it (on the file)
 * or, with `origin`, as the process and its library name it; with the suffixes. */
static char *user_point_text(const struct dw_user_file *file, const struct probe_point *point,
			     const struct component *first_suffix, const char *text, bool origin)
{
	struct strbuf sb = { 0 };

	if (origin && file->library)
		sb_addf(&sb, "process(\"%s\").library(\"%s\").%s", file->exe, file->library,
			text);
	else
		sb_addf(&sb, "process(\"%s\").%s", file->target, text);
	add_suffixes(&sb, point, first_suffix);
	return sb_steal(&sb);
}

/* A user file's point at `pc`, `offset` in the file, as process.c names its points. */
static struct derived_point *user_site_point(const struct probe_point *point,
					     const struct component *first_suffix,
					     const struct dw_user_file *file, const char *text,
					     const char *function, uint64_t pc, uint64_t offset,
					     enum provider_kind kind)
{
	struct derived_point *d = derived_point_new(kind == PROVIDER_KRETPROBE ?
						    PROVIDER_URETPROBE : PROVIDER_UPROBE, point);

	free(d->pp);
	d->pp = user_point_text(file, point, first_suffix, text, false);
	free(d->origin);
	d->origin = user_point_text(file, point, first_suffix, text, true);
	if (file->library) {
		free(d->listed);
		d->listed = xstrdup(d->origin);
	}
	free(d->function);
	d->function = xstrdup(function);
	free(d->comment);
	d->comment = file->dynamic ? xasprintf(" /* pc=.dynamic+0x%" PRIx64 " */", pc) :
				     xasprintf(" /* pc=.absolute+0x%" PRIx64 " */", offset);
	d->user_file = xstrdup(file->path);
	return d;
}

/* The derived point at `pc` of `site`: pp is FAMILY("name@file:LINE") and the suffixes. */
static struct derived_point *site_point(const struct probe_point *point,
					const struct component *first_suffix,
					const struct dw_target *t, const struct dw_site *site,
					int line, uint64_t pc, const char *symbol, uint64_t offset,
					enum provider_kind kind)
{
	struct derived_point *d;
	struct strbuf sb = { 0 };
	const struct component *family = point->components->next;
	bool is_statement;

	if (t->user && family && !strcmp(family->name, "library"))
		family = family->next;
	is_statement = family && !strcmp(family->name, "statement");
	sb_addf(&sb, "%s(\"%s@%s:%d\")", is_statement ? "statement" : "function", site->name,
		site->file, line);
	if (t->user) {
		d = user_site_point(point, first_suffix, t->user, sb.buf, site->name, pc,
				    offset, kind);
		free(sb.buf);
	} else {
		char *text = sb_steal(&sb);

		d = derived_point_new(kind, point);
		sb_addf(&sb, "kernel.%s", text);
		free(text);
		name_point(d, point, first_suffix, &sb, site->name, t->dp, pc);
	}
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

/* stap's "no match", with the nearest function names (none for a statement): those of
 * the symbol table, and of the inlined functions when no file narrows the point (stap
 * gathers those from the compilation units it searched). */
static void no_match(const struct probe_point *point, const struct dw_spec *spec,
		     const struct ksyms *ks, const struct dwpoints *dp)
{
	size_t count = 0, nsites = 0;
	const char *const *symbols = ks && !diag_quiet() ? ksyms_names(ks, &count) : NULL;
	struct dw_site *sites = symbols && dp && spec && !spec->file ?
				dwpoints_sites_named(dp, "*", false, &nsites) : NULL;
	const char **names = xcalloc(count + nsites + 1, sizeof(*names));
	size_t n = 0;
	char *similar;

	for (size_t i = 0; i < count; i++)
		names[n++] = symbols[i];
	for (size_t i = 0; i < nsites; i++)
		if (sites[i].is_inline)
			names[n++] = sites[i].name;
	similar = symbols && spec ? similar_names(spec->function, names, n) : xstrdup("");
	/* stap names DWARF's suggestions "similar functions". */
	provider_no_match(point, similar, "functions", "functions");
	free(similar);
	free(names);
	free(sites);
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

/* A site's canonical point at its `line`: kernel.function("name@file:line"), or a user
 * file's as its process (and library) name it. */
static char *site_text(const struct dw_target *t, const struct dw_site *site, int line)
{
	char *text = xasprintf("function(\"%s@%s:%d\")", site->name, site->file, line);
	char *point;

	if (!t->user)
		point = xasprintf("kernel.%s", text);
	else if (t->user->library)
		point = xasprintf("process(\"%s\").library(\"%s\").%s", t->user->exe,
				  t->user->library, text);
	else
		point = xasprintf("process(\"%s\").%s", t->user->target, text);
	free(text);
	return point;
}

/* `d`'s origin as -p2 and -l show it, `origin` (malloc'd, taken). */
static void set_origin(struct derived_point *d, char *origin)
{
	free(d->origin);
	d->origin = origin;
	if (d->listed) {
		free(d->listed);
		d->listed = xstrdup(d->origin);
	}
}

/* Where a function's point goes: its entry; a user-space function's past its prologue as
 * --prologue-searching says (stap's: in -O0 code unless "never", in any with "always"),
 * but a .return's. */
static uint64_t entry_pc(const struct dw_target *t, bool is_return, const struct dw_site *site)
{
	uint64_t pc;

	if (!t->user || site->is_inline || is_return || t->env->prologue == PROLOGUE_NEVER)
		return site->pc;
	pc = dwtypes_prologue_end(t->user->dt, site->die, t->env->prologue == PROLOGUE_ALWAYS);
	return pc > site->pc ? pc : site->pc;
}

/* What a .callee("g")/.callees(N) search carries down the calls. */
struct callee_search {
	const struct probe_point *point;
	const struct dw_target *t;
	const struct dw_function_query *q;
	struct derived_point ***tail;
};

/* The return addresses a callee's point checks, innermost first: none for what is inlined
 * in the function asked for; the call's, then those that led to its caller, for a
 * function called out of line. */
struct call_chain {
	const uint64_t *pcs;
	int n;
};

/* The point of callee `site` at `pc`, its origin CALLER.callee("name@file:line") and the
 * .call/.return after it, checking `chain`; false where it can't go. */
static bool add_callee_point(const struct callee_search *cs, const struct dw_site *site,
			     uint64_t pc, const char *caller_text, struct call_chain chain)
{
	const struct dw_function_query *q = cs->q;
	struct strbuf origin = { 0 };
	struct derived_point *d;
	const char *symbol;
	uint64_t offset;

	if (!placement(cs->t, pc, &symbol, &offset))
		return false;
	d = site_point(cs->point, q->callee_suffix, cs->t, site, site->line, pc, symbol, offset,
		       q->callee_return ? PROVIDER_KRETPROBE : PROVIDER_KPROBE);
	sb_addf(&origin, "%s.callee(\"%s@%s:%d\")", caller_text, site->name, site->file,
		site->line);
	add_suffix_names(&origin, q->callee_suffix);
	set_origin(d, sb_steal(&origin));
	if (chain.n) {
		d->callers = xmalloc(chain.n * sizeof(*d->callers));
		memcpy(d->callers, chain.pcs, chain.n * sizeof(*d->callers));
		d->ncallers = chain.n;
	}
	add_derived_point(cs->tail, d);
	return true;
}

/* The out-of-line copy of a call's callee: the site of its DIE, else the first of its
 * name. */
static bool callee_site(const struct dw_target *t, const struct dw_call *call,
			struct dw_site *found)
{
	size_t n;
	struct dw_site *sites = dwpoints_sites_named(t->dp, call->name, true, &n);
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (sites[i].is_inline || (any && sites[i].die != call->callee))
			continue;
		*found = sites[i];
		any = true;
		if (sites[i].die == call->callee)
			break;
	}
	free(sites);
	return any;
}

static size_t add_callees(const struct callee_search *cs, const struct dw_site *caller,
			  const char *caller_text, int64_t depth, struct call_chain chain);

/* The functions a user-space `caller` calls out of line (DWARF 4's call sites: stap 4.8
 * reads those, not DWARF 5's), each at its entry (or, .return, its return) checking that
 * it returns to that call and up `chain`; with depth left, theirs under each, depth
 * first, as stap. */
static size_t add_called(const struct callee_search *cs, const struct dw_site *caller,
			 const char *caller_text, int64_t depth, struct call_chain chain)
{
	size_t n, added = 0;
	struct dw_call *calls = cs->t->user ? dwpoints_calls_in(cs->t->dp, caller->die, &n) : NULL;
	uint64_t *pcs = xmalloc((chain.n + 1) * sizeof(*pcs));
	struct call_chain up = { pcs, chain.n + 1 };

	if (chain.n)
		memcpy(pcs + 1, chain.pcs, chain.n * sizeof(*pcs));
	for (size_t i = 0; calls && i < n; i++) {
		struct dw_site site;
		char *text;

		if ((cs->q->callee && fnmatch(cs->q->callee, calls[i].name, 0)) ||
		    !callee_site(cs->t, &calls[i], &site))
			continue;
		pcs[0] = calls[i].return_pc;
		if (!add_callee_point(cs, &site, entry_pc(cs->t, cs->q->callee_return, &site),
				      caller_text, up))
			continue;
		added++;
		if (depth <= 1)
			continue;
		text = site_text(cs->t, &site, site.line);
		added += add_callees(cs, &site, text, depth - 1, up);
		free(text);
	}
	free(pcs);
	free(calls);
	return added;
}

/* .callees(depth): the instances inlined in `caller`, each probed at its entry as a
 * function point whose origin is CALLER.callee("name@file:line") (not for a .return:
 * an instance has none), then, breadth first, theirs down to `depth`; then the functions
 * it calls out of line (add_called()). */
static size_t add_callees(const struct callee_search *cs, const struct dw_site *caller,
			  const char *caller_text, int64_t depth, struct call_chain chain)
{
	size_t n, added = 0;
	struct dw_site *callees = dwpoints_inlined_in(cs->t->dp, caller->die, &n);
	bool *taken = xcalloc(n + 1, sizeof(*taken));

	for (size_t i = 0; i < n; i++) {
		const struct dw_site *s = &callees[i];

		if ((cs->q->callee && fnmatch(cs->q->callee, s->name, 0)) ||
		    cs->q->callee_return || !add_callee_point(cs, s, s->pc, caller_text, chain))
			continue;
		taken[i] = true;
		added++;
	}
	for (size_t i = 0; depth > 1 && i < n; i++) {
		char *text;

		if (!taken[i])
			continue;
		text = site_text(cs->t, &callees[i], callees[i].line);
		added += add_callees(cs, &callees[i], text, depth - 1, chain);
		free(text);
	}
	free(taken);
	free(callees);
	return added + add_called(cs, caller, caller_text, depth, chain);
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

/* Whether stap lists a symbol even at a pc a DWARF point has: a cold part ("f.cold", where
 * an inlined instance may start), and a compiler's copy that has one ("f.isra.0" beside
 * "f@file:line" when "f.isra.0.cold" exists; the other copies are the DWARF's points). */
static bool listed_by_symbol(const struct ksyms *ks, const char *name)
{
	char *cold_part;
	bool has_cold;

	if (!strchr(name, '.'))
		return false;
	if (ksyms_cold_part(name))
		return true;
	cold_part = xasprintf("%s.cold", name);
	has_cold = ksyms_exists(ks, cold_part);
	free(cold_part);
	return has_cold;
}

/* The functions of the symbol table that the DWARF does not describe (assembly, .cold
 * parts) or describes under another name (an alias: SYSCALL_DEFINE0's __x64_sys_getppid is
 * __do_sys_getppid): stap probes them too, as kernel.function("name"). A symbol at a pc
 * that one of the DWARF's points took already (`first` on) is left out, unless stap lists
 * it by its symbol all the same (listed_by_symbol()). */
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

		/* No return probe in a cold part (tapster's choice: stap 4.8 places one, whose
		 * trampoline would take a word of the function's frame for a return address). */
		if (!address || (q->which == DW_RETURN && ksyms_cold_part(names[i])) ||
		    (!listed_by_symbol(ks, names[i]) &&
		     bsearch(&address, taken, ntaken, sizeof(*taken), by_pc)) ||
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
	const struct dw_target *t;
	struct derived_point **local;	/* where the next point goes */
	/* The inlined instances taken in the unit at hand: their entries and names. */
	unsigned unit;
	uint64_t *unit_pcs;
	const char **unit_names;
	size_t nunit_instances;
	const struct dw_site *last;	/* the last site taken, and how many functions */
	size_t matched;
};


/* Whether an inlined instance of the same function at the same entry was taken before
 * `site` in its unit (stap probes a function's address once: two instances of one call
 * site may share an entry); notes it taken if not. */
static bool instance_taken(struct function_search *fs, const struct dw_site *site)
{
	size_t n = fs->nunit_instances;

	if (!site->is_inline)
		return false;
	if (n && fs->unit != site->cu)
		n = fs->nunit_instances = 0;
	fs->unit = site->cu;
	for (size_t i = 0; i < n; i++)
		if (fs->unit_pcs[i] == site->pc && !strcmp(fs->unit_names[i], site->name))
			return true;
	fs->unit_pcs = xrealloc(fs->unit_pcs, (n + 1) * sizeof(*fs->unit_pcs));
	fs->unit_names = xrealloc(fs->unit_names, (n + 1) * sizeof(*fs->unit_names));
	fs->unit_pcs[n] = site->pc;
	fs->unit_names[n] = site->name;
	fs->nunit_instances = n + 1;
	return false;
}

/* .label("L"): the labels of `site` that `pattern` matches, each a point at its address
 * (its variables those there) named FAMILY("f@file:LINE") by its line, whose origin adds
 * .label("NAME"); in DIE order, as stap. */
static size_t add_labels(const struct probe_point *point, const struct dw_target *t,
			 const struct dw_site *site, const char *pattern,
			 struct derived_point ***tail)
{
	size_t n, added = 0;
	struct dw_label *labels = dwpoints_labels_in(t->dp, site->die, &n);

	for (size_t i = 0; i < n; i++) {
		const char *symbol;
		uint64_t offset;
		struct derived_point *d;
		char *text;

		if (fnmatch(pattern, labels[i].name, 0) ||
		    !placement(t, labels[i].pc, &symbol, &offset))
			continue;
		d = site_point(point, NULL, t, site, labels[i].line, labels[i].pc, symbol, offset,
			       PROVIDER_KPROBE);
		d->mid_function = true;
		text = site_text(t, site, labels[i].line);
		set_origin(d, xasprintf("%s.label(\"%s\")", text, labels[i].name));
		free(text);
		add_derived_point(tail, d);
		added++;
	}
	free(labels);
	return added;
}

/* The points of one matching site: its own, its callees' or its labels'. */
static size_t take_site(struct function_search *fs, const struct dw_site *site)
{
	const struct dw_function_query *q = fs->q;
	uint64_t pc = entry_pc(fs->t, q->which == DW_RETURN, site);
	const char *symbol;
	uint64_t offset;

	if (!fs->last || strcmp(fs->last->name, site->name))
		fs->matched++;
	fs->last = site;
	if (q->which == DW_LABEL)
		return add_labels(fs->point, fs->t, site, q->label, &fs->local);
	if (q->which == DW_CALLEES) {
		struct callee_search cs = { fs->point, fs->t, q, &fs->local };
		char *text = site_text(fs->t, site, site->line);
		size_t added = add_callees(&cs, site, text, q->depth, (struct call_chain){ 0 });

		free(text);
		return added;
	}
	if (instance_taken(fs, site))
		return 0;
	if (!placement(fs->t, pc, &symbol, &offset) ||
	    (q->which == DW_RETURN && offset && !fs->t->user)) {
		warn_blacklisted(fs->t, site);
		return 0;
	}
	add_derived_point(&fs->local, site_point(fs->point, fs->func->next, fs->t, site,
						 site->line, pc, symbol, offset,
						 q->which == DW_RETURN ? PROVIDER_KRETPROBE :
									 PROVIDER_KPROBE));
	return 1;
}

/* stap's warning for a .return that found no out-of-line copy but inlined instances: the
 * names of the functions they are of, each once. */
static void warn_inlined_returns(const struct dw_target *t, const struct dw_spec *spec)
{
	size_t count, names = 0;
	struct dw_site *sites = dwpoints_sites_named(t->dp, spec->function, spec->literal,
						     &count);
	struct strbuf list = { 0 };

	for (size_t i = 0; i < count; i++) {
		bool seen = false;

		if (!sites[i].is_inline || !site_matches(&sites[i], spec))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = sites[j].is_inline && site_matches(&sites[j], spec) &&
			       !strcmp(sites[j].name, sites[i].name);
		if (seen)
			continue;
		sb_addf(&list, " %s", sites[i].name);
		names++;
	}
	if (names)
		diag_warning("cannot probe .return of %zu inlined functions %s", names, list.buf);
	free(list.buf);
	free(sites);
}

/* The sites of `spec` that the query takes, each's points at *fs->local: the out-of-line
 * copies first, then the inlined instances, each from the last compilation unit to the
 * first, in DIE order within one, as stap; how many points. */
static size_t function_points(struct function_search *fs, const struct dw_spec *spec)
{
	size_t count, taken = 0;
	struct dw_site *sites = dwpoints_sites_named(fs->t->dp, spec->function, spec->literal,
						     &count);
	size_t *order = stap_order(sites, count);

	for (size_t k = 0; k < 2 * count; k++) {
		const struct dw_site *site = &sites[order[k % count]];

		if (site->is_inline == (k >= count) && site_matches(site, spec) &&
		    wanted(site, fs->q, fs->t->ks))
			taken += take_site(fs, site);
	}
	if (taken)
		warn_line(spec, fs->matched == 1 ? fs->last : NULL, fs->matched, fs->t->env);
	free(order);
	free(sites);
	free(fs->unit_pcs);
	free(fs->unit_names);
	fs->unit_pcs = NULL;
	fs->unit_names = NULL;
	fs->nunit_instances = 0;
	return taken;
}

bool derive_dwarf_function(const struct probe_point *point, const struct component *func,
			   const struct dw_function_query *q, const struct provider_env *env,
			   const struct debuginfo *di, struct derived_point ***tail)
{
	struct derived_point *first = NULL;
	struct dw_target t = { dwpoints_of(di), env->symbols ? env->symbols(env->ctx) : NULL,
			       NULL, env };
	struct function_search fs = { .point = point, .func = func, .q = q, .t = &t,
				      .local = &first };
	struct dw_spec spec;
	size_t taken;

	if (!dwarf_at_hand(point, t.ks, t.dp))
		return false;
	if (!parse_spec(component_string(func), &spec)) {
		free_spec(&spec);
		no_match(point, NULL, NULL, NULL);
		return false;
	}
	taken = function_points(&fs, &spec);
	taken += add_symbol_functions(point, func, t.dp, t.ks, &spec, q, first, &fs.local);
	if (!taken && q->which == DW_RETURN)
		warn_inlined_returns(&t, &spec);
	for (struct derived_point *d = first; d; d = d->next)
		d->maxactive = (int)q->maxactive;
	if (first) {
		**tail = first;
		*tail = fs.local;
	} else {
		no_match(point, &spec, t.ks, t.dp);
	}
	free_spec(&spec);
	return taken > 0;
}

/*
 * kernel.statement("f@file:LINES"), as stap 4.8 finds its addresses: compilation unit by
 * unit, each unit's out-of-line copies, then its inlined instances. In each, a line is
 * probed at its lowest address there; "*" takes the lines from the one at the entry on, in
 * order, up to the first the function has no code for. An address is probed once per site
 * that has code there.
 */
struct statement_search {
	const struct probe_point *point;
	const struct dw_target *t;
	struct dw_spec *spec;
	struct derived_point ***tail;
	uint64_t *probed;		/* the addresses taken in the unit */
	size_t nprobed, cap, taken;
	/* The first unit whose sites lack the one line asked for, for stap's error. */
	int missing_line;
	const char *missing_file;
	struct dw_line *missing_lines;
	size_t nmissing;
	struct dw_line_cache *line_cache;	/* the unit's line records */
};

static bool first_at(struct statement_search *ss, uint64_t pc)
{
	for (size_t i = 0; i < ss->nprobed; i++)
		if (ss->probed[i] == pc)
			return false;
	if (ss->nprobed == ss->cap) {
		ss->cap = ss->cap ? ss->cap * 2 : 64;
		ss->probed = xrealloc(ss->probed, ss->cap * sizeof(*ss->probed));
	}
	ss->probed[ss->nprobed++] = pc;
	return true;
}

static void take_line(struct statement_search *ss, const struct dw_site *site, int line,
		      uint64_t pc)
{
	const char *symbol;
	uint64_t offset;

	if (!placement(ss->t, pc, &symbol, &offset))
		return;
	add_derived_point(ss->tail, site_point(ss->point, NULL, ss->t, site, line, pc, symbol,
					       offset, PROVIDER_KPROBE));
	ss->taken++;
}

/* The address of `line` in `lines` (sorted), or 0. */
static uint64_t line_pc(const struct dw_line *lines, size_t n, int line)
{
	for (size_t i = 0; i < n && lines[i].line <= line; i++)
		if (lines[i].line == line)
			return lines[i].pc;
	return 0;
}

/* The line asked of `site` first: the one line, the range's first, or the line relative to
 * its declaration. */
static int first_wanted(const struct dw_spec *spec, const struct dw_site *site)
{
	return spec->lines == LINES_RELATIVE ? site->line + spec->first : spec->first;
}

/* stap's error for a line without code: the nearest lines before and after, up to five
 * lines away, that a site of the unit has. */
static void no_line_records(struct statement_search *ss)
{
	int line = ss->missing_line, before = 0, after = 0;
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < ss->nmissing; i++) {
		int l = ss->missing_lines[i].line;

		if (l < line && l >= line - 5 && l > before)
			before = l;
		else if (l > line && l <= line + 5 && (!after || l < after))
			after = l;
	}
	if (before && after)
		sb_addf(&sb, " (try :%d or :%d)", before, after);
	else if (before || after)
		sb_addf(&sb, " (try :%d)", before ? before : after);
	diag_error("semantic error", "no line records for %s:%d [man error::dwarf]%s\n",
		   ss->missing_file, line, sb.buf ? sb.buf : "");
	free(sb.buf);
}

/* Keeps the lines of a unit that lacks the one line asked for, for the error. */
static void note_missing(struct statement_search *ss, const struct dw_site *site,
			 struct dw_line **lines, const size_t *nlines, size_t n)
{
	if (ss->missing_file)
		return;
	ss->missing_line = first_wanted(ss->spec, site);
	ss->missing_file = site->file;
	for (size_t k = 0; k < n; k++) {
		ss->missing_lines = xrealloc(ss->missing_lines, (ss->nmissing + nlines[k] + 1) *
					     sizeof(*ss->missing_lines));
		memcpy(ss->missing_lines + ss->nmissing, lines[k], nlines[k] * sizeof(**lines));
		ss->nmissing += nlines[k];
	}
}

static void push_line(struct dw_line **found, size_t *n, int line, uint64_t pc)
{
	*found = xrealloc(*found, (*n + 1) * sizeof(**found));
	(*found)[(*n)++] = (struct dw_line){ line, pc };
}

/* The points of one unit's sites `unit` (n of them). The line records: for "*" site by
 * site, for lines line by line (each at every site that has it); then each address once,
 * as a point of every site that has code there, named by the record's line. */
static void unit_statements(struct statement_search *ss, const struct dw_site **unit, size_t n)
{
	struct dw_line **lines = xcalloc(n + 1, sizeof(*lines)), *found = NULL;
	size_t *nlines = xcalloc(n + 1, sizeof(*nlines)), nfound = 0;
	bool all = ss->spec->lines == LINES_ALL;

	for (size_t k = 0; k < n; k++) {
		lines[k] = dwpoints_lines(ss->t->dp, &ss->line_cache, unit[k], all, &nlines[k]);
		for (size_t i = 0; all && i < nlines[k]; i++)
			push_line(&found, &nfound, lines[k][i].line, lines[k][i].pc);
	}
	for (int line = ss->spec->first; !all && line <= ss->spec->last; line++) {
		for (size_t k = 0; k < n; k++) {
			int wanted = ss->spec->lines == LINES_RELATIVE ?
					     first_wanted(ss->spec, unit[k]) : line;
			uint64_t pc = line_pc(lines[k], nlines[k], wanted);

			if (pc)
				push_line(&found, &nfound, wanted, pc);
		}
	}
	ss->nprobed = 0;
	for (size_t i = 0; i < nfound; i++) {
		if (!first_at(ss, found[i].pc))
			continue;
		for (size_t k = 0; k < n; k++)
			if (dwpoints_site_has(ss->t->dp, unit[k], found[i].pc))
				take_line(ss, unit[k], found[i].line, found[i].pc);
	}
	if (!nfound && ss->spec->lines != LINES_ALL && ss->spec->lines != LINES_RANGE)
		note_missing(ss, unit[0], lines, nlines, n);
	for (size_t k = 0; k < n; k++)
		free(lines[k]);
	free(lines);
	free(nlines);
	free(found);
}

/* Whether an inlined instance `sites[i]` repeats an instance of the same
 * function at the same entry before it in its unit (from `start`): stap keeps the first of
 * them (two calls of one line inlined at one address; the first may have no code). */
static bool repeated_instance(const struct dw_site *sites, size_t start, size_t i)
{
	if (!sites[i].is_inline)
		return false;
	for (size_t j = start; j < i; j++)
		if (sites[j].is_inline && sites[j].pc == sites[i].pc &&
		    !strcmp(sites[j].name, sites[i].name))
			return true;
	return false;
}

/* The sites of `sites` that match, unit by unit: in each, the out-of-line copies, then the
 * inlined instances, in DIE order. */
static void find_statements(struct statement_search *ss, const struct dw_site *sites,
			    size_t count)
{
	const struct dw_site **unit = xcalloc(count + 1, sizeof(*unit));

	for (size_t start = 0, end; start < count; start = end) {
		size_t n = 0;

		for (end = start; end < count && sites[end].cu == sites[start].cu; end++)
			;
		for (int inlined = 0; inlined < 2; inlined++)
			for (size_t i = start; i < end; i++)
				if (sites[i].is_inline == inlined && site_matches(&sites[i], ss->spec) &&
				    !repeated_instance(sites, start, i))
					unit[n++] = &sites[i];
		if (!n)
			continue;
		if (ss->spec->lines == LINES_NONE)
			for (size_t k = 0; k < n; k++)
				take_line(ss, unit[k], unit[k]->line, unit[k]->pc);
		else
			unit_statements(ss, unit, n);
	}
	free(unit);
}

/* A point and its place in its list, to sort the list stably. */
struct placed_point {
	struct derived_point *d;
	size_t index;
};

static int by_point_pc(const void *a, const void *b)
{
	const struct placed_point *x = a, *y = b;

	if (x->d->pc != y->d->pc)
		return x->d->pc < y->d->pc ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The points from *from on in the order of their addresses (stable), as stap lists a user
 * file's statements; *tail their new end. */
static void sort_points_by_pc(struct derived_point **from, struct derived_point ***tail)
{
	struct placed_point *points = NULL;
	size_t n = 0;

	for (struct derived_point *d = *from; d; d = d->next) {
		points = xrealloc(points, (n + 1) * sizeof(*points));
		points[n] = (struct placed_point){ d, n };
		n++;
	}
	if (!n)
		return;
	qsort(points, n, sizeof(*points), by_point_pc);
	for (size_t i = 0; i < n; i++)
		points[i].d->next = i + 1 < n ? points[i + 1].d : NULL;
	*from = points[0].d;
	*tail = &points[n - 1].d->next;
	free(points);
}

/* The statements `spec` names in the target's DWARF, at *tail; how many. None: stap's "no
 * line records" when one line was asked and a unit's sites lack it. A user file's lines come
 * in the order of their addresses, as stap's (its functions' entries in the sites' order). */
static size_t statement_points(const struct probe_point *point, const struct dw_target *t,
			       struct dw_spec *spec, struct derived_point ***tail)
{
	struct statement_search ss = { .point = point, .t = t, .spec = spec, .tail = tail };
	struct derived_point **from = *tail;
	struct dw_site *sites;
	size_t count;

	if (spec->lines == LINES_ONE || spec->lines == LINES_RELATIVE)
		spec->last = spec->first;
	sites = dwpoints_sites_named(t->dp, spec->function, spec->literal, &count);
	find_statements(&ss, sites, count);
	if (t->user && spec->lines != LINES_NONE)
		sort_points_by_pc(from, tail);
	if (!ss.taken && ss.missing_file)
		no_line_records(&ss);
	dwpoints_line_cache_free(ss.line_cache);
	free(ss.missing_lines);
	free(ss.probed);
	free(sites);
	return ss.taken;
}

bool derive_dwarf_statement(const struct probe_point *point, const struct component *stmt,
			    const struct provider_env *env, const struct debuginfo *di,
			    struct derived_point ***tail)
{
	struct dw_target t = { dwpoints_of(di), env->symbols ? env->symbols(env->ctx) : NULL,
			       NULL, env };
	struct dw_spec spec;
	size_t taken;

	if (stmt->next) {
		provider_invalid_suffix(point, stmt->next);
		return false;
	}
	if (!dwarf_at_hand(point, t.ks, t.dp))
		return false;
	if (!parse_spec(component_string(stmt), &spec)) {
		free_spec(&spec);
		no_match(point, NULL, NULL, NULL);
		return false;
	}
	taken = statement_points(point, &t, &spec, tail);
	if (!taken)
		no_match(point, NULL, t.ks, NULL);
	free_spec(&spec);
	return taken > 0;
}

/* A user file's target: its index, or NULL when it has no DWARF. */
static bool user_target(const struct dw_user_file *file, const struct provider_env *env,
			struct dw_target *t)
{
	*t = (struct dw_target){ NULL, NULL, file, env };
	t->dp = file->dt ? dwpoints_of_file(dwtypes_dwarf(file->dt), dwtypes_elf(file->dt)) :
			   NULL;
	return t->dp != NULL;
}

size_t derive_dwarf_user_function(const struct probe_point *point, const struct component *func,
				  const struct dw_function_query *q,
				  const struct provider_env *env, const struct dw_user_file *file,
				  struct derived_point ***tail)
{
	struct derived_point *first = NULL;
	struct dw_target t;
	struct function_search fs = { .point = point, .func = func, .q = q, .t = &t,
				      .local = &first };
	struct dw_spec spec;
	size_t taken = 0;

	if (!user_target(file, env, &t))
		return 0;
	if (parse_spec(component_string(func), &spec))
		taken = function_points(&fs, &spec);
	if (!taken && q->which == DW_RETURN)
		warn_inlined_returns(&t, &spec);
	free_spec(&spec);
	if (first) {
		**tail = first;
		*tail = fs.local;
	}
	return taken;
}

size_t derive_dwarf_user_statement(const struct probe_point *point, const struct component *stmt,
				   const struct provider_env *env,
				   const struct dw_user_file *file, struct derived_point ***tail)
{
	struct dw_target t;
	struct dw_spec spec;
	size_t taken = 0;

	if (!user_target(file, env, &t))
		return 0;
	if (parse_spec(component_string(stmt), &spec))
		taken = statement_points(point, &t, &spec, tail);
	free_spec(&spec);
	return taken;
}
