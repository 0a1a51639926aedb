// SPDX-License-Identifier: GPL-2.0-or-later
/* -p2: the elaborated program in stap's layout. */
#include <stdlib.h>
#include <string.h>

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

/* The locals of `scope`, after those of `first` and `second` (each "name:type",
 * NULL-terminated, or NULL). */
static void print_scope_locals(FILE *out, const struct scope *scope, char *const *first,
			       char *const *second)
{
	bool any = false;

	for (int i = 0; i < 2; i++)
		for (char *const *l = i ? second : first; l && *l; l++) {
			if (!any)
				fputs("  # locals\n", out);
			any = true;
			fprintf(out, "  %s\n", *l);
		}
	for (const struct var *v = scope ? scope->vars : NULL; v; v = v->next) {
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
	print_scope_locals(out, &f->scope, NULL, NULL);
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

static void print_point(FILE *out, const struct derived_probe *p, const struct derived_point *d,
			const char *pp)
{
	fputs(pp, out);
	print_condition(out, p->cond);
	fprintf(out, "%s /* <- %s", d->comment, d->origin);
	/* A condition written on the point itself: shown again after it. */
	if (!p->via_alias)
		print_condition(out, p->cond);
	fputs(" */\n", out);
}

static void free_strings(char **list)
{
	for (char **l = list; l && *l; l++)
		free(*l);
	free(list);
}

static void print_probe(FILE *out, const struct derived_probe *p, bool verbose)
{
	int point = 0;

	/* stap derives one probe per point, each with its own copy of the body; a return
	 * point that saves values at the entry has its ".call" point first. */
	for (const struct derived_point *d = p->points; d; d = d->next, point++) {
		char *call = synth_entry_call_point(p, d);
		char **locals;

		if (call) {
			print_point(out, p, d, call);
			locals = synth_entry_locals(p, point, true);
			print_scope_locals(out, NULL, locals, NULL);
			free_strings(locals);
			free(call);
		}
		print_point(out, p, d, d->pp);
		locals = synth_entry_locals(p, point, false);
		print_scope_locals(out, &p->scope, locals, d->synth_locals);
		free_strings(locals);
		if (verbose)
			print_body(out, p->body);
	}
}

/* The order of the function listed as `line` ("name:type (params)") and function `name`. */
static int compare_listed_name(const char *line, const char *name)
{
	size_t len = strcspn(line, ":");
	int order = strncmp(line, name, len);

	return order ? order : -(int)(unsigned char)name[len];
}

void print_program(FILE *out, const struct program *program, bool verbose)
{
	const struct derived_probe *saving = program->probes;
	const char *saved[SYNTH_ENTRY_FUNCTIONS];
	int nsaved = synth_entry_functions(program, saved), i = 0;
	bool entries = false;

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		entries |= p->synth_count[SYNTH_ENTRIES] > 0;
	print_set_namer(generated_name);
	if (program->globals || entries)
		fputs("# globals\n", out);
	/* stap's globals of a probe's @entry(...) come before those it names first. */
	for (const struct var *v = program->globals; v; v = v->next) {
		for (; saving && saving->index < v->probes_before; saving = saving->next)
			synth_entry_globals_print(out, saving);
		print_global(out, v, verbose);
	}
	for (; saving; saving = saving->next)
		synth_entry_globals_print(out, saving);
	if (program->functions || nsaved)
		fputs("# functions\n", out);
	/* The library functions of stap's saving at the entry, where the program has none. */
	for (const struct used_function *f = program->functions; f; f = f->next) {
		for (; i < nsaved && compare_listed_name(saved[i], f->function->name) <= 0; i++)
			if (compare_listed_name(saved[i], f->function->name))
				fprintf(out, "%s\n", saved[i]);
		print_function(out, f, verbose);
	}
	for (; i < nsaved; i++)
		fprintf(out, "%s\n", saved[i]);
	synth_functions_print(out, program, !program->functions && !nsaved);
	if (program->probes)
		fputs("# probes\n", out);
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		print_probe(out, p, verbose);
	print_set_namer(NULL);
}
