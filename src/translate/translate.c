// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: the module's layout. In order, the generated C file holds: the counts the runtime
 * needs, the globals, one frame struct per probe body and function (its locals and
 * temporaries) and their union, the runtime, the script functions, the probe bodies, one
 * small handler per probe point, the probe tables, and the runtime's module init/exit.
 */
#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "diag.h"
#include "translate/locks.h"
#include "translate/shards.h"
#include "providers/emit.h"
#include "providers/providers.h"
#include "translate/regex_table.h"
#include "session.h"
#include "resolve/target_vars.h"
#include "translate/translate.h"
#include "target/usyms.h"
#include "util.h"

/* A generated function with its frame. */
struct unit {
	char *name;		/* function_f, probe_0 */
	struct strbuf fields;	/* the frame's members */
	char *code;		/* the C function(s) */
	char *prototype;	/* a function's declaration, without the ';'; NULL for probes */
	struct unit *next;
};

struct module {
	struct session *session;
	struct program *program;
	FILE *out;
	struct unit *units, **units_tail;
	int npoints;		/* tap_pp_N descriptors */
	struct strbuf points;	/* probe-point descriptors and handlers */
	struct emit_ctx emit;	/* what the providers' emitters see (providers/emit.h) */
	void **emit_states;	/* each emitter's own, by point_emitters[] */
	int nconditions;	/* conditional probes on kprobes (runtime/kprobes.h) */
	const struct var **condition_globals;	/* the globals their conditions read */
	int ncondition_globals;
	struct regex_table regexes;	/* the patterns of =~ and !~ */
};

static struct unit *add_unit(struct module *m, char *name, struct strbuf *fields, char *code)
{
	struct unit *u = xcalloc(1, sizeof(*u));

	u->name = name;
	u->fields = *fields;
	u->code = code;
	*m->units_tail = u;
	m->units_tail = &u->next;
	return u;
}

static void add_field(struct strbuf *fields, enum type type, const char *name)
{
	if (type == TYPE_STATS)
		sb_addf(fields, "\tstruct tap_stat %s;\n", name);
	else if (type == TYPE_STRING)
		sb_addf(fields, "\tchar %s[MAXSTRINGLEN];\n", name);
	else
		sb_addf(fields, "\tint64_t %s;\n", name);
}

static void scope_fields(struct strbuf *fields, const struct scope *scope)
{
	for (struct var *v = scope->vars; v; v = v->next) {
		char *name = xasprintf("v_%s", v->name);

		add_field(fields, v->type, name);
		free(name);
	}
}

/* Locals start at 0 and "" on each entry, as in stap; parameters come from the caller. */
static void init_locals(struct strbuf *code, const struct scope *scope)
{
	for (struct var *v = scope->vars; v; v = v->next) {
		if (v->is_param)
			continue;
		if (v->type == TYPE_STATS)
			sb_addf(code, "\tmemset(&l->v_%s, 0, sizeof(l->v_%s));\n", v->name, v->name);
		else if (v->type == TYPE_STRING)
			sb_addf(code, "\tl->v_%s[0] = '\\0';\n", v->name);
		else
			sb_addf(code, "\tl->v_%s = 0;\n", v->name);
	}
}

/* The locals of @perf("NAME"): the counters' values the handler read (c->point_data, in the
 * order of p->perf_reads; runtime/perf.h). */
static void init_perf_reads(struct strbuf *code, const struct derived_probe *p)
{
	for (int i = 0; i < p->nperf_reads; i++) {
		char *name = xasprintf("__perf_read_%s", p->perf_reads[i]);

		for (struct var *v = p->scope.vars; v; v = v->next)
			if (!strcmp(v->name, name))
				sb_addf(code, "\tl->v_%s = ((const int64_t *)c->point_data)[%d];\n",
					name, i);
		free(name);
	}
}

/* Script text (a file name, a probe point) made safe inside a C comment: no "*" "/" to end
 * it early, no "/" "*" for gcc's -Wcomment. */
static char *comment_text(const char *s)
{
	struct strbuf sb = { 0 };

	for (; *s; s++) {
		sb_addc(&sb, *s);
		if ((s[0] == '*' && s[1] == '/') || (s[0] == '/' && s[1] == '*'))
			sb_addc(&sb, '\\');
	}
	return sb_steal(&sb);
}

static char *source_comment(const char *what, struct loc loc)
{
	char *safe_what = comment_text(what);
	char *safe_name = comment_text(loc.source ? loc.source->name : "?");
	char *comment = xasprintf("/* %s at %s:%d:%d */\n", safe_what, safe_name, loc.line,
				  loc.col);

	free(safe_what);
	free(safe_name);
	return comment;
}

/* ---- Functions ---- */

static void embedded_function(struct strbuf *code, const struct used_function *f)
{
	const struct function *fn = f->function;

	sb_add(code, "#define CONTEXT c\n#define STAP_RETVALUE l->retvalue\n");
	if (f->ret == TYPE_LONG)
		sb_add(code, "#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)\n");
	else if (f->ret == TYPE_STRING)
		sb_add(code, "#define STAP_RETURN(v) do { strscpy(STAP_RETVALUE, (v),"
			     " sizeof(STAP_RETVALUE)); goto out; } while (0)\n");
	sb_add(code, "#define STAP_ERROR(...) do { tap_embedded_error(c, __VA_ARGS__);"
		     " goto out; } while (0)\n"
		     "#define STAP_PRINTF(...) tap_embedded_printf(c, __VA_ARGS__)\n");
	for (struct var *p = f->scope.vars; p && p->is_param; p = p->next)
		sb_addf(code, "#define STAP_ARG_%s l->v_%s\n", p->name, p->name);
	sb_addf(code, "\t{\n%s\n\t}\n", fn->embedded);
	/* stap's kread()/kwrite() ... (runtime/loc2c.h) jump to deref_fault on a fault. */
	sb_add(code, "\tgoto out;\nderef_fault: __attribute__((unused));\n"
		     "out: __attribute__((unused));\n");
	sb_add(code, "#undef CONTEXT\n#undef STAP_RETVALUE\n#undef STAP_ERROR\n#undef STAP_PRINTF\n");
	if (f->ret == TYPE_LONG || f->ret == TYPE_STRING)
		sb_add(code, "#undef STAP_RETURN\n");
	for (struct var *p = f->scope.vars; p && p->is_param; p = p->next)
		sb_addf(code, "#undef STAP_ARG_%s\n", p->name);
}

/* Declares the body's numeric temporaries (C locals) at byte `at` of `code`, after the
 * function's other declarations, and forgets them. */
static void declare_c_locals(struct strbuf *code, size_t at, struct body *b)
{
	size_t tail = code->len - at;
	char *rest;

	if (!b->c_locals.len)
		return;
	rest = xstrndup(code->buf + at, tail);
	code->len = at;
	sb_add(code, b->c_locals.buf);
	sb_addn(code, rest, tail);
	free(rest);
	free(b->c_locals.buf);
	b->c_locals = (struct strbuf){ 0 };
}

static void translate_function(struct module *m, struct used_function *f)
{
	const char *name = f->c_name;
	struct body b = { .function = f, .indent = 1, .condition_globals = m->condition_globals,
			  .ncondition_globals = m->ncondition_globals, .regexes = &m->regexes };
	struct strbuf code = { 0 };
	char *comment = source_comment(f->function->body ? "function" : "embedded function",
				       f->function->loc);

	b.sink = &b.code;
	scope_fields(&b.fields, &f->scope);
	if (f->ret == TYPE_LONG || f->ret == TYPE_STRING)
		add_field(&b.fields, f->ret, "retvalue");
	sb_add(&code, comment);
	char *prototype = frameless(f) ?
		xasprintf("static void function_%s(struct tap_context *c,\n"
			  "\t\t\tstruct frame_function_%s *l)", name, name) :
		xasprintf("static void function_%s(struct tap_context *c)", name);

	sb_addf(&code, "%s\n{\n", prototype);
	if (frameless(f))
		sb_add(&code, "\t(void)c;\n");
	else
		sb_addf(&code, "\tstruct frame_function_%s *l = &c->frames[c->nesting].function_%s;\n",
			name, name);
	size_t decl_at = code.len;

	sb_add(&code, "\n\t(void)l;\n");
	/* A function's value is "" or 0 unless it sets one, embedded C included. */
	if (f->ret == TYPE_STRING)
		sb_add(&code, "\tl->retvalue[0] = '\\0';\n");
	else if (f->ret == TYPE_LONG)
		sb_add(&code, "\tl->retvalue = 0;\n");
	if (f->function->body) {
		init_locals(&code, &f->scope);
		gen_stmt(&b, f->function->body);
		sb_add(&code, b.code.buf ? b.code.buf : "");
		declare_c_locals(&code, decl_at, &b);
		sb_add(&code, "out: __attribute__((unused));\n\t;\n");
	} else {
		embedded_function(&code, f);
	}
	sb_add(&code, "}\n\n");
	add_unit(m, xasprintf("function_%s", name), &b.fields, sb_steal(&code))->prototype =
		prototype;
	free(b.code.buf);
	free(comment);
}

/* ---- Probes ---- */

/* ---- The locks of a probe body (locks.c) ---- */

/* Emits the table of the locks `plan` holds, named NAME, into `code`; the body takes them
 * (lock_globals) and gives them back (unlock_globals). */
static void plan_locks(struct body *b, struct strbuf *code, const char *name,
		       struct lock_plan plan)
{
	struct strbuf merges = { 0 };

	free(b->locks);
	free(b->merges);
	b->locks = NULL;
	b->nlocks = 0;
	for (int i = 0; i < plan.len; i++)
		b->nlocks += plan.uses[i].locked;
	/* A sharded global's parts merged into it, once its lock is held (shards.h). */
	for (int i = 0; i < plan.len; i++) {
		const struct var *g = plan.uses[i].global;

		if (!plan.uses[i].locked || !g->sharded)
			continue;
		if (g->arity)
			sb_addf(&merges, "\ttap_smap_merge(&tap_sm_%s);\n", g->c_name);
		else
			sb_addf(&merges, "\ttap_sscalar_merge(&tap_g_%s, tap_ss_%s);\n", g->c_name,
				g->c_name);
	}
	b->merges = sb_steal(&merges);
	if (b->nlocks) {
		b->locks = xstrdup(name);
		sb_addf(code, "static const struct tap_lock_use %s[] = {\n", name);
		for (int i = 0; i < plan.len; i++)
			if (plan.uses[i].locked)
				sb_addf(code, "\t{ &tap_lock_%s, %s },\n",
					plan.uses[i].global->c_name,
					plan.uses[i].write ? "true" : "false");
		sb_add(code, "};\n\n");
	}
	/* A probe that may change a global some kprobe condition reads (the plan says which)
	 * looks at the conditions again after its body. */
	b->writes_conditions = false;
	for (int i = 0; i < plan.len; i++)
		for (int k = 0; plan.uses[i].changes && k < b->ncondition_globals; k++)
			if (b->condition_globals[k] == plan.uses[i].global)
				b->writes_conditions = true;
	lock_plan_free(&plan);
}

/* A probe body that uses globals holds their locks throughout (runtime/globals.h); the
 * others, on the hot path of a kprobe say, take none. */
static void lock_globals(const struct body *b, struct strbuf *code)
{
	if (b->locks)
		sb_addf(code, "\tif (!tap_lock_all(%s, %d))\n\t\treturn;\n", b->locks, b->nlocks);
	if (b->merges)
		sb_add(code, b->merges);
}

static void unlock_globals(const struct body *b, struct strbuf *code)
{
	if (b->locks)
		sb_addf(code, "\ttap_unlock_all(%s, %d);\n", b->locks, b->nlocks);
}

/* Conditional probes on kprobes: the runtime disables the kprobes of a probe whose
 * condition is false, and enables them all again after a probe that may change one. */
static bool kprobe_conditional(const struct derived_probe *p)
{
	if (!p->cond)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next) {
		const struct point_emitter *e = point_emitter_of(d->kind);

		if (e && e->conditional)
			return true;
	}
	return false;
}

/* Its number among them, from 1; 0 for any other probe. */
static int condition_id(const struct module *m, const struct derived_probe *p)
{
	int id = 0;

	if (!kprobe_conditional(p))
		return 0;
	for (const struct derived_probe *q = m->program->probes; q; q = q->next) {
		id += kprobe_conditional(q);
		if (q == p)
			return id;
	}
	return 0;
}

static bool collect_condition_global(const struct node *n, void *ctx)
{
	struct module *m = ctx;
	const struct var *v = n->kind == N_IDENT ? n->sym : NULL;

	if (v && v->global) {
		for (int i = 0; i < m->ncondition_globals; i++)
			if (m->condition_globals[i] == v)
				return false;
		m->condition_globals = xrealloc(m->condition_globals, sizeof(*m->condition_globals) *
						(size_t)(m->ncondition_globals + 1));
		m->condition_globals[m->ncondition_globals++] = v;
	}
	return false;
}

static void collect_conditions(struct module *m)
{
	for (const struct derived_probe *p = m->program->probes; p; p = p->next) {
		if (kprobe_conditional(p)) {
			m->nconditions++;
			node_any(p->cond, collect_condition_global, m);
		}
	}
}

static void probe_body(struct module *m, struct derived_probe *p, struct body *b,
		       struct strbuf *code)
{
	int condition = condition_id(m, p);	/* its guard disarms it (gen_stmt's N_NEXT) */
	sb_addf(code, "static void probe_%d(struct tap_context *c)\n{\n", p->index);
	/* A probe body runs at nesting level 0. */
	sb_addf(code, "\tstruct frame_probe_%d *l = &c->frames[0].probe_%d;\n",
		p->index, p->index);
	/* Its @entry values, which the optimizer may have left unused. */
	if (p->entries.len)
		sb_addf(code, "\tstruct probe_%d_entry *e = (struct probe_%d_entry *)c->entry_data;\n",
			p->index, p->index);
	size_t decl_at = code->len;

	if (p->entries.len)
		sb_add(code, "\t(void)e;\n");
	sb_add(code, "\n\t(void)l;\n");
	init_locals(code, &p->scope);
	init_perf_reads(code, p);
	lock_globals(b, code);
	b->condition = condition;
	gen_stmt(b, p->body);
	sb_add(code, b->code.buf ? b->code.buf : "");
	declare_c_locals(code, decl_at, b);
	sb_add(code, "out: __attribute__((unused));\n");
	unlock_globals(b, code);
	if (b->writes_conditions)
		sb_add(code, "\tif (c->conditions_changed) {\n\t\tc->conditions_changed = 0;\n"
			"\t\ttap_conditions_changed();\n\t}\n");
	sb_add(code, "\t;\n}\n\n");
}

/* The @entry values of a return probe, computed when the function is entered. */
static void probe_entry_handler(struct derived_probe *p, struct body *b, struct strbuf *code)
{
	sb_addf(code, "struct probe_%d_entry {\n", p->index);
	for (int i = 0; i < p->entries.len; i++) {
		char *name = xasprintf("entry%d", i);

		add_field(code, p->entries.items[i]->type, name);
		free(name);
	}
	sb_add(code, "};\n\n");
	free(b->code.buf);
	b->code = (struct strbuf){ 0 };
	b->in_entry_handler = true;
	for (int i = 0; i < p->entries.len; i++) {
		struct node *entry = p->entries.items[i];
		char *value = gen_expr(b, entry->lhs);

		if (entry->type == TYPE_STRING)
			emit(b, "tap_strcpy(e->entry%d, %s);", i, value);
		else
			emit(b, "e->entry%d = %s;", i, value);
		free(value);
	}
	sb_addf(code, "static void probe_%d_entry(struct tap_context *c)\n{\n", p->index);
	sb_addf(code, "\tstruct frame_probe_%d *l = &c->frames[0].probe_%d;\n",
		p->index, p->index);
	sb_addf(code, "\tstruct probe_%d_entry *e = (struct probe_%d_entry *)c->entry_data;\n",
		p->index, p->index);
	declare_c_locals(code, code->len, b);
	sb_add(code, "\n\t(void)l;\n");
	init_locals(code, &p->scope);
	lock_globals(b, code);
	sb_add(code, b->code.buf ? b->code.buf : "");
	sb_add(code, "\tgoto out;\nout: __attribute__((unused));\n");
	unlock_globals(b, code);
	sb_add(code, "\t;\n}\n\n");
	b->in_entry_handler = false;
}

/* The session's -D defines `name`. */
static bool user_defined(const struct session *s, const char *name)
{
	for (int i = 0; i < s->ndefines; i++)
		if (!strcmp(s->defines[i].name, name))
			return true;
	return false;
}

/* -t (or -DSTP_TIMING): the module times its probe points' hits, as stap's. */
static bool timing_build(const struct session *s)
{
	return user_defined(s, "STP_TIMING");
}

/* A point's index in stap's list of the program's probe points: in probe order. */
static int point_index(const struct program *program, const struct derived_point *point)
{
	int index = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next, index++)
			if (d == point)
				return index;
	return -1;
}

/* probe_type() of a point, as its emitter names it. */
static const char *point_type_name(const struct derived_point *d)
{
	const struct point_emitter *e = point_emitter_of(d->kind);

	return e && e->type_name ? e->type_name(d) : "";
}

/* A point's pp() is stap's: its text, then its probe's condition, if any. */
static int add_point_descriptor(struct module *m, const struct derived_probe *p,
				const struct derived_point *d)
{
	char *condition = probe_condition_text(p->cond);
	char *text = xasprintf("%s%s", d->pp, condition);
	char *pp = c_string_literal(text);
	char *func = c_string_literal(d->function);
	/* pn(): through an alias, the alias's name as -l lists it; else the point itself */
	char *pn = c_string_literal(p->listed_name ? p->listed_name : d->pp);
	int id = m->npoints++, point = 0;

	for (const struct derived_point *e = p->points; e && e != d; e = e->next)
		point++;
	sb_addf(&m->points, "static const struct tap_probe_point tap_pp_%d = {\n", id);
	sb_addf(&m->points, "\t.pp = %s,\n\t.pn = %s,\n\t.func = %s,\n\t.type = \"%s\",\n"
		"\t.point = %d,\n", pp, pn, func, point_type_name(d), point);
	if (timing_build(m->session))
		sb_addf(&m->points, "\t.index = %d,\n", point_index(m->program, d));
	sb_add(&m->points, "};\n\n");
	free(pp);
	free(pn);
	free(text);
	free(condition);
	free(func);
	return id;
}

/* ---- The providers' emitters (providers/emit.h) ---- */

static int emit_descriptor(struct emit_ctx *ctx, const struct derived_probe *p,
			   const struct derived_point *d)
{
	return add_point_descriptor(ctx->translate, p, d);
}

static void emit_start(struct module *m)
{
	size_t n = 0;

	while (point_emitters[n])
		n++;
	m->emit = (struct emit_ctx){ .program = m->program, .session = m->session,
				     .points = &m->points,
				     .descriptor = emit_descriptor, .c_string = c_string_literal,
				     .irqs_off = emit_irqs_off(m->program),
				     .outlined = emit_outlined(m->program), .translate = m };
	m->emit_states = xcalloc(n, sizeof(*m->emit_states));
	for (size_t i = 0; i < n; i++)
		m->emit_states[i] = xcalloc(1, point_emitters[i]->state_size);
}

/* A probe's points, each with its descriptor, given to the emitters of their kinds. */
static void emit_points(struct module *m, const struct derived_probe *p)
{
	m->emit.condition = condition_id(m, p);
	for (int i = 0; point_emitters[i]; i++)
		if (point_emitters[i]->probe_start)
			point_emitters[i]->probe_start(&m->emit, m->emit_states[i], p);
	for (const struct derived_point *d = p->points; d; d = d->next) {
		int pp = add_point_descriptor(m, p, d);

		for (int i = 0; point_emitters[i]; i++)
			if (EMITTER_OWNS(point_emitters[i], d->kind) && point_emitters[i]->point)
				point_emitters[i]->point(&m->emit, m->emit_states[i], p, d, pp);
	}
	for (int i = 0; point_emitters[i]; i++)
		if (point_emitters[i]->probe_end)
			point_emitters[i]->probe_end(&m->emit, m->emit_states[i], p);
}

static void emit_module_end(struct module *m)
{
	for (int i = 0; point_emitters[i]; i++)
		if (point_emitters[i]->module_end)
			point_emitters[i]->module_end(&m->emit, m->emit_states[i]);
}

static void emit_release(struct module *m)
{
	for (int i = 0; point_emitters[i]; i++) {
		emit_release_state(point_emitters[i], m->emit_states[i]);
		free(m->emit_states[i]);
	}
	free(m->emit_states);
}

/* A function a quiet body may call: one definition, of embedded C that cannot fail and
 * prints nothing (gettimeofday_ns(), cpu()...). */
static bool quiet_function(const struct used_function *f)
{
	return cannot_fail(f) && !f->next_overload &&
	       !names_identifier(f->function->embedded, "STAP_PRINTF");
}

/* A node that a quiet body may not hold: anything but numbers, numeric and statistics
 * variables, arithmetic, comparisons and assignments on them that cannot fail, and calls of
 * quiet functions (`ctx`, the module: not with -DMAXNESTING, which could make a call fail,
 * nor with the script's own top-level C, whose macros could reach the context). */
static bool loud_node(const struct node *n, void *ctx)
{
	const struct module *m = ctx;

	switch (n->kind) {
	case N_CALL:
		return user_defined(m->session, "MAXNESTING") || m->program->nembeds ||
		       !quiet_function(n->sym);
	case N_BLOCK:
	case N_NULL:
	case N_EXPR_STMT:
	case N_NUMBER:
	case N_PREINC:
	case N_POSTINC:
	case N_ENTRY:
		return false;
	case N_IDENT:
		return n->type != TYPE_LONG && n->type != TYPE_STATS;
	case N_UNARY:
		return n->op == '&';
	case N_BINARY:
		return n->op == '/' || n->op == '%' || n->op == OP_MATCH || n->op == OP_NOMATCH ||
		       n->lhs->type != TYPE_LONG || n->rhs->type != TYPE_LONG;
	case N_ASSIGN:
		return n->op == OP_ASSIGN_BASE + '/' || n->op == OP_ASSIGN_BASE + '%';
	default:
		return true;
	}
}

/*
 * A quiet probe: its body and @entry values print nothing, cannot fail, charge no MAXACTION,
 * take no lock and read nothing of the context but their frame (no target variable, only
 * quiet functions), so its handlers take the context and give it back, and nothing more
 * (runtime/context.h's tap_context_enter_quiet()): n++ on a kprobe costs what a
 * hand-written kprobe's counter does, and the taking.
 */
static bool quiet_probe(const struct module *m, const struct derived_probe *p,
			const struct body *b, bool locks)
{
	if (locks || b->charged_actions || b->writes_conditions || p->cond ||
	    node_any(p->body, loud_node, (void *)m))
		return false;
	for (int i = 0; i < p->entries.len; i++)
		if (node_any(p->entries.items[i], loud_node, (void *)m))
			return false;
	return true;
}

static void translate_probe(struct module *m, struct derived_probe *p)
{
	struct body b = { .probe = p, .indent = 1, .condition_globals = m->condition_globals,
			  .ncondition_globals = m->ncondition_globals, .regexes = &m->regexes };
	struct strbuf code = { 0 };
	struct derived_point *first = p->points;
	char *what = xasprintf("probe %s", first->origin);
	char *comment = source_comment(what, p->probe->loc);
	bool entry_locks = false;

	b.sink = &b.code;
	scope_fields(&b.fields, &p->scope);
	if (p->entries.len) {
		char *name = xasprintf("probe_%d_entry_locks", p->index);

		plan_locks(&b, &code, name, lock_plan_for(m->program, NULL, &p->entries));
		free(name);
		entry_locks = b.locks != NULL;
		probe_entry_handler(p, &b, &code);
	}
	char *locks = xasprintf("probe_%d_locks", p->index);

	plan_locks(&b, &code, locks, lock_plan_for(m->program, p->body, NULL));
	free(locks);
	free(b.code.buf);
	b.code = (struct strbuf){ 0 };
	sb_add(&code, comment);
	probe_body(m, p, &b, &code);
	m->emit.quiet = quiet_probe(m, p, &b, entry_locks || b.locks);
	emit_points(m, p);
	m->emit.quiet = false;
	add_unit(m, xasprintf("probe_%d", p->index), &b.fields, sb_steal(&code));
	free(b.code.buf);
	free(b.locks);
	free(b.merges);
	free(what);
	free(comment);
}

/* ---- The file ---- */

/* An array: its layout, its map, and the lines that make and free it. */
static void write_array(struct module *m, const struct var *v, struct strbuf *init,
			struct strbuf *release)
{
	fprintf(m->out, "static const struct tap_map_desc tap_md_%s = {\n\t.nkeys = %d,\n"
		"\t.string_key = {", v->c_name, v->arity);
	for (int i = 0; i < v->arity; i++)
		fprintf(m->out, " %s,", v->key_types[i] == TYPE_STRING ? "true" : "false");
	fprintf(m->out, " },\n\t.string_value = %s,\n\t.stat_value = %s,\n\t.max_entries = %lld,\n"
		"\t.wrap = %s,\n", v->type == TYPE_STRING ? "true" : "false",
		v->type == TYPE_STATS ? "true" : "false", (long long)v->global->max_entries,
		v->global->wrap ? "true" : "false");
	/* stap's words for a full array name its limit: the declared size, or the macro. */
	if (v->global->max_entries > 0)
		fprintf(m->out, "\t.overflow = \"Array overflow, check size limit (%lld)\",\n",
			(long long)v->global->max_entries);
	else
		fputs("\t.overflow = \"Array overflow, check MAXMAPENTRIES\",\n", m->out);
	if (v->variance)
		fprintf(m->out, "\t.stat_variance = true,\n\t.variance_shift = %d,\n",
			(int)v->variance_shift);
	if (v->hist != HIST_NONE)
		fprintf(m->out, "\t.hist = &tap_h_%s,\n", v->c_name);
	if (v->shard_assigns)
		fputs("\t.shard_assigns = true,\n", m->out);
	fputs("};\n", m->out);
	fprintf(m->out, "static struct tap_map tap_m_%s;\n", v->c_name);
	sb_addf(init, "\tif (tap_map_init(&tap_m_%s, &tap_md_%s))\n\t\treturn -ENOMEM;\n", v->c_name,
		v->c_name);
	sb_addf(release, "\ttap_map_free(&tap_m_%s);\n", v->c_name);
	/* A sharded array: its updates' shards (shards.h), merged into tap_m_. */
	if (v->sharded) {
		fprintf(m->out, "static struct tap_smap tap_sm_%s;\n", v->c_name);
		sb_addf(init, "\tif (tap_smap_init(&tap_sm_%s, &tap_m_%s, &tap_lock_%s))\n"
			"\t\treturn -ENOMEM;\n", v->c_name, v->c_name, v->c_name);
		sb_addf(release, "\ttap_smap_free(&tap_sm_%s);\n", v->c_name);
	}
	/* An array of statistics: <<< fills two maps per CPU; tap_m_ is what they gather to. */
	if (v->type == TYPE_STATS) {
		fprintf(m->out, "static struct tap_pmap_part *tap_pm_%s;\n", v->c_name);
		sb_addf(init, "\tif (tap_pmap_init(&tap_pm_%s, &tap_md_%s))\n\t\treturn -ENOMEM;\n",
			v->c_name, v->c_name);
		sb_addf(release, "\ttap_pmap_free(tap_pm_%s);\n", v->c_name);
	}
}

/* How many buckets a global's histogram has, under- and overflow included; 0 for a linear
 * one stap cannot make (a zero interval, or not 1 to 126 buckets between its bounds). */
static int hist_buckets(const struct var *v)
{
	int64_t n;

	if (v->hist == HIST_LOG)
		return 128;
	if (!v->hist_interval)
		return 0;
	n = (v->hist_stop - v->hist_start) / v->hist_interval + 3;
	return n < 3 || n > 128 ? 0 : (int)n;
}

/* A statistics scalar: its layout, and its parts, one per CPU (runtime/pstat.h). */
static void write_stat_parts(struct module *m, const struct var *v, struct strbuf *init,
			     struct strbuf *release)
{
	fprintf(m->out, "static const struct tap_stat_layout tap_sl_%s = { %s, %d, %d };\n",
		v->c_name, v->variance ? "true" : "false", v->variance ? (int)v->variance_shift : 0,
		v->hist != HIST_NONE ? hist_buckets(v) : 0);
	fprintf(m->out, "static struct tap_pstat tap_ps_%s = { .layout = &tap_sl_%s };\n",
		v->c_name, v->c_name);
	sb_addf(init, "\tif (tap_pstat_init(&tap_ps_%s))\n\t\treturn -ENOMEM;\n", v->c_name);
	sb_addf(release, "\ttap_pstat_free(&tap_ps_%s);\n", v->c_name);
}

/* The first sharded scalars' parts are the module's own per-CPU variables (static: the
 * update is one instruction, as a hand-written module's counter, where a part allocated at
 * the start is reached through its pointer first); the rest are allocated, as the static
 * ones come from the kernel's small reserve that all modules share (8 kB). */
#define STATIC_SCALAR_PARTS 8

/* A sharded scalar's parts, one per CPU (runtime/shards.h); `index`: its place among them. */
static void write_scalar_parts(struct module *m, const struct var *v, int index,
			       struct strbuf *init, struct strbuf *release)
{
	if (index < STATIC_SCALAR_PARTS) {
		fprintf(m->out, "static DEFINE_PER_CPU(struct tap_sscalar_part, tap_ssp_%s);\n"
			"static struct tap_sscalar_part __percpu *const tap_ss_%s = &tap_ssp_%s;\n",
			v->c_name, v->c_name, v->c_name);
		return;
	}
	fprintf(m->out, "static struct tap_sscalar_part __percpu *tap_ss_%s;\n", v->c_name);
	sb_addf(init, "\tif (tap_sscalar_init(&tap_ss_%s))\n\t\treturn -ENOMEM;\n", v->c_name);
	sb_addf(release, "\ttap_sscalar_free(tap_ss_%s);\n", v->c_name);
}

/* A linear histogram stap cannot make: the session fails at its start, as stap's does
 * when it allocates the global (runtime/globals.h). */
static void write_hist_failure(struct strbuf *init, const struct var *v)
{
	const char *why = v->hist_interval ? "histogram: Number of buckets must be between 1 and "
					     "126\\nNumber_of_buckets = (stop - start) / interval."
					     "\\nPlease adjust your start, stop, and interval values."
					     "\\n"
					   : "histogram: interval cannot be zero.\\n";

	sb_addf(init, "\ttap_globals_failed = \"__global_%s\";\n", v->name);
	sb_addf(init, "\ttap_globals_failure = \"%s\";\n\treturn 0;\n", why);
}

/* The arrays, after the runtime headers their types come from. */
static void write_arrays(struct module *m)
{
	struct strbuf init = { 0 }, release = { 0 };
	int scalars = 0;

	sb_add(&init, "");
	sb_add(&release, "");
	for (struct var *v = m->program->globals; v; v = v->next)
		if (v->hist == HIST_LINEAR && !hist_buckets(v)) {
			write_hist_failure(&init, v);
			break;
		}
	for (struct var *v = m->program->globals; v; v = v->next)
		if (v->arity)
			write_array(m, v, &init, &release);
		else if (v->type == TYPE_STATS)
			write_stat_parts(m, v, &init, &release);
		else if (v->sharded)
			write_scalar_parts(m, v, scalars++, &init, &release);
	fprintf(m->out, "\nstatic int tap_globals_init(void)\n{\n%s\treturn 0;\n}\n\n"
		"static void tap_globals_free(void)\n{\n%s}\n\n", init.buf, release.buf);
	free(init.buf);
	free(release.buf);
}

/* Every global's lock (runtime/globals.h), and their list for the closing report. */
static void write_locks(struct module *m)
{
	for (struct var *v = m->program->globals; v; v = v->next)
		fprintf(m->out, "static struct tap_lock tap_lock_%s = TAP_LOCK_INIT(tap_lock_%s, \"%s\");\n",
			v->c_name, v->c_name, v->name);
	fputs("static struct tap_lock *const tap_locks[] = {\n", m->out);
	for (struct var *v = m->program->globals; v; v = v->next)
		fprintf(m->out, "\t&tap_lock_%s,\n", v->c_name);
	fputs("\tNULL\n};\n\n", m->out);
}

/* A statistics global's histogram layout (runtime/stat.h). */
static void write_hist_layout(struct module *m, const struct var *v)
{
	if (v->hist == HIST_LOG)
		fprintf(m->out, "static const struct tap_hist tap_h_%s = { TAP_HIST_LOG, 0, 0, "
			"TAP_HIST_LOG_BUCKETS };\n", v->c_name);
	else if (v->hist == HIST_LINEAR)
		fprintf(m->out, "static const struct tap_hist tap_h_%s = { TAP_HIST_LINEAR, %lldLL, "
			"%lldLL, %d };\n", v->c_name, (long long)v->hist_start,
			(long long)v->hist_interval, hist_buckets(v));
}

/* A statistics global: its aggregate, with the extras it keeps (runtime/stat.h). */
static void write_stat_global(struct module *m, const struct var *v)
{
	fprintf(m->out, "static struct {\n\tstruct tap_stat stat;\n");
	if (v->variance)
		fprintf(m->out, "\tstruct tap_stat_variance variance;\n");
	if (v->hist != HIST_NONE)
		fprintf(m->out, "\tint64_t buckets[%d];\n", hist_buckets(v));
	fprintf(m->out, "} tap_g_%s __maybe_unused;\n", v->c_name);
}

/* The scalar globals; __maybe_unused, as pass 3 may fold away their last use (a branch of a
 * ?: whose condition is constant). */
static void write_scalars(struct module *m)
{
	for (struct var *v = m->program->globals; v; v = v->next)
		write_hist_layout(m, v);
	for (struct var *v = m->program->globals; v; v = v->next) {
		struct global *g = v->global;

		if (v->arity) {
			continue;
		} else if (v->type == TYPE_STATS) {
			write_stat_global(m, v);
		} else if (v->type == TYPE_STRING) {
			char *init = c_string_literal(g->init ? g->init->text : "");

			fprintf(m->out, "static char tap_g_%s[MAXSTRINGLEN] __maybe_unused = %s;\n",
				v->c_name, init);
			free(init);
		} else {
			fprintf(m->out, "static int64_t tap_g_%s __maybe_unused = %lldLL;\n",
				v->c_name, g->init ? (long long)g->init->num : 0LL);
		}
	}
	if (m->program->globals)
		fputc('\n', m->out);
}

/* The module parameters the runtime has (runtime/session.h, transport.h): no -G global
 * may take one's name. */
static const char *const runtime_params[] = { "target", "stp_pid", "tz_gmtoff", "tz_name",
					      "user_root", "bufsize", "target_ns_pid",
					      "remote_id", "remote_uri", NULL };

/* The scalar global a -G NAME=VALUE names, or NULL. */
static const struct var *param_global(const struct program *program, const char *item)
{
	size_t len = strcspn(item, "=");

	for (const struct var *v = program->globals; v; v = v->next)
		if (!v->arity && v->type != TYPE_STATS && strlen(v->name) == len &&
		    !strncmp(v->name, item, len))
			return v;
	return NULL;
}

/*
 * -G NAME=VALUE: the scalar global NAME is a module parameter, which the loader sets to
 * VALUE (the value is not in the C, so a module serves every value). A NAME the script
 * has no scalar global of is left to the loader, which the kernel ignores, as stap's.
 */
static void write_global_params(struct module *m)
{
	const struct string_list *values = &m->session->global_values;

	for (int i = 0; i < values->count; i++) {
		const struct var *v = param_global(m->program, values->items[i]);

		if (!v)
			continue;
		if (v->type == TYPE_STRING)
			fprintf(m->out, "module_param_string(%s, tap_g_%s, MAXSTRINGLEN, 0);\n",
				v->name, v->c_name);
		else
			fprintf(m->out, "module_param_cb(%s, &param_ops_long, &tap_g_%s, 0);\n",
				v->name, v->c_name);
	}
}

/* No -G global may have the name of a runtime parameter; false after saying so. */
static bool global_params_ok(const struct session *session, const struct program *program)
{
	const struct string_list *values = &session->global_values;

	for (int i = 0; i < values->count; i++) {
		const struct var *v = param_global(program, values->items[i]);

		for (int k = 0; v && runtime_params[k]; k++)
			if (!strcmp(runtime_params[k], v->name)) {
				fprintf(stderr, "ERROR: -G %s: the runtime has a module parameter of"
					" that name; rename the global\n", v->name);
				return false;
			}
	}
	return true;
}

/* --modinfo NAME=VALUE: MODULE_INFO(NAME, "VALUE"). */
static void write_modinfo(struct module *m)
{
	const struct string_list *modinfo = &m->session->modinfo;

	for (int i = 0; i < modinfo->count; i++) {
		const char *item = modinfo->items[i];
		size_t len = strcspn(item, "=");
		char *value = c_string_literal(item + len + 1);

		fprintf(m->out, "MODULE_INFO(%.*s, %s);\n", (int)len, item, value);
		free(value);
	}
}

static void write_frames(struct module *m)
{
	for (struct unit *u = m->units; u; u = u->next)
		fprintf(m->out, "struct frame_%s {\n%s};\n\n", u->name,
			u->fields.len ? u->fields.buf : "\tchar unused;\n");
	fputs("union tap_frame {\n", m->out);
	for (struct unit *u = m->units; u; u = u->next)
		fprintf(m->out, "\tstruct frame_%s %s;\n", u->name, u->name);
	fputs("};\n\n", m->out);
}

static void write_tables(struct module *m)
{
	fputs(m->points.buf ? m->points.buf : "", m->out);
	for (int i = 0; point_emitters[i]; i++)
		emit_write_tables(point_emitters[i], m->emit_states[i], m->out);
}

/* ---- -t: what the probe hit report says of each point ---- */

/* How stap shows where a point came from: " from: " before each step, the point placed on
 * a function, the alias the script named, the probe's first point as written. */
static char *point_derivation(const struct derived_probe *p, const struct derived_point *d)
{
	struct strbuf sb = { 0 };
	char *first = probe_point_text(p->probe->points.items[0]);

	if ((d->kind == PROVIDER_KPROBE || d->kind == PROVIDER_KRETPROBE) &&
	    !target_point_is_kprobe(d))
		sb_addf(&sb, " from: %s", d->pp);
	if (p->via_alias)
		sb_addf(&sb, " from: %s", p->listed_name);
	sb_addf(&sb, " from: %s", first);
	free(first);
	return sb_steal(&sb);
}

/* One line of the table: the point, where the script has it (the point that named the
 * alias it went through, else the probe), its derivation. */
static void timing_point(FILE *out, const struct derived_probe *p, const struct derived_point *d)
{
	struct loc loc = p->via_alias ? p->alias_loc : p->probe->loc;
	char *location = xasprintf("%s:%d:%d", loc.source ? loc.source->name : "", loc.line,
				   loc.col);
	char *derivation = point_derivation(p, d);
	char *pp_text = c_string_literal(d->pp);
	char *location_text = c_string_literal(location);
	char *derivation_text = c_string_literal(derivation);

	fprintf(out, "\t{ %s, %s, %s },\n", pp_text, location_text, derivation_text);
	free(location);
	free(derivation);
	free(pp_text);
	free(location_text);
	free(derivation_text);
}

static int count_points(const struct program *program)
{
	int n = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next)
			n++;
	return n;
}

/* runtime/timing.h's table, in the order of point_index(). */
static void write_timing_table(struct module *m)
{
	if (!timing_build(m->session))
		return;
	fputs("static const struct tap_timing_point tap_timing_points[] = {\n", m->out);
	for (const struct derived_probe *p = m->program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next)
			timing_point(m->out, p, d);
	fputs("};\n\n", m->out);
}

/* ---- MAXNESTING, from the call graph as stap computes it ---- */

struct nesting {
	const struct used_function **stack;	/* the functions being walked into */
	int depth;
	int max_depth;		/* the deepest call seen below a function */
	bool recursive;		/* some function calls itself, directly or not */
};

static bool nesting_visit(const struct node *n, void *ctx);

/* A call is one level deeper than the functions being walked into; a function already
 * among them makes the program recursive and is not walked again. */
static void walk_into(struct nesting *nt, const struct used_function *f)
{
	nt->depth++;
	if (nt->depth > nt->max_depth)
		nt->max_depth = nt->depth;
	for (int i = 0; i < nt->depth - 1; i++)
		if (nt->stack[i] == f) {
			nt->recursive = true;
			nt->depth--;
			return;
		}
	nt->stack[nt->depth - 1] = f;
	node_any(f->function->body, nesting_visit, nt);
	nt->depth--;
}

/* Every call in a tree (its arguments are walked on by node_any). */
static bool nesting_visit(const struct node *n, void *ctx)
{
	if (n->kind == N_CALL && n->sym)
		walk_into(ctx, n->sym);
	return false;
}

/*
 * The default MAXNESTING, stap's: the deepest chain of calls made from within one function
 * (walking from each function in turn), plus one, plus ten more for a recursive program.
 */
static int default_maxnesting(const struct program *program)
{
	struct nesting nt = { .stack = xcalloc((size_t)program->nfunctions + 1,
					       sizeof(*nt.stack)) };

	for (const struct used_function *f = program->functions; f; f = f->next)
		node_any(f->function->body, nesting_visit, &nt);
	free(nt.stack);
	return nt.max_depth + 1 + (nt.recursive ? 10 : 0);
}

/* Whether the program uses a function that `file` defines. */
static bool file_has_used_function(const struct module *m, const struct file *file)
{
	for (const struct used_function *f = m->program->functions; f; f = f->next)
		if (f->function->loc.source == file->source)
			return true;
	return false;
}

/* The top-level %{ %} of each tapset file whose functions the program uses: the helpers
 * those functions' embedded C calls. */
static void write_tapset_embeds(struct module *m)
{
	for (const struct file *file = m->program->tapsets; file; file = file->next) {
		if (!file->embeds || !file_has_used_function(m, file))
			continue;
		for (const struct embed *e = file->embeds; e; e = e->next)
			fprintf(m->out, "%s\n\n", e->code);
	}
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* -d's symbol tables (runtime/ustack.h), before the tapsets' helpers that look them up; a file
 * that is no usable ELF file is left out with stap's warning (in sorted order, as stap). */
static void write_user_symbols(struct module *m)
{
	const struct session *s = m->session;
	const char **sorted;

	if (!s->nsymbol_files)
		return;
	sorted = xcalloc((size_t)s->nsymbol_files, sizeof(*sorted));
	memcpy(sorted, s->symbol_files, sizeof(*sorted) * (size_t)s->nsymbol_files);
	qsort(sorted, (size_t)s->nsymbol_files, sizeof(*sorted), compare_paths);
	for (int i = 0; i < s->nsymbol_files; i++)
		if (!usyms_check_file(sorted[i]))
			diag_warning("missing unwind/symbol data for module '%s'", sorted[i]);
	free(sorted);
	fputs("#define TAP_USER_SYMBOLS 1\n#include \"ustack.h\"\n\n", m->out);
	usyms_write(m->out, s->symbol_files, s->nsymbol_files);
}

/* Whether a function the program uses has the tag `tag`. */
static bool uses_pragma(const struct module *m, const char *tag)
{
	for (const struct used_function *f = m->program->functions; f; f = f->next)
		if (function_has_pragma(f->function, tag))
			return true;
	return false;
}

static void write_module(struct module *m)
{
	const char *script = m->session->script_file ? m->session->script_file : "<input>";
	char *safe_script = comment_text(script);

	fprintf(m->out, "/* Generated by tapster from %s. */\n\n", safe_script);
	free(safe_script);
	for (int i = 0; point_emitters[i]; i++)
		emit_write_counts(point_emitters[i], m->emit_states[i], m->out);
	fprintf(m->out, "#define TAP_NUM_CONDITIONS %d\n", m->nconditions);
	fprintf(m->out, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n",
		default_maxnesting(m->program));
	if (timing_build(m->session))
		fprintf(m->out, "#define TAP_NUM_TIMING_POINTS %d\n", count_points(m->program));
	/* regparm() (registers.stp) sets a context field that every hit must then reset. */
	if (uses_pragma(m, "pragma:regparm"))
		fputs("#define TAP_USES_REGPARM 1\n", m->out);
	fputc('\n', m->out);
	fputs("#include \"runtime.h\"\n\n", m->out);
	write_scalars(m);
	write_global_params(m);
	write_modinfo(m);
	write_frames(m);
	regex_write_sizes(&m->regexes, m->out);
	fputs("#include \"context.h\"\n#include \"print.h\"\n#include \"values.h\"\n"
	      "#include \"format.h\"\n"
	      "#include \"globals.h\"\n"
	      "#include \"pstat.h\"\n"
	      "#include \"shards.h\"\n", m->out);
	for (int i = 0; point_emitters[i]; i++)
		if (point_emitters[i]->runtime_header)
			fprintf(m->out, "#include \"%s\"\n", point_emitters[i]->runtime_header);
	fputs("#include \"kread.h\"\n#include \"loc2c.h\"\n\n", m->out);
	regex_write_programs(&m->regexes, m->out);
	write_locks(m);
	write_arrays(m);
	for (struct embed *e = m->program->embeds; e; e = e->next)
		fprintf(m->out, "%s\n\n", e->code);
	write_user_symbols(m);
	if (m->program->kernel_lines)
		fputs(m->program->kernel_lines, m->out);
	write_tapset_embeds(m);
	for (struct unit *u = m->units; u; u = u->next)
		if (u->prototype)
			fprintf(m->out, "%s;\n", u->prototype);
	fputc('\n', m->out);
	for (struct unit *u = m->units; u; u = u->next)
		fputs(u->code, m->out);
	write_tables(m);
	write_timing_table(m);
	fputs("#include \"module.h\"\n", m->out);
}

/* ---- What pass 3 can translate yet ---- */

static bool refuse(const struct node *n, const char *what)
{
	bool at = n->kind == N_HIST || n->kind == N_STATOP;
	char *text = at ? xasprintf("@%s", n->text) : xstrdup(n->text ? n->text : op_text(n->op));
	struct token_desc tok = { n->kind == N_IDENT ? "identifier" : "operator", text };

	diag_error_at("semantic error", &tok, n->loc, "tapster does not translate %s yet", what);
	free(text);
	return false;
}

static bool translatable(const struct node *n);

static bool translatable_list(const struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		if (!translatable(list->items[i]))
			return false;
	return true;
}

/* What pass 2 accepts and the runtime cannot do yet is refused here with a message rather
 * than making C that does not build. */
static bool translatable(const struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_FOREACH:
		if (n->foreach->array->kind != N_IDENT && n->foreach->array->kind != N_HIST)
			return refuse(n, "target arrays");
		if (n->foreach->value && n->foreach->array->kind == N_IDENT &&
		    ((struct var *)n->foreach->array->sym)->type == TYPE_STATS)
			return refuse(n, "a foreach value of statistics");
		return translatable_list(&n->foreach->slice) &&
		       translatable(n->foreach->limit) && translatable(n->foreach->body);
	case N_DELETE:
		return n->lhs->kind != N_INDEX || translatable_list(&n->lhs->args);
	case N_PERF: {
		/* Left by pass 2 outside process("PATH").function probes, as stap's. */
		struct token_desc tok = { "operator", n->text };

		diag_error_at("semantic error", &tok, n->loc,
			      "cannot translate general @perf expression");
		return false;
	}
	default:
		break;
	}
	return translatable(n->lhs) && translatable(n->rhs) && translatable(n->cond) &&
	       translatable(n->then) && translatable(n->els) && translatable(n->init) &&
	       translatable(n->inc) && translatable_list(&n->args) &&
	       translatable_list(&n->body);
}

/* break and continue only within a loop: stap's pass-3 error otherwise. */
static bool jumps_in_loops(const struct node *n, bool in_loop)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_BREAK:
	case N_CONTINUE:
		if (!in_loop) {
			struct token_desc tok = { "keyword", NULL };

			diag_error_at("semantic error", &tok, n->loc, "cannot '%s' outside loop",
				      n->kind == N_BREAK ? "break" : "continue");
		}
		return in_loop;
	case N_BLOCK:
		for (int i = 0; i < n->body.len; i++)
			if (!jumps_in_loops(n->body.items[i], in_loop))
				return false;
		return true;
	case N_IF:
	case N_TRY:
		return jumps_in_loops(n->then, in_loop) && jumps_in_loops(n->els, in_loop);
	case N_WHILE:
	case N_FOR:
		return jumps_in_loops(n->then, true);
	case N_FOREACH:
		return jumps_in_loops(n->foreach->body, true);
	default:
		return true;
	}
}

static bool program_translatable(const struct program *program)
{
	for (const struct used_function *f = program->functions; f; f = f->next)
		if (!translatable(f->function->body) || !jumps_in_loops(f->function->body, false))
			return false;
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		if (!translatable(p->body) || !jumps_in_loops(p->body, false))
			return false;
	return true;
}

int translate(struct session *session, struct program *program, FILE *out)
{
	struct module m = { .session = session, .program = program, .out = out };

	if (!program_translatable(program) || !global_params_ok(session, program))
		return 1;
	m.units_tail = &m.units;
	emit_start(&m);
	collect_conditions(&m);
	shards_decide(program);
	pstats_decide(program);
	for (struct used_function *f = program->functions; f; f = f->next)
		translate_function(&m, f);
	for (struct derived_probe *p = program->probes; p; p = p->next)
		translate_probe(&m, p);
	emit_module_end(&m);
	write_module(&m);
	emit_release(&m);
	regex_table_free(&m.regexes);
	free(m.condition_globals);
	return 0;
}
