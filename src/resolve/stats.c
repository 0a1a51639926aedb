// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: what each statistics global keeps beyond its count, sum, min and max. Its
 * @hist_log / @hist_linear uses declare one histogram, the same at every use; its
 * @variance uses one bit shift (0 to 62, 0 when left out). Stap reads function bodies
 * before probe bodies, and reports the first use that disagrees with those before it.
 * Statistics are globals only.
 */
#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "diag.h"
#include "resolve/elaborate.h"
#include "util.h"

#define MAX_BIT_SHIFT 62

/* The statistics global an operand names: s, or a[k] of an array a. */
static struct var *stat_var(const struct node *operand)
{
	if (operand->kind == N_INDEX)
		operand = operand->lhs;
	return operand->kind == N_IDENT ? operand->sym : NULL;
}

static void stat_error(const struct node *n, char *message)
{
	char *text = xasprintf("@%s", n->text);
	struct token_desc tok = { "operator", text };

	diag_error_at("semantic error", &tok, n->loc, "%s", message);
	free(text);
	free(message);
}

struct declared {
	const struct var **hist_seen, **shift_seen;	/* globals with one declared */
	int nhist, nshift;
	const struct var **failed;	/* globals with an error reported: one each */
	int nfailed;
};

static bool listed(const struct var **list, int n, const struct var *v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

static void add(const struct var ***list, int *n, const struct var *v)
{
	*list = xrealloc(*list, (size_t)(*n + 1) * sizeof(**list));
	(*list)[(*n)++] = v;
}

static bool same_hist(const struct var *v, const struct node *n, enum hist_kind kind)
{
	if (v->hist != kind)
		return false;
	return kind == HIST_LOG || (v->hist_start == n->args.items[0]->num &&
				    v->hist_stop == n->args.items[1]->num &&
				    v->hist_interval == n->args.items[2]->num);
}

static void declare_hist(struct declared *d, const struct node *n, struct var *v)
{
	enum hist_kind kind = n->args.len ? HIST_LINEAR : HIST_LOG;

	if (listed(d->hist_seen, d->nhist, v)) {
		if (!same_hist(v, n, kind) && !listed(d->failed, d->nfailed, v)) {
			stat_error(n, xasprintf("multiple histogram types declared on '__global_%s'",
						v->name));
			add(&d->failed, &d->nfailed, v);
		}
		return;
	}
	add(&d->hist_seen, &d->nhist, v);
	v->hist = kind;
	if (kind == HIST_LINEAR) {
		v->hist_start = n->args.items[0]->num;
		v->hist_stop = n->args.items[1]->num;
		v->hist_interval = n->args.items[2]->num;
	}
}

static void declare_shift(struct declared *d, const struct node *n, struct var *v)
{
	int64_t shift = n->args.len ? n->args.items[0]->num : 0;

	if (listed(d->failed, d->nfailed, v))
		return;
	if (shift < 0 || shift > MAX_BIT_SHIFT) {
		stat_error(n, xasprintf("bit shift (%lld) out of range <0..%d>", (long long)shift,
					MAX_BIT_SHIFT));
		add(&d->failed, &d->nfailed, v);
	} else if (listed(d->shift_seen, d->nshift, v) && v->variance_shift != shift) {
		stat_error(n, xasprintf("conflicting bit shifts declared (previously %lld)",
					(long long)v->variance_shift));
		add(&d->failed, &d->nfailed, v);
	} else if (!listed(d->shift_seen, d->nshift, v)) {
		add(&d->shift_seen, &d->nshift, v);
		v->variance = true;
		v->variance_shift = shift;
	}
}

static bool declare(const struct node *n, void *ctx)
{
	struct var *v;

	if (n->kind == N_FOREACH && n->foreach->sort_aggregate &&
	    !strcmp(n->foreach->sort_aggregate, "variance") && n->foreach->array->kind == N_IDENT) {
		v = n->foreach->array->sym;
		if (v && v->global)
			v->variance = true;	/* with the shift declared elsewhere, or 0 */
	}
	if (n->kind != N_HIST && !(n->kind == N_STATOP && !strcmp(n->text, "variance")))
		return false;
	v = stat_var(n->lhs);
	if (!v || !v->global || v->type != TYPE_STATS)
		return false;
	if (n->kind == N_HIST)
		declare_hist(ctx, n, v);
	else
		declare_shift(ctx, n, v);
	return false;
}

/* A use of the foreach value `ctx` names: reported as stap reports a variable of no type
 * (three times over; all but the first are counted as suppressed). */
static bool report_untyped_use(const struct node *n, void *ctx)
{
	const struct node *value = ctx;

	if (n != value && n->kind == N_IDENT && n->sym == value->sym) {
		struct token_desc tok = { "identifier", n->text };

		for (int i = 0; i < 3; i++)
			diag_error_at("semantic error", &tok, n->loc, "unresolved type ");
	}
	return false;
}

/* foreach (v = [k] in a) over statistics: stap gives v no type (its value would be an
 * aggregate): that error, then v's uses and v itself as untyped; v is then no stat local. */
static bool refuse_stat_foreach_value(const struct node *n, void *ctx)
{
	const struct node *value = n->kind == N_FOREACH ? n->foreach->value : NULL;
	const struct node *body = ctx;
	struct var *v = value ? value->sym : NULL;

	if (v && v->type == TYPE_STATS && !v->global) {
		struct token_desc tok = { "identifier", v->name };

		diag_error_at("semantic error", &tok, value->loc, "invalid type stats");
		node_any(body, report_untyped_use, (void *)value);
		diag_error_at("semantic error", &tok, v->loc, "unresolved type ");
		v->type = TYPE_UNKNOWN;
	}
	return false;
}

/* stap keeps no statistics in locals. */
static void refuse_stat_locals(const struct scope *scope)
{
	for (const struct var *v = scope->vars; v; v = v->next) {
		struct token_desc tok = { "identifier", v->name };

		if (v->type == TYPE_STATS && !v->global)
			diag_error_at("semantic error", &tok, v->loc,
				      "stat locals not supported, missing global declaration? ");
	}
}

void check_stat_uses(struct elab *e)
{
	struct declared d = { 0 };

	for (struct used_function *f = e->program->functions; f; f = f->next) {
		node_any(f->function->body, refuse_stat_foreach_value, f->function->body);
		refuse_stat_locals(&f->scope);
		node_any(f->function->body, declare, &d);
	}
	for (struct derived_probe *p = e->program->probes; p; p = p->next) {
		node_any(p->body, refuse_stat_foreach_value, p->body);
		refuse_stat_locals(&p->scope);
		node_any(p->body, declare, &d);
	}
	free(d.hist_seen);
	free(d.shift_seen);
	free(d.failed);
}
