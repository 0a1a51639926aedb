// SPDX-License-Identifier: GPL-2.0-or-later
/* The emitters (emit.h) and the handler text they share. */
#include "providers/emit.h"

#include <stdlib.h>

const struct point_emitter *const point_emitters[] = {
	&emitter_kprobes,
	&emitter_uprobes,
	&emitter_tracepoints,
	&emitter_timers,
	&emitter_been,
	&emitter_perf,
	&emitter_procfs,
	&emitter_netfilter,
	&emitter_hwbkpt,
	&emitter_process_events,
	NULL,
};

const struct point_emitter *point_emitter_of(enum provider_kind kind)
{
	for (int i = 0; point_emitters[i]; i++)
		if (EMITTER_OWNS(point_emitters[i], kind))
			return point_emitters[i];
	return NULL;
}

/* The program's points that are not begin/end/error probes. */
static int count_points(const struct program *program)
{
	int points = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next)
			if (!provider_is_session(d->kind))
				points++;
	return points;
}

bool emit_irqs_off(const struct program *program)
{
	return count_points(program) > 1;
}

bool emit_outlined(const struct program *program)
{
	return count_points(program) >= EMIT_OUTLINE_MIN;
}

void emit_enter(struct emit_ctx *ctx, const char *pp, const char *regs, bool preempt)
{
	const char *quiet = ctx->quiet ? "_quiet" : "";

	if (ctx->irqs_off)
		sb_addf(ctx->points, "\tunsigned long flags;\n\tstruct tap_context *c =\n"
			"\t\ttap_context_enter%s_irqsave%s(%s, %s, TAP_RUNNING, &flags);\n", quiet,
			ctx->outlined ? "_outlined" : "", pp, regs);
	else if (preempt)
		sb_addf(ctx->points, "\tstruct tap_context *c;\n\n\tpreempt_disable_notrace();\n"
			"\tc = tap_context_enter%s(%s, %s, TAP_RUNNING);\n", quiet, pp, regs);
	else
		sb_addf(ctx->points, "\tstruct tap_context *c = tap_context_enter%s(%s, %s, TAP_RUNNING);\n",
			quiet, pp, regs);
}

void emit_run(struct emit_ctx *ctx, int probe, bool entry, bool preempt, const char *before,
	      const char *after)
{
	char *exit = xasprintf("tap_context_exit%s%s", ctx->quiet ? "_quiet" : "",
			       !ctx->irqs_off ? "(c)" : ctx->outlined ?
			       "_irqrestore_outlined(c, flags)" : "_irqrestore(c, flags)");

	if (entry && !preempt)
		sb_addf(ctx->points, "\tif (!c)\n\t\treturn 1;\t/* no return probe for this call */\n"
			"%s\tprobe_%d_entry(c);\n%s\t%s;\n", before, probe, after, exit);
	else
		sb_addf(ctx->points, "\tif (c) {\n%s\t\tprobe_%d%s(c);\n%s\t\t%s;\n\t}\n",
			before, probe, entry ? "_entry" : "", after, exit);
	free(exit);
}

static void emit_leave(struct emit_ctx *ctx, bool preempt)
{
	if (preempt && !ctx->irqs_off)
		sb_add(ctx->points, "\tpreempt_enable_notrace();\n");
}

void emit_handler(struct emit_ctx *ctx, int probe, const struct handler_text *h)
{
	emit_enter(ctx, h->pp, h->regs ? h->regs : "regs", h->preempt);
	sb_addf(ctx->points, "%s\n", h->locals);
	emit_run(ctx, probe, h->entry, h->preempt, h->before, h->after);
	emit_leave(ctx, h->preempt);
	sb_add(ctx->points, h->end);
}

void emit_write_counts(const struct point_emitter *e, const void *state, FILE *out)
{
	if (e->count_macro)
		fprintf(out, "#define %s %d\n", e->count_macro,
			((const struct emit_one_table *)state)->count);
	else
		e->write_counts(state, out);
}

void emit_write_tables(const struct point_emitter *e, const void *state, FILE *out)
{
	const struct emit_one_table *t = state;

	if (e->count_macro)
		emit_table(out, e->table_decl, t->count, &t->entries);
	else
		e->write_tables(state, out);
}

void emit_release_state(const struct point_emitter *e, void *state)
{
	if (e->count_macro)
		free(((struct emit_one_table *)state)->entries.buf);
	else
		e->release(state);
}

void emit_table(FILE *out, const char *decl, int count, const struct strbuf *entries)
{
	if (count)
		fprintf(out, "%s[] = {\n%s};\n\n", decl, entries->buf);
}

char *emit_module(const struct emit_ctx *ctx, const struct derived_point *d)
{
	return *d->module ? ctx->c_string(d->module) : xstrdup("NULL");
}
