// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel and kprobe providers: each passes a point on to its family by the component
 * after the first,
 *     kernel.function("f")   kprobe.function("f")       kernel_function.c
 *     kernel.statement(A)    kprobe.statement(A)        statement.c
 *                            kprobe.module("m")...      module_function.c
 * and says, as stap does, what may follow when the point has no such component.
 */
#include "providers.h"

#include <string.h>

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

static bool derive_kernel(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	const struct component *kernel = point->components;
	const struct component *next = kernel->next;

	if (kernel->arg) {
		provider_mismatch(point, kernel, NULL);
		return false;
	}
	if (!next) {
		provider_truncated(point, kernel, kernel_follow);
		return false;
	}
	if (is_string_component(next, "function"))
		return derive_kernel_function(point, next, env, tail);
	if (is_number_component(next, "statement"))
		return derive_statement(point, next, env, tail);
	provider_mismatch(point, next, kernel_names);
	return false;
}

static bool derive_kprobe(const struct probe_point *point, const struct provider_env *env,
			  struct derived_point ***tail)
{
	const struct component *kprobe = point->components;
	const struct component *next = kprobe->next;

	if (kprobe->arg) {
		provider_mismatch(point, kprobe, NULL);
		return false;
	}
	if (!next) {
		provider_truncated(point, kprobe, kprobe_follow);
		return false;
	}
	if (is_string_component(next, "function"))
		return derive_kernel_function(point, next, env, tail);
	if (is_number_component(next, "statement"))
		return derive_statement(point, next, env, tail);
	if (is_string_component(next, "module"))
		return derive_module_function(point, next, env, tail);
	provider_mismatch(point, next, kprobe_names);
	return false;
}

/* kprobe.function("f") is kernel.function("f") without debuginfo: the same here, where
 * target variables are yet to come. */
const struct provider provider_kernel = { "kernel", derive_kernel };
const struct provider provider_kprobe = { "kprobe", derive_kprobe };
