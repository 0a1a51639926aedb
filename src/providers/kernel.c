// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel and kprobe providers: each passes a point on to its family by the component
 * after the first,
 *     kernel.function("f")   kprobe.function("f")       kernel_function.c
 *     kernel.statement(A)    kprobe.statement(A)        statement.c
 *     kernel.data(A)                                    hwbkpt.c
 *                            kprobe.module("m")...      module_function.c
 * and says, as stap does, what may follow when the point has no such component. A
 * wildcard there (kernel.da*) is each name it fits.
 */
#include "providers/providers.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

/* What may follow each of them, as stap lists it, and the names it suggests instead of a
 * component it does not know. */
static const char kernel_follow[] = "data(number) data(string) function(number) "
				    "function(string) mark(string) statement(number) "
				    "statement(string) trace(string)";
static const char *const kernel_names[] = { "data", "function", "mark", "statement", "trace",
					    NULL };
static const char kprobe_follow[] = "function(string) module(string) statement(number)";
static const char *const kprobe_names[] = { "function", "module", "statement", NULL };

/* Whether `comp` is NAME with an argument of the right kind. */
static bool is_string_component(const struct component *comp, const char *name)
{
	return comp && !strcmp(comp->name, name) && component_string(comp);
}

static bool is_number_component(const struct component *comp, const char *name)
{
	int64_t n;

	return comp && !strcmp(comp->name, name) && component_number(comp, &n);
}

/* kernel.X or kprobe.X: function("f"), statement(N), and for kprobe module("m"). */
static bool derive_family(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail, const char *follow,
			  const char *const *names, bool modules)
{
	const struct component *first = point->components;
	const struct component *next = first->next;

	if (first->arg) {
		provider_mismatch(point, first, NULL);
		return false;
	}
	if (!next) {
		provider_truncated(point, first, follow);
		return false;
	}
	if (is_string_component(next, "function"))
		return derive_kernel_function(point, next, env, tail);
	if (is_number_component(next, "statement") ||
	    (!modules && is_string_component(next, "statement")))
		return derive_statement(point, next, env, tail);
	if (modules && is_string_component(next, "module"))
		return derive_module_function(point, next, env, tail);
	provider_mismatch(point, next, names);
	return false;
}

static bool derive_kernel(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail);

static bool derive_kernel(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	const struct component *next = point->components->next;

	if (!point->components->arg && next && strpbrk(next->name, "*?["))
		return provider_derive_each(point, next, kernel_names, derive_kernel, env, tail);

	if (!point->components->arg && is_string_component(next, "trace"))
		return derive_kernel_trace(point, next, env, tail);
	if (!point->components->arg && next && !strcmp(next->name, "data") && next->arg)
		return derive_kernel_data(point, next, tail);
	return derive_family(point, env, tail, kernel_follow, kernel_names, false);
}

static bool derive_kprobe(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	return derive_family(point, env, tail, kprobe_follow, kprobe_names, true);
}

/* kprobe.function("f") is kernel.function("f") without debuginfo: the same here, where
 * target variables are yet to come. */
static const struct probe_type kernel_types[] = {
	{ "kernel.data(number).length(number).rw", false },
	{ "kernel.data(number).length(number).write", false },
	{ "kernel.data(number).rw", false },
	{ "kernel.data(number).write", false },
	{ "kernel.data(string).rw", false },
	{ "kernel.data(string).write", false },
	{ "kernel.function(string)", false },
	{ "kernel.function(string).call", false },
	{ "kernel.function(string).callee(string)", false },
	{ "kernel.function(string).callees", false },
	{ "kernel.function(string).callees(number)", false },
	{ "kernel.function(string).exported", false },
	{ "kernel.function(string).inline", false },
	{ "kernel.function(string).return", false },
	{ "kernel.function(string).return.maxactive(number)", false },
	{ "kernel.statement(number).absolute", false },
	{ "kernel.statement(string)", false },
	{ "kernel.trace(string)", false },
	{ NULL, false },
};

const struct provider provider_kernel = {
	.name = "kernel", .derive = derive_kernel, .types = kernel_types,
};

static const struct probe_type kprobe_types[] = {
	{ "kprobe.function(string)", false },
	{ "kprobe.function(string).call", false },
	{ "kprobe.function(string).return", false },
	{ "kprobe.function(string).return.maxactive(number)", false },
	{ "kprobe.module(string).function(string)", false },
	{ "kprobe.module(string).function(string).call", false },
	{ "kprobe.module(string).function(string).return", false },
	{ "kprobe.module(string).function(string).return.maxactive(number)", false },
	{ "kprobe.statement(number).absolute", false },
	{ NULL, false },
};

const struct provider provider_kprobe = {
	.name = "kprobe", .derive = derive_kprobe, .types = kprobe_types,
};

