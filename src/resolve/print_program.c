// SPDX-License-Identifier: GPL-2.0-or-later
/* -p2: the elaborated program in stap's layout. */
#include "parse/parse.h"
#include "resolve/program.h"
#include "util.h"

/* stap shows a global and a function by the names they have in the generated C. */
static char *generated_name(const struct node *n)
{
	if (n->kind == N_IDENT) {
		const struct var *v = n->sym;

		if (!v || !v->global)
			return NULL;
		return v->global->is_private ? xstrdup(v->c_name) :
		       xasprintf("__global_%s", v->name);
	}
	if (n->kind == N_CALL && n->sym) {
		const struct used_function *u = n->sym;

		return xstrdup(u->c_name);
	}
	return NULL;
}

/* A body as stap shows it: within "{ " and " }". */
static void print_body(FILE *out, const struct node *body)
{
	fputs("{ ", out);
	print_stmt(out, body);
	fputs(" }\n", out);
}

/* The locals of `scope`, after `first` (NULL-terminated names of long locals, or NULL). */
static void print_scope_locals(FILE *out, const struct scope *scope, char *const *first)
{
	bool any = false;

	for (; first && *first; first++) {
		if (!any)
			fputs("  # locals\n", out);
		any = true;
		fprintf(out, "  %s:long\n", *first);
	}
	for (const struct var *v = scope->vars; v; v = v->next) {
		if (v->is_param)
			continue;
		if (!any)
			fputs("  # locals\n", out);
		any = true;
		fprintf(out, "  %s:%s\n", v->name, type_name(v->type));
	}
}

/* "b[10]:string [string, long]" for an array, "x:long" for a scalar. */
static void print_global(FILE *out, const struct var *v, bool verbose)
{
	fputs(v->name, out);
	if (v->global && v->global->wrap)
		fputc('%', out);
	if (v->global && v->global->max_entries)
		fprintf(out, "[%lld]", (long long)v->global->max_entries);
	fprintf(out, ":%s", type_name(v->type));
	if (verbose && v->global && v->global->init) {
		fputs(" = ", out);
		print_expr(out, v->global->init);
	}
	for (int i = 0; i < v->arity; i++)
		fprintf(out, "%s%s", i ? ", " : " [", type_name(v->key_types[i]));
	fputs(v->arity ? "]\n" : "\n", out);
}

static void print_function(FILE *out, const struct used_function *f, bool verbose)
{
	const struct var *p = f->scope.vars;

	fprintf(out, "%s:%s (", f->function->name, type_name(f->ret == TYPE_VOID ? TYPE_UNKNOWN : f->ret));
	for (bool first = true; p && p->is_param; p = p->next, first = false)
		fprintf(out, "%s%s:%s", first ? "" : ", ", p->name, type_name(p->type));
	fputs(")\n", out);
	print_scope_locals(out, &f->scope, NULL);
	if (!verbose)
		return;
	if (f->function->body)
		print_body(out, f->function->body);
	else
		fprintf(out, "{ %%{%s%%} }\n", f->function->embedded);
}

/* " if (cond)" after a point, or nothing. */
static void print_condition(FILE *out, const struct node *cond)
{
	if (!cond)
		return;
	fputs(" if (", out);
	print_expr(out, cond);
	fputc(')', out);
}

char *probe_condition_text(const struct node *cond)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return xstrdup("");
	print_set_namer(generated_name);
	print_condition(out, cond);
	print_set_namer(NULL);
	fclose(out);
	return text;
}

static void print_probe(FILE *out, const struct derived_probe *p, bool verbose)
{
	/* stap derives one probe per point, each with its own copy of the body. */
	for (const struct derived_point *d = p->points; d; d = d->next) {
		fputs(d->pp, out);
		print_condition(out, p->cond);
		fprintf(out, "%s /* <- %s", d->comment, d->origin);
		/* A condition written on the point itself: shown again after it. */
		if (!p->via_alias)
			print_condition(out, p->cond);
		fputs(" */\n", out);
		print_scope_locals(out, &p->scope, d->synth_locals);
		if (verbose)
			print_body(out, p->body);
	}
}

void print_program(FILE *out, const struct program *program, bool verbose)
{
	print_set_namer(generated_name);
	if (program->globals)
		fputs("# globals\n", out);
	for (const struct var *v = program->globals; v; v = v->next)
		print_global(out, v, verbose);
	if (program->functions)
		fputs("# functions\n", out);
	for (const struct used_function *f = program->functions; f; f = f->next)
		print_function(out, f, verbose);
	synth_functions_print(out, program, !program->functions);
	if (program->probes)
		fputs("# probes\n", out);
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		print_probe(out, p, verbose);
	print_set_namer(NULL);
}
