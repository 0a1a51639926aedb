// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -l/-L: pass 2's listing of the probe points a pattern derives, with -L their variables
 * and types, as stap lists them; --dump-probe-aliases and --dump-functions, the library's
 * public aliases and functions.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse/parse.h"
#include "resolve/elaborate.h"
#include "resolve/listing.h"
#include "resolve/program.h"
#include "resolve/target_vars.h"
#include "target/tracepoints.h"
#include "util.h"

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -L of an SDT marker: its arguments, " $arg1:long $arg2:long". */
static char *mark_list_args(const struct derived_point *d)
{
	struct strbuf sb = { 0 };
	int count = mark_arg_count(d->mark_args);

	for (int i = 1; i <= count; i++)
		sb_addf(&sb, " $arg%d:long", i);
	return sb.buf;
}

/* -L: a kernel or module function's point with its parameters (none for kprobe.*) (and $return) and their types. */
/* A point as -l lists it: placed from DWARF, a perf or kernel.data point, as written
 * (stap lists perf.type(1).config(2) without its default period, kernel.data(1).write
 * without its length); else as pp() shows it. */
static const char *listed_point(const struct derived_point *d)
{
	if (d->listed)	/* process("PATH").mark("NAME"), placed at its address */
		return d->listed;
	return d->pc || d->kind == PROVIDER_PERF || d->kind == PROVIDER_HWBKPT ? d->origin :
									       d->pp;
}

static char *point_with_vars(const struct provider_env *env, const struct derived_point *d)
{
	const struct ktypes *kt;
	char *vars = NULL, *text;
	const char *error;

	if ((d->kind == PROVIDER_KPROBE || d->kind == PROVIDER_KRETPROBE) && *d->function &&
	    !d->address && d->mid_function && d->scope_die && !*d->module &&
	    (kt = env->types(env->ctx)))
		vars = target_list_point_vars(kt, d);
	else if ((d->kind == PROVIDER_KPROBE || d->kind == PROVIDER_KRETPROBE) && *d->function &&
		 !d->address && !d->mid_function && !target_point_is_kprobe(d) &&
		 (kt = *d->module ? env->module_types(env->ctx, d->module, &error) :
				    env->types(env->ctx)))
		vars = target_list_params(kt, d->function, d->kind == PROVIDER_KRETPROBE);
	else if ((d->kind == PROVIDER_UPROBE || d->kind == PROVIDER_URETPROBE) && d->user_file &&
		 env->user_types && (kt = env->user_types(env->ctx, d->user_file)))
		vars = d->mid_function ? target_list_point_vars(kt, d) :
			target_list_params(kt, d->function, d->kind == PROVIDER_URETPROBE);
	else if (d->kind == PROVIDER_TRACEPOINT)
		vars = trace_list_args(env, d);
	else if (d->kind == PROVIDER_UMARK)
		vars = mark_list_args(d);
	else if (d->kind == PROVIDER_PROCESS_EVENT)	/* stap lists these at every event */
		vars = xstrdup(" $syscall:long $arg1:long $arg2:long $arg3:long $arg4:long"
			       " $arg5:long $arg6:long");
	/* A callee is listed as stap lists it: CALLER.callee("g@file:N"). */
	text = xasprintf("%s%s", listed_point(d), vars ? vars : "");
	free(vars);
	return text;
}

/* -L of a probe through an alias, as stap: the alias's name, its variables with their
 * types (" name:string fd:long", in the order the alias first names them), then the target
 * variables of the point it derived first. */
static char *alias_with_vars(const struct provider_env *env, const struct derived_probe *p)
{
	struct strbuf sb = { 0 };
	char *point = point_with_vars(env, p->points);

	sb_add(&sb, p->listed_name);
	for (const struct var *v = p->scope.vars; v; v = v->next)
		if (v->type == TYPE_LONG || v->type == TYPE_STRING)
			sb_addf(&sb, " %s:%s", v->name, type_name(v->type));
	sb_add(&sb, point + strlen(listed_point(p->points)));
	free(point);
	return sb.buf;
}

/* -L's entry: its text, how much of it names the point, and the order it was derived in. */
struct listed_point {
	const char *text;
	size_t point_len;
	size_t order;
};

/* By the point named, then one with variables first, then in the order derived. */
static int compare_listed(const void *a, const void *b)
{
	const struct listed_point *x = a, *y = b;
	size_t len = x->point_len < y->point_len ? x->point_len : y->point_len;
	int diff = strncmp(x->text, y->text, len);

	if (diff)
		return diff;
	if (x->point_len != y->point_len)
		return x->point_len < y->point_len ? -1 : 1;
	if (!x->text[x->point_len] != !y->text[y->point_len])
		return x->text[x->point_len] ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Each point once, as stap lists it: the first derived of those with variables (the
 * instances of an inlined function may differ in their locals), sorted. */
static size_t once_per_point(struct listed_point *entries, size_t count, const char **pps)
{
	size_t kept = 0;

	qsort(entries, count, sizeof(*entries), compare_listed);
	for (size_t i = 0; i < count; i++)
		if (!i || entries[i].point_len != entries[i - 1].point_len ||
		    strncmp(entries[i].text, entries[i - 1].text, entries[i].point_len))
			pps[kept++] = entries[i].text;
	qsort(pps, kept, sizeof(*pps), compare_strings);
	return kept;
}

/* Whether the derived probe is a library file's own plain probe (one that came with the
 * file's use), which stap does not list. */
static bool from_library(const struct derived_probe *p, const struct file *library)
{
	for (const struct file *f = library; f; f = f->next)
		if (p->probe && p->probe->loc.source == f->source)
			return true;
	return false;
}

/* -l/-L: the probe points the pattern derives, sorted, once each; status 1 and no
 * message when there is none, as in stap. */
int list_probe_points(struct file *user, struct file *library,
		      const struct provider_env *env, bool with_vars)
{
	struct program program;
	int saved_stderr = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	const char **pps = NULL;
	struct listed_point *entries = NULL;
	size_t count = 0;
	int errors;

	fflush(stderr);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	errors = elaborate(user, library, env, false, &program);
	fflush(stderr);
	if (saved_stderr >= 0)
		dup2(saved_stderr, STDERR_FILENO);
	if (errors)
		return 1;
	for (struct derived_probe *p = program.probes; p; p = p->next) {
		if (from_library(p, library))
			continue;
		if (p->listed_name) {	/* through an alias: its name, once */
			pps = xrealloc(pps, (count + 1) * sizeof(*pps));
			entries = xrealloc(entries, (count + 1) * sizeof(*entries));
			pps[count] = with_vars ? alias_with_vars(env, p) : p->listed_name;
			entries[count] = (struct listed_point){ pps[count], strlen(pps[count]),
								count };
			count++;
			continue;
		}
		for (struct derived_point *d = p->points; d; d = d->next) {
			const char *point = listed_point(d);

			pps = xrealloc(pps, (count + 1) * sizeof(*pps));
			entries = xrealloc(entries, (count + 1) * sizeof(*entries));
			pps[count] = with_vars ? point_with_vars(env, d) : point;
			entries[count] = (struct listed_point){ pps[count], strlen(point), count };
			count++;
		}
	}
	if (with_vars)
		count = once_per_point(entries, count, pps);
	else
		qsort(pps, count, sizeof(*pps), compare_strings);
	free(entries);
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(pps[i]), next = i + 1;

		/* A point listed with its variables (an out-of-line copy) hides the same point
		 * without (an inlined instance, whose variables need DWARF). */
		while (next < count && !strcmp(pps[next], pps[i]))
			next++;
		if (next < count && !strncmp(pps[i], pps[next], len) && pps[next][len] == ' ')
			continue;
		if (!i || strcmp(pps[i], pps[i - 1]))
			puts(pps[i]);
	}
	free(pps);
	return 0;
}

/* ---- --dump-probe-aliases and --dump-functions ---- */

static char *alias_line(const struct probe *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	for (int i = 0; i < p->aliases.len; i++) {
		if (i)
			fputs(" = ", out);
		print_probe_point(out, p->aliases.items[i]);
	}
	fputs(p->kind == PROBE_ALIAS_EPILOGUE ? " += " :
	      p->kind == PROBE_ALIAS_SUBTRACT ? " -= " : " = ", out);
	for (int i = 0; i < p->points.len; i++) {
		if (i)
			fputs(", ", out);
		print_probe_point(out, p->points.items[i]);
	}
	fclose(out);
	return text;
}

/* Prints the lines sorted, each once, and frees them; returns 0. A line "KEY\001TEXT" is
 * sorted by KEY and printed as TEXT. */
static int print_sorted_once(char **lines, size_t count)
{
	qsort(lines, count, sizeof(*lines), compare_strings);
	for (size_t i = 0; i < count; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			puts(strchr(lines[i], '\001') ? strchr(lines[i], '\001') + 1 : lines[i]);
	for (size_t i = 0; i < count; i++)
		free(lines[i]);
	free(lines);
	return 0;
}

int dump_probe_aliases(const struct file *library)
{
	char **lines = NULL;
	size_t count = 0;

	for (const struct file *f = library; f; f = f->next)
		for (const struct probe *p = f->probes; p; p = p->next) {
			if (p->kind == PROBE_PLAIN || p->is_private)
				continue;
			char *line = alias_line(p);

			/* As stap: the library's own aliases, named with '_', are left out. */
			if (*line == '_') {
				free(line);
				continue;
			}
			lines = xrealloc(lines, (count + 1) * sizeof(*lines));
			lines[count++] = line;
		}
	return print_sorted_once(lines, count);
}

static const char *dumped_type(enum type type)
{
	return type == TYPE_VOID ? "unknown" : type_name(type);
}

int dump_functions(struct file *library, const struct provider_env *env)
{
	struct program program = { .tapsets = library };
	struct file user = { .source = NULL };
	struct elab e = { .program = &program, .env = env };
	int saved_stderr = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char **lines = NULL;
	size_t count = 0;

	program.user = &user;
	e.globals_tail = &program.globals;
	/* Every public function, typed from its own body and its callees' (no caller gives
	 * its parameters a type); what does not resolve stays "unknown". Silenced. */
	fflush(stderr);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	for (struct file *f = library; f; f = f->next)
		for (struct function *fn = f->functions; fn; fn = fn->next)
			if (!fn->is_private && fn->name[0] != '_')
				use_function(&e, fn);
	infer_program(&e);
	fflush(stderr);
	if (saved_stderr >= 0)
		dup2(saved_stderr, STDERR_FILENO);
	for (struct used_function *u = program.functions; u; u = u->next) {
		const struct function *fn = u->function;
		char *text = NULL;
		size_t len = 0;
		FILE *out;
		int i = 0;

		if (fn->is_private || fn->name[0] == '_')
			continue;
		out = open_memstream(&text, &len);
		/* By their names in the generated C, as stap's table of functions holds them
		 * ("__global_NAME__overload_N": AF_INET6 before AF_INET, the overloads of a
		 * name in the order they were read). */
		fprintf(out, "%s\001%s:%s (", u->c_name, fn->name, dumped_type(u->ret));
		for (const struct var *v = u->scope.vars; v && i < fn->nparams; v = v->next, i++)
			fprintf(out, "%s%s:%s", i ? ", " : "", v->name, dumped_type(v->type));
		fputc(')', out);
		fclose(out);
		lines = xrealloc(lines, (count + 1) * sizeof(*lines));
		lines[count++] = text;
	}
	return print_sorted_once(lines, count);
}
