// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace("name"): a tracepoint of the kernel, attached with
 * tracepoint_probe_register() (runtime/tracepoints.h). The name may be a wildcard, and may
 * name the subsystem first, as stap has it: kernel.trace("sched:sched_process_*"). The
 * points derived show the subsystem: kernel.trace("sched:sched_process_fork"); a
 * wildcard's, in the order of the tracepoints' names (stap's order is its own).
 */
#include "providers.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../tracepoints.h"
#include "../util.h"

static bool matches(const struct tracepoint *tp, const char *system, const char *name)
{
	if (fnmatch(name, tp->name, 0))
		return false;
	return !system || (tp->system && !fnmatch(system, tp->system, 0));
}

static void add_point(const struct probe_point *point, const struct tracepoint *tp,
		      struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(PROVIDER_TRACEPOINT, point);
	struct strbuf sb = { 0 };

	if (tp->system)
		sb_addf(&sb, "kernel.trace(\"%s:%s\")", tp->system, tp->name);
	else
		sb_addf(&sb, "kernel.trace(\"%s\")", tp->name);
	add_marks(&sb, point);
	free(d->pp);
	d->pp = sb_steal(&sb);
	free(d->function);
	d->function = xstrdup(tp->name);
	d->nargs = tp->nargs;
	add_derived_point(tail, d);
}

/* stap's "no match (similar tracepoints: a, b)". */
static void no_match(const struct probe_point *point, const struct tracepoints *t,
		     const char *name)
{
	const char **names = xcalloc(t->count + 1, sizeof(*names));
	char *similar, *reason;

	for (size_t i = 0; i < t->count; i++)
		names[i] = t->items[i].name;
	similar = similar_names(name, names, t->count);
	if (*similar)
		reason = xasprintf("no match (similar tracepoints: %s", similar + strlen(" (similar: "));
	else
		reason = xstrdup("no match");
	provider_refuse(point, reason);
	free(reason);
	free(similar);
	free(names);
}

bool derive_kernel_trace(const struct probe_point *point, const struct component *trace,
			 const struct provider_env *env, struct derived_point ***tail)
{
	const struct tracepoints *t;
	char *pattern = xstrdup(component_string(trace));
	char *name = strchr(pattern, ':');
	const char *system = NULL;
	size_t found = 0;

	if (trace->next) {
		provider_invalid_suffix(point, trace->next);
		free(pattern);
		return false;
	}
	t = env && env->tracepoints ? env->tracepoints(env->ctx) : NULL;
	if (!t) {
		provider_resolving(point);
		free(pattern);
		return false;
	}
	if (name) {
		*name++ = '\0';
		system = pattern;
	} else {
		name = pattern;
	}
	for (size_t i = 0; i < t->count; i++)
		if (!t->items[i].by_value && matches(&t->items[i], system, name)) {
			add_point(point, &t->items[i], tail);
			found++;
		}
	if (!found)
		no_match(point, t, name);
	free(pattern);
	return found > 0;
}
