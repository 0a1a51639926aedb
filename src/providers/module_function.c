// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * module("m").function("f") [.call], module("m").function("f").return [.maxactive(N)], and
 * the same with kprobe.module("m").function("f"): a kprobe or a kretprobe on the function f
 * of the loadable module m. Both may be wildcards, expanded against the target's modules and
 * their functions (ksyms_modules()). The probes are armed when m is loaded, before its init
 * function runs, and disarmed when it is removed (runtime/kprobes.h).
 */
#include "providers/function_point.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/kmodules.h"
#include "target/ksyms.h"
#include "util.h"

static const char module_follow[] = "function(number) function(string) statement(number) "
				    "statement(string)";
static const char *const module_names[] = { "function", "statement", NULL };
static const char *const kprobe_module_names[] = { "function", NULL };

/* What was written: the components module(...) and function(...) and what follows them. */
struct module_point {
	const struct probe_point *point;
	const struct component *module, *func;
	bool kprobe;			/* kprobe.module(...) */
	enum provider_kind kind;
	int64_t maxactive;
};

/* .call, .return and .return.maxactive(N) after function(...); false after an error. */
static bool read_suffixes(struct module_point *mp)
{
	const struct component *comp = mp->func->next;

	mp->kind = PROVIDER_KPROBE;
	mp->maxactive = -1;
	if (comp && !comp->arg && !strcmp(comp->name, "call")) {
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "return")) {
		mp->kind = PROVIDER_KRETPROBE;
		comp = read_return_suffix(comp, &mp->maxactive);
	}
	if (comp) {
		provider_invalid_suffix(mp->point, comp);
		return false;
	}
	return true;
}

/* The functions of `mod` matching the function pattern, added; how many. */
static size_t add_module_functions(const struct module_point *mp, const struct kmodule *mod,
				   struct derived_point ***tail)
{
	const char *pattern = component_string(mp->func);
	char *head = xasprintf("%smodule(\"%s\")", mp->kprobe ? "kprobe." : "", mod->name);
	struct function_match m = { mp->point, mp->func, head, mod->name, mp->kind,
				    mp->maxactive };
	size_t added = 0;

	for (size_t i = 0; i < mod->nfunctions; i++) {
		if (fnmatch(pattern, mod->functions[i], 0) == 0) {
			add_function_point(&m, mod->functions[i], tail);
			added++;
		}
	}
	free(head);
	return added;
}

/* The module names, for suggestions. */
static const char **module_names_of(const struct kmodules *mods)
{
	const char **names = xcalloc(mods->len + 1, sizeof(*names));

	for (size_t i = 0; i < mods->len; i++)
		names[i] = mods->items[i].name;
	return names;
}

static bool expand(const struct module_point *mp, const struct kmodules *mods,
		   struct derived_point ***tail)
{
	const char *mod_pattern = component_string(mp->module);
	const char *func_pattern = component_string(mp->func);
	const struct kmodule *only = NULL;
	size_t modules = 0, added = 0;

	for (size_t i = 0; i < mods->len; i++) {
		const struct kmodule *mod = &mods->items[i];

		if (fnmatch(mod_pattern, mod->name, 0) != 0)
			continue;
		modules++;
		only = mod;
		added += add_module_functions(mp, mod, tail);
	}
	if (!modules) {
		const char **names = module_names_of(mods);

		function_no_match(mp->point, mod_pattern, names, mods->len, false);
		free(names);
	} else if (!added) {
		function_no_match(mp->point, func_pattern,
			 modules == 1 ? (const char *const *)only->functions : NULL,
			 modules == 1 ? only->nfunctions : 0, false);
	}
	return added > 0;
}

bool derive_module_function(const struct probe_point *point, const struct component *module,
			    const struct provider_env *env, struct derived_point ***tail)
{
	struct module_point mp = { .point = point, .module = module, .func = module->next };
	bool kprobe = !strcmp(point->components->name, "kprobe");
	const struct kmodules *mods;
	const struct ksyms *ks;

	mp.kprobe = kprobe;
	if (!mp.func) {
		provider_truncated(point, module, kprobe ? "function(string)" : module_follow);
		return false;
	}
	if (!strcmp(mp.func->name, "statement") && !kprobe) {
		struct token_desc tok = component_token(mp.func);

		diag_error_at("semantic error", &tok, mp.func->loc,
			      "tapster cannot resolve module(\"m\").statement points yet");
		return false;
	}
	if (strcmp(mp.func->name, "function") || !component_string(mp.func)) {
		provider_mismatch(point, mp.func, kprobe ? kprobe_module_names : module_names);
		return false;
	}
	if (!read_suffixes(&mp))
		return false;
	ks = env && env->symbols ? env->symbols(env->ctx) : NULL;
	mods = ks ? ksyms_modules(ks) : NULL;
	if (!mods) {
		provider_resolving(point);
		return false;
	}
	return expand(&mp, mods, tail);
}

static bool derive_module(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	const struct component *module = point->components;

	if (!component_string(module)) {
		provider_mismatch(point, module, NULL);
		return false;
	}
	return derive_module_function(point, module, env, tail);
}

static const struct probe_type module_types[] = {
	{ "module(string).function(string)", false },
	{ "module(string).function(string).call", false },
	{ "module(string).function(string).return", false },
	{ "module(string).function(string).return.maxactive(number)", false },
	{ NULL, false },
};

const struct provider provider_module = {
	.name = "module", .derive = derive_module, .types = module_types,
};

