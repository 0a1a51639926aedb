// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace("name"): a tracepoint of the kernel, attached with
 * tracepoint_probe_register() (runtime/tracepoints.h). The name may be a wildcard, and may
 * name the subsystem first, as stap has it: kernel.trace("sched:sched_process_*"). The
 * points derived show the subsystem: kernel.trace("sched:sched_process_fork"); a
 * wildcard's, in the order of the tracepoints' names (stap's order is its own). A
 * tracepoint of a loadable module is one too, as in stap: a wildcard matches them, and
 * so does a name vmlinux does not have; its types come from the module's BTF.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "target/tracepoints.h"
#include "util.h"

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
	if (tp->module) {
		free(d->module);
		d->module = xstrdup(tp->module);
	}
	add_derived_point(tail, d);
}

struct matches {
	const struct tracepoint **items;
	size_t count;
};

static void add_match(struct matches *m, const struct tracepoint *tp)
{
	m->items = xrealloc(m->items, (m->count + 1) * sizeof(*m->items));
	m->items[m->count++] = tp;
}

static int compare_matches(const void *a, const void *b)
{
	const struct tracepoint *x = *(const struct tracepoint *const *)a;
	const struct tracepoint *y = *(const struct tracepoint *const *)b;
	int cmp = strcmp(x->name, y->name);

	return cmp ? cmp : strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

static bool has_wildcard(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

/* Whether `system` is one name (no wildcard) that some of the kernel's own tracepoints
 * have: a pattern within it needs no module that is not known already. */
static bool kernel_has_system(const struct tracepoints *t, const char *system)
{
	if (!system || has_wildcard(system))
		return false;
	for (size_t i = 0; i < t->count; i++)
		if (t->items[i].system && !strcmp(t->items[i].system, system))
			return true;
	return false;
}

/* The modules' tracepoints that match, their types read from each module's BTF; with
 * `fetch`, from the target's modules even where they have not been fetched yet. */
static void match_modules(const struct provider_env *env, const char *system,
			  const char *name, bool fetch, struct matches *m)
{
	struct tracepoints *t = env->module_tracepoints ?
		env->module_tracepoints(env->ctx, fetch) : NULL;

	for (size_t i = 0; t && i < t->module_count; i++) {
		struct module_tracepoint *mt = &t->module_items[i];
		const struct ktypes *kt;
		const struct tracepoint *tp;
		const char *error;

		if (!matches(&mt->tp, system, name))
			continue;
		kt = env->module_types ? env->module_types(env->ctx, mt->tp.module, &error) : NULL;
		tp = tracepoints_read_module(t, mt, kt);
		if (tp)
			add_match(m, tp);
	}
}

/* stap's "no match (similar tracepoints: a, b)": the point's string as written, against the
 * tracepoints the trace headers name (those of its system, when it names one), each
 * measured as the name of stap's query function for it. */
static void no_match(const struct probe_point *point, const struct tracepoints *t,
		     const char *written, const char *system)
{
	const char **names = xcalloc(t->count + t->module_count + 1, sizeof(*names));
	size_t count = 0;
	char *similar;

	for (size_t i = 0; i < t->count + t->module_count; i++) {
		const struct tracepoint *tp = i < t->count ? &t->items[i] :
					      &t->module_items[i - t->count].tp;

		if (tp->system && (!system || !fnmatch(system, tp->system, 0)))
			names[count++] = tp->name;
	}
	similar = similar_names_as(written, names, count, "stapprobe_");
	provider_no_match(point, similar, "tracepoints", "tracepoints");
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
	struct matches found = { 0 };

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
		if (!t->items[i].by_value && matches(&t->items[i], system, name))
			add_match(&found, &t->items[i]);
	if (!found.count || has_wildcard(name) || (system && has_wildcard(system)))
		match_modules(env, system, name, !found.count || !kernel_has_system(t, system),
			      &found);
	if (found.count)
		qsort(found.items, found.count, sizeof(*found.items), compare_matches);
	for (size_t i = 0; i < found.count; i++)
		add_point(point, found.items[i], tail);
	if (!found.count)
		no_match(point, t, component_string(trace), system);
	free(found.items);
	free(pattern);
	return found.count > 0;
}

/* ---- Pass 3: runtime/tracepoints.h's table ---- */

/*
 * A handler of the tracepoint's prototype (its data pointer, then each argument in a 64-bit
 * register or stack slot, which holds any of them on x86_64) that keeps the arguments in
 * the context for tap_arg().
 */
static void tracepoint_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			     const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;
	char *name = ctx->c_string(d->function);
	char *module = emit_module(ctx, d);
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	struct strbuf *out = ctx->points;

	sb_addf(out, "static void tap_trace_%d(void *data", pp);
	for (int i = 0; i < d->nargs; i++)
		sb_addf(out, ", u64 a%d", i);
	sb_addf(out, ")\n{\n\tu64 args[] = { 0");
	for (int i = 0; i < d->nargs; i++)
		sb_addf(out, ", a%d", i);
	sb_add(out, " };\n");
	emit_handler(ctx, p->index, &(struct handler_text){ descriptor, "", false,
		"\t\tc->trace_args = args + 1;\n", "\t\tc->trace_args = NULL;\n", "}\n\n", true,
		"NULL" });
	sb_addf(&s->entries, "\t{ .name = %s, .module = %s, .handler = (void *)tap_trace_%d,"
		" .pp = &tap_pp_%d },\n", name, module, pp, pp);
	s->count++;
	free(name);
	free(module);
	free(descriptor);
}

static const char *trace_type_name(const struct derived_point *d)
{
	(void)d;
	return "tracepoint";
}

const struct point_emitter emitter_tracepoints = {
	.kinds = 1u << PROVIDER_TRACEPOINT,
	.type_name = trace_type_name,
	.state_size = sizeof(struct emit_one_table),
	.runtime_header = "tracepoints.h",
	.point = tracepoint_point,
	.count_macro = "TAP_NUM_TRACEPOINTS",
	.table_decl = "static struct tap_tracepoint tap_tracepoints",
};
