// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: a global of the script that probes write and nothing reads is printed when the
 * session ends, as stap does it: one end probe per such global, in the order of the
 * declarations, with stap's formats:
 *
 *     x=5                          a long
 *     str="hi"                     a string
 *     a["k",2]=3                   an array, by value, largest first
 *     s @count=3 @min=1 ...        an aggregate ("s @count=0x0" when empty)
 *
 * The probes are written as script text and parsed, so that they are elaborated like any
 * other.
 */
#include "resolve/autoprint.h"

#include <stdlib.h>
#include <string.h>

#include "parse/parse.h"
#include "util.h"

struct usage {
	const struct var **written, **read;
	int nwritten, nread;
};

static void add_var(const struct var ***list, int *n, const struct var *v)
{
	*list = xrealloc(*list, (size_t)(*n + 1) * sizeof(**list));
	(*list)[(*n)++] = v;
}

static bool in_list(const struct var *const *list, int n, const struct var *v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

static void note(struct usage *u, const struct node *n, bool write)
{
	const struct var *v = n && n->kind == N_IDENT ? n->sym : NULL;

	if (v && v->global)
		add_var(write ? &u->written : &u->read, write ? &u->nwritten : &u->nread, v);
}

static void walk(struct usage *u, const struct node *n);

static void walk_list(struct usage *u, const struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		walk(u, list->items[i]);
}

/* The target of an assignment, ++ or <<<: written, not read (stap counts `x += 1` and
 * `a[k]++` as writes only); its keys are read. */
static void walk_target(struct usage *u, const struct node *target)
{
	if (target->kind == N_INDEX) {
		note(u, target->lhs, true);
		walk_list(u, &target->args);
	} else {
		note(u, target, true);
	}
}

/* An assignment, ++ or <<< whose value nothing uses: an expression statement, or a for
 * loop's first or third part. */
static void walk_effect(struct usage *u, const struct node *n)
{
	if (n && (n->kind == N_ASSIGN || n->kind == N_PREINC || n->kind == N_POSTINC)) {
		walk_target(u, n->lhs);
		walk(u, n->rhs);
	} else {
		walk(u, n);
	}
}

/* The variable of a target: x, or the array of a[k]. */
static const struct node *target_var(const struct node *target)
{
	return target->kind == N_INDEX ? target->lhs : target;
}

static void walk(struct usage *u, const struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_IDENT:
		note(u, n, false);
		return;
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		/* Its value used, x++ and x += y read x (`if (!x++)`), as in stap; x = y does not. */
		walk_effect(u, n);
		if (n->kind != N_ASSIGN || (n->op != '=' && n->op != OP_STATS_ADD))
			note(u, target_var(n->lhs), false);
		return;
	case N_EXPR_STMT:
		walk_effect(u, n->lhs);
		return;
	case N_FOR:
		walk_effect(u, n->init);
		walk(u, n->cond);
		walk_effect(u, n->inc);
		walk(u, n->then);
		return;
	case N_FOREACH:
		note(u, n->foreach->array, false);
		walk(u, n->foreach->array);
		walk(u, n->foreach->limit);
		walk_list(u, &n->foreach->slice);
		walk(u, n->foreach->body);
		return;
	default:
		break;
	}
	/* Anything else that names a variable reads it: a[k], k in a, delete a, @count(s). */
	walk(u, n->lhs);
	walk(u, n->rhs);
	walk(u, n->cond);
	walk(u, n->then);
	walk(u, n->els);
	walk(u, n->init);
	walk(u, n->inc);
	walk_list(u, &n->args);
	walk_list(u, &n->body);
}

/* The printf conversion of a value of `type` and how its text is wrapped. */
static const char *conversion(enum type type)
{
	return type == TYPE_STRING ? "\\\"%#s\\\"" : "%d";
}

static const char *key_conversion(enum type type)
{
	return type == TYPE_STRING ? "\\\"%#s\\\"" : "%#d";
}

/* The printf format and arguments of an aggregate's five numbers. */
static const char stat_format[] = " @count=%#d @min=%#d @max=%#d @sum=%#d @avg=%#d\\n";

static char *stat_args(const char *stat)
{
	return xasprintf("@count(%s), @min(%s), @max(%s), @sum(%s), @avg(%s)", stat, stat, stat,
			 stat, stat);
}

/* The statement that prints `v` with `print` ("printf(" or "$value .= sprintf("), as
 * script text; an array's first `limit` elements only, when limit > 0. */
static void add_print_text(struct strbuf *out, const struct var *v, const char *print, int limit)
{
	struct strbuf sb = { 0 }, keys = { 0 }, formats = { 0 };
	char *limit_text = limit > 0 ? xasprintf(" limit %d", limit) : xstrdup("");

	for (int i = 0; i < v->arity; i++) {
		sb_addf(&keys, "%s__idx%d", i ? ", " : "", i);
		sb_addf(&formats, "%s%s", i ? "," : "", key_conversion(v->key_types[i]));
	}
	if (!v->arity && v->type == TYPE_STATS) {
		char *args = stat_args(v->name);

		sb_addf(&sb, "if (@count(%s) == 0) %s\"%s @count=0x0\\n\") else "
			"%s\"%s%s\", %s)", v->name, print, v->name, print, v->name, stat_format,
			args);
		free(args);
	} else if (!v->arity) {
		sb_addf(&sb, "%s\"%s=%s\\n\", %s)", print, v->name, conversion(v->type), v->name);
	} else if (v->type == TYPE_STATS) {
		char *element = xasprintf("%s[%s]", v->name, keys.buf);
		char *args = stat_args(element);

		sb_addf(&sb, "foreach ([%s] in %s-%s) %s\"%s[%s]%s\", %s, %s)", keys.buf,
			v->name, limit_text, print, v->name, formats.buf, stat_format, keys.buf, args);
		free(element);
		free(args);
	} else {
		sb_addf(&sb, "foreach (__val = [%s] in %s-%s) %s\"%s[%s]=%s\\n\", %s, __val)",
			keys.buf, v->name, limit_text, print, v->name, formats.buf,
			conversion(v->type), keys.buf);
	}
	sb_add(out, sb.buf);
	free(sb.buf);
	free(keys.buf);
	free(formats.buf);
	free(limit_text);
}

/* The end probe that prints `v`, as script text. */
static char *print_probe_text(const struct var *v)
{
	struct strbuf sb = { 0 };

	sb_add(&sb, "probe end { ");
	add_print_text(&sb, v, "printf(", 0);
	sb_add(&sb, " }\n");
	return sb_steal(&sb);
}

const struct var **autoprint_select(const struct program *program, int *count)
{
	struct usage u = { 0 };
	const struct var **selected = NULL;

	*count = 0;
	for (const struct used_function *f = program->functions; f; f = f->next)
		walk(&u, f->function->body);
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		walk(&u, p->body);
	/* In the order of the script's declarations. */
	for (const struct global *g = program->user->globals; g; g = g->next)
		for (const struct var *v = program->globals; v; v = v->next)
			if (v->global == g && in_list(u.written, u.nwritten, v) &&
			    !in_list(u.read, u.nread, v))
				add_var(&selected, count, v);
	free(u.written);
	free(u.read);
	return selected;
}

static struct probe *parse_probes(const char *name, const char *text)
{
	struct parse_options options = { .arch = "x86_64" };
	struct file *file = parse_source(source_from_text(name, text), &options);

	return file ? file->probes : NULL;
}

/*
 * --monitor: the read probe of procfs file MONITOR_PROCFS_PATH, which gives the loader the
 * script's globals for its screen, one line each as at the end (an array's first
 * MONITOR_ARRAY_ELEMENTS elements, largest first).
 */
struct probe *autoprint_monitor_probe(const struct program *program)
{
	struct strbuf text = { 0 };
	struct probe *probe;

	sb_addf(&text, "probe procfs(\"%s\").read.maxsize(%d) { $value = \"\"; ",
		MONITOR_PROCFS_PATH, MONITOR_PROCFS_SIZE);
	for (const struct global *g = program->user->globals; g; g = g->next)
		for (const struct var *v = program->globals; v; v = v->next)
			if (v->global == g) {
				add_print_text(&text, v, "$value .= sprintf(", MONITOR_ARRAY_ELEMENTS);
				sb_add(&text, "; ");
			}
	sb_add(&text, "}\n");
	probe = parse_probes("<monitor>", text.buf);
	free(text.buf);
	return probe;
}

struct probe *autoprint_probes(const struct var *const *vars, int count)
{
	struct strbuf text = { 0 };
	struct probe *probes = NULL;

	for (int i = 0; i < count; i++) {
		char *probe = print_probe_text(vars[i]);

		sb_add(&text, probe);
		free(probe);
	}
	if (text.buf)
		probes = parse_probes("<autoprint>", text.buf);
	free(text.buf);
	return probes;
}
