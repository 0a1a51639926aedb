// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * @perf("NAME") in a probe on process("PATH").function points: the value of the counter
 * of a perf point `....counter("NAME")` derived before the probe (stap's order), of the
 * same PATH or without .process. As in stap, it becomes the probe's local
 * __perf_read_NAME, which the handler sets from the counter as the probe is hit, before
 * the body runs (runtime/perf.h's tap_perf_read(): reading a counter may sleep, which a
 * uprobe's handler can); -p2 shows it so. Elsewhere (other points, functions) @perf stays
 * as written, which pass 3 refuses as stap's pass 3 does. A counter that is not there is
 * stap's "perf counter 'NAME' not defined", and the point's "no match".
 */
#include "resolve/target_vars.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "providers/providers.h"
#include "target/usyms.h"
#include "util.h"

/* A counter NAME derived before, for the file `path`. */
static bool counter_defined(const struct program *program, const char *name, const char *path)
{
	for (const struct derived_probe *q = program->probes; q; q = q->next)
		for (const struct derived_point *d = q->points; d; d = d->next)
			if (d->kind == PROVIDER_PERF && d->perf_counter &&
			    !strcmp(d->perf_counter, name) &&
			    (!d->perf_process || !strcmp(d->perf_process, path)))
				return true;
	return false;
}

/* The function pattern of a written process("PATH").function("F") point, or NULL. */
static const char *function_pattern(const struct probe_point *point)
{
	for (const struct component *c = point->components; c; c = c->next)
		if (!strcmp(c->name, "function") && c->arg && c->arg->kind == N_STRING)
			return c->arg->text;
	return NULL;
}

/* stap's errors, once a probe: for each written point the counter's, and the point's "no
 * match" with the file's functions nearest its pattern (those of the second point on are
 * similar messages, suppressed without -v; stap -v shows their "while resolving" alone). */
static void report_undefined(struct derived_probe *p, const char *name, const char *path)
{
	size_t count = 0;
	struct ufunc *funcs;
	const char **names;

	if (p->perf_refused)
		return;
	p->perf_refused = true;
	funcs = usyms_functions(path, &count);
	names = xcalloc(count + 1, sizeof(*names));
	for (size_t i = 0; i < count; i++)
		names[i] = funcs[i].name;
	for (int i = 0; i < p->probe->points.len; i++) {
		const struct probe_point *point = p->probe->points.items[i];
		const char *pattern = function_pattern(point);
		char *similar = pattern ? similar_names(pattern, names, count) : xstrdup("");

		diag_error("semantic error", "perf counter '%s' not defined\n", name);
		provider_no_match(point, similar, "functions", "functions");
		free(similar);
	}
	free(names);
	if (funcs)
		usyms_free_functions(funcs, count);
}

static void note_read(struct derived_probe *p, const char *name)
{
	for (int i = 0; i < p->nperf_reads; i++)
		if (!strcmp(p->perf_reads[i], name))
			return;
	p->perf_reads = xrealloc(p->perf_reads, (size_t)(p->nperf_reads + 1) *
				 sizeof(*p->perf_reads));
	p->perf_reads[p->nperf_reads++] = xstrdup(name);
}

bool perf_read_resolve(const struct program *program, struct derived_probe *p, struct node *n)
{
	const char *name = n->lhs && n->lhs->kind == N_STRING ? n->lhs->text : NULL;

	if (!name || !on_uprobes(p))
		return false;	/* stays @perf: pass 3's error */
	for (const struct derived_point *d = p->points; d; d = d->next) {
		if (!counter_defined(program, name, d->symbol)) {
			report_undefined(p, name, d->symbol);
			return true;
		}
	}
	note_read(p, name);
	n->kind = N_IDENT;
	n->text = xasprintf("__perf_read_%s", name);
	n->lhs = NULL;
	return true;
}
