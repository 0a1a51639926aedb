// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.function("f") [.call] and kernel.function("f").return [.maxactive(N)], and the same
 * with kprobe.function: a kprobe or a kretprobe on the kernel function f, resolved by symbol
 * name when it is registered. f may be a wildcard, expanded against the target's functions.
 * kernel.function("f").exported takes only the functions the kernel exports.
 */
#include "providers/dwarf_points.h"
#include "providers/function_point.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/ksyms.h"
#include "util.h"

static void add_point(const struct probe_point *point, const struct component *func,
		      const char *name, enum provider_kind kind, int64_t maxactive,
		      struct derived_point ***tail)
{
	struct function_match m = { point, func, point->components->name, NULL, kind,
				    maxactive };

	add_function_point(&m, name, tail);
}

/* .call, .return and .return.maxactive(N) after function(...), or .exported, .inline,
 * .callees[(N)] or .callee("g") alone (`kernel` says whether they may); false after an
 * error. */
static bool read_suffixes(const struct probe_point *point, const struct component *func,
			  bool kernel, enum provider_kind *kind, int64_t *maxactive,
			  bool *exported, bool *inline_only, const struct component **callees)
{
	const struct component *comp = func->next;
	int64_t depth;

	*kind = PROVIDER_KPROBE;
	*maxactive = -1;
	*exported = false;
	*inline_only = false;
	*callees = NULL;
	if (comp && kernel && ((!strcmp(comp->name, "callees") &&
				(!comp->arg || (component_number(comp, &depth) && depth > 0))) ||
			       (!strcmp(comp->name, "callee") && component_string(comp)))) {
		*callees = comp;
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "call")) {
		comp = comp->next;
	} else if (comp && !comp->arg && kernel && !strcmp(comp->name, "exported")) {
		*exported = true;
		comp = comp->next;
	} else if (comp && !comp->arg && kernel && !strcmp(comp->name, "inline")) {
		*inline_only = true;
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "return")) {
		*kind = PROVIDER_KRETPROBE;
		comp = read_return_suffix(comp, maxactive);
	}
	if (comp) {
		provider_invalid_suffix(point, comp);
		return false;
	}
	return true;
}

/* A function named without a wildcard: it must exist, kprobes must take it, and with
 * .exported the kernel must export it. */
static bool check_function(const struct probe_point *point, const struct component *func,
			   const struct ksyms *ks, bool exported)
{
	const char *name = component_string(func);
	size_t count;

	if (exported && !ksyms_exported(ks, name)) {
		const char **names;

		if (!ksyms_exports_known(ks)) {
			provider_resolving(point);
			return false;
		}
		names = ksyms_exported_names(ks, &count);
		function_no_match(point, name, names, count, true);
		free(names);
		return false;
	}
	if (!ksyms_exists(ks, name)) {
		const char *const *names = ksyms_names(ks, &count);

		function_no_match(point, name, names, count, true);
		return false;
	}
	if (ksyms_blacklisted(ks, name)) {
		struct token_desc tok = { "string", name };

		provider_resolving(point);
		diag_continue();
		diag_error_at("semantic error", &tok, func->loc,
			      "function '%s' cannot be probed: it is on the kernel's kprobe"
			      " blacklist", name);
		return false;
	}
	return true;
}

/* With the kernel's DWARF, kernel.function points are its functions' sites. */
static bool derive_from_dwarf(const struct probe_point *point, const struct component *func,
			      const struct provider_env *env, const struct debuginfo *di,
			      enum provider_kind kind, int64_t maxactive, bool exported,
			      bool inline_only, const struct component *callees,
			      struct derived_point ***tail)
{
	struct dw_function_query q = { .which = DW_ALL, .maxactive = maxactive };

	if (callees) {
		q.which = DW_CALLEES;
		q.depth = 1;
		component_number(callees, &q.depth);
		q.callee = component_string(callees);
	} else if (kind == PROVIDER_KRETPROBE)
		q.which = DW_RETURN;
	else if (exported)
		q.which = DW_EXPORTED;
	else if (inline_only)
		q.which = DW_INLINE;
	else if (func->next)
		q.which = DW_CALL;
	return derive_dwarf_function(point, func, &q, env, di, tail);
}

/* kernel.function("f.cold").return: refused (see leave_out_cold_returns()). */
static bool check_cold_return(const struct probe_point *point, const struct component *func,
			      enum provider_kind kind)
{
	const char *name = component_string(func);
	struct token_desc tok = { "string", name };

	if (kind != PROVIDER_KRETPROBE || !ksyms_cold_part(name))
		return true;
	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &tok, func->loc,
		      "'%s' is a cold part of a function, entered by a jump: it has no return"
		      " to probe", name);
	return false;
}

/* A return probe goes in no cold part ("f.cold" is jumped to, not called: the return
 * trampoline would take a word of the function's frame for the return address). Keeps the
 * others in order; returns their count. */
static size_t leave_out_cold_returns(const char **names, size_t count, enum provider_kind kind)
{
	size_t kept = 0;

	for (size_t i = 0; i < count; i++)
		if (kind != PROVIDER_KRETPROBE || !ksyms_cold_part(names[i]))
			names[kept++] = names[i];
	return kept;
}

bool derive_kernel_function(const struct probe_point *point, const struct component *func,
			    const struct provider_env *env, struct derived_point ***tail)
{
	bool is_kernel = !strcmp(point->components->name, "kernel");
	const struct ksyms *ks;
	enum provider_kind kind;
	int64_t maxactive;
	const char *pattern = component_string(func);
	const char **names;
	size_t count;
	bool exported, inline_only;
	const struct component *callees;
	const struct debuginfo *di;

	if (!read_suffixes(point, func, is_kernel, &kind, &maxactive, &exported, &inline_only,
			   &callees))
		return false;
	di = is_kernel && env && env->debuginfo ? env->debuginfo(env->ctx) : NULL;
	if (di)
		return derive_from_dwarf(point, func, env, di, kind, maxactive, exported,
					 inline_only, callees, tail);
	if (is_kernel && (strchr(pattern, '@') || inline_only || callees)) {
		dwarf_missing(point, env);
		return false;
	}
	ks = env && env->symbols ? env->symbols(env->ctx) : NULL;
	if (!ks) {
		provider_resolving(point);
		return false;
	}
	if (!pattern_has_glob(pattern)) {
		if (!check_function(point, func, ks, exported) ||
		    !check_cold_return(point, func, kind))
			return false;
		add_point(point, func, pattern, kind, maxactive, tail);
		return true;
	}
	if (exported && !ksyms_exports_known(ks)) {
		provider_resolving(point);
		return false;
	}
	names = exported ? ksyms_match_exported(ks, pattern, &count) :
			   ksyms_match(ks, pattern, &count);
	count = leave_out_cold_returns(names, count, kind);
	if (!count)
		function_no_match(point, pattern, NULL, 0, true);
	for (size_t i = 0; i < count; i++)
		add_point(point, func, names[i], kind, maxactive, tail);
	free(names);
	return count > 0;
}
