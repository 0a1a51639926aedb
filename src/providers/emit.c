// SPDX-License-Identifier: GPL-2.0-or-later
/* The emitters (emit.h) and the handler text they share. */
#include "providers/emit.h"

const struct point_emitter *const point_emitters[] = {
	&emitter_kprobes,
	&emitter_uprobes,
	&emitter_tracepoints,
	&emitter_timers,
	&emitter_been,
	&emitter_procfs,
	NULL,
};

const struct point_emitter *point_emitter_of(enum provider_kind kind)
{
	for (int i = 0; point_emitters[i]; i++)
		if (EMITTER_OWNS(point_emitters[i], kind))
			return point_emitters[i];
	return NULL;
}

void emit_run(struct strbuf *sb, int probe, bool entry, const char *before, const char *after)
{
	if (entry)
		sb_addf(sb, "\tif (!c)\n\t\treturn 1;\t/* no return probe for this call */\n"
			"%s\tprobe_%d_entry(c);\n%s\ttap_context_exit(c);\n", before, probe, after);
	else
		sb_addf(sb, "\tif (c) {\n%s\t\tprobe_%d(c);\n%s\t\ttap_context_exit(c);\n\t}\n",
			before, probe, after);
}

void emit_handler(struct strbuf *sb, int probe, const struct handler_text *h)
{
	sb_addf(sb, "\tstruct tap_context *c = tap_context_enter(%s, regs, TAP_RUNNING);\n%s\n",
		h->pp, h->locals);
	emit_run(sb, probe, h->entry, h->before, h->after);
	sb_add(sb, h->end);
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
