// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.function("f") [.call] and kernel.function("f").return [.maxactive(N)], and the same
 * with kprobe.function: a kprobe or a kretprobe on the kernel function f, resolved by symbol
 * name when it is registered. f may be a wildcard, expanded against the target's functions.
 */
#include "providers.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../diag.h"
#include "../ksyms.h"
#include "../util.h"

static bool has_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

/* The point as pp() shows it, for the function `name`: the written point with its pattern
 * replaced, e.g. kernel.function("vfs_read").return. */
static char *point_text(const struct probe_point *point, const struct component *func,
			const char *name)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "%s.function(\"%s\")", point->components->name, name);
	for (const struct component *c = func->next; c; c = c->next) {
		int64_t n;

		sb_addf(&sb, ".%s", c->name);
		if (component_number(c, &n))
			sb_addf(&sb, "(%" PRId64 ")", n);
	}
	add_marks(&sb, point);
	return sb_steal(&sb);
}

static void add_point(const struct probe_point *point, const struct component *func,
		      const char *name, enum provider_kind kind, int64_t maxactive,
		      struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(kind, point);

	free(d->pp);
	d->pp = point_text(point, func, name);
	free(d->function);
	d->function = xstrdup(name);
	d->maxactive = (int)maxactive;
	**tail = d;
	*tail = &d->next;
}

/* No function of the target matches: stap's "no match", with the nearest names. */
static void no_match(const struct probe_point *point, const char *pattern,
		     const struct ksyms *ks)
{
	size_t count;
	const char *const *names = ksyms_names(ks, &count);
	char *similar = has_glob(pattern) ? xstrdup("") : similar_names(pattern, names, count);

	provider_resolving(point);
	diag_continue();
	diag_error("semantic error", "no match%s\n", similar);
	free(similar);
}

/* .call, .return and .return.maxactive(N) after function(...); false after an error. */
static bool read_suffixes(const struct probe_point *point, const struct component *func,
			  enum provider_kind *kind, int64_t *maxactive)
{
	const struct component *comp = func->next;

	*kind = PROVIDER_KPROBE;
	*maxactive = -1;
	if (comp && !comp->arg && !strcmp(comp->name, "call")) {
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "return")) {
		*kind = PROVIDER_KRETPROBE;
		comp = comp->next;
		if (comp && !strcmp(comp->name, "maxactive") &&
		    component_number(comp, maxactive) && *maxactive > 0 && *maxactive < 1000000)
			comp = comp->next;
		else if (comp)
			*maxactive = -1;
	}
	if (comp) {
		struct token_desc bad = { "identifier", comp->name };

		provider_resolving(point);
		diag_continue();
		diag_error_at("semantic error", &bad, comp->loc, "invalid suffix for probe");
		return false;
	}
	return true;
}

static bool derive_kernel(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	static const char *const components[] = { "function", NULL };
	const struct component *kernel = point->components;
	const struct component *func = kernel->next;
	const struct ksyms *ks;
	enum provider_kind kind;
	int64_t maxactive;
	const char *pattern;

	if (kernel->arg || !func || strcmp(func->name, "function") || !component_string(func)) {
		provider_mismatch(point, func ? func : kernel, components);
		return false;
	}
	if (!read_suffixes(point, func, &kind, &maxactive))
		return false;
	pattern = component_string(func);
	if (strpbrk(pattern, "@:")) {
		struct token_desc tok = { "string", pattern };

		diag_error_at("semantic error", &tok, func->loc,
			      "tapster cannot resolve function@file:line points yet");
		return false;
	}
	ks = env && env->symbols ? env->symbols(env->ctx) : NULL;
	if (!ks) {
		provider_resolving(point);
		return false;
	}
	if (!has_glob(pattern)) {
		if (!ksyms_exists(ks, pattern)) {
			no_match(point, pattern, ks);
			return false;
		}
		if (ksyms_blacklisted(ks, pattern)) {
			struct token_desc tok = { "string", pattern };

			provider_resolving(point);
			diag_continue();
			diag_error_at("semantic error", &tok, func->loc,
				      "function '%s' cannot be probed: it is on the kernel's kprobe"
				      " blacklist", pattern);
			return false;
		}
		add_point(point, func, pattern, kind, maxactive, tail);
		return true;
	}

	size_t count;
	const char **names = ksyms_match(ks, pattern, &count);

	if (!count)
		no_match(point, pattern, ks);
	for (size_t i = 0; i < count; i++)
		add_point(point, func, names[i], kind, maxactive, tail);
	free(names);
	return count > 0;
}

/* kprobe.function("f") is kernel.function("f") without debuginfo: the same here, where
 * target variables are yet to come. */
const struct provider provider_kernel = { "kernel", derive_kernel };
const struct provider provider_kprobe = { "kprobe", derive_kernel };
