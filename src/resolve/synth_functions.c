// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The functions stap 4.8 makes of a probe's target reads and writes, as its -p2 lists them
 * under "# functions" after the script's and library's own (tapster reads and writes the
 * targets inline and generates no such functions; this is the listing only).
 *
 * What stap does, as its -p2 shows it:
 * - Each read or write of $x, $x->f[i] or @var("x") in a body is a function
 *   "__private_FILE__dwarf_tvar_get_x_N:long ()" (a write: "_set_", with "rvalue:long"), each
 *   @cast(p, "T")->f one "..._dwarf_cast_get_cast_N:long (pointer:long)". FILE is the path
 *   of the file the expression is in as it was named ("<input>" for -e), every character
 *   but a letter, digit or '_' made '_'. An index that is an expression is a parameter
 *   "indexK:long", K the component's place after the base (from 0), between the pointer
 *   and the rvalue.
 * - N counts such expressions over the whole program (one count for tvars, one for casts),
 *   in the order of the derived probes, each point's copy of the body in turn, in the
 *   body's order (an assignment's target before its value), before the optimizer drops
 *   dead code (whose numbers are then missing); @defined(x) numbers x when it is defined.
 * - A read whose DWARF location is relative to the frame base (-O0 code; a parameter
 *   tapster reads by the calling convention too) has a local "_fb_N" (N counted apart, in
 *   the same order), listed under it as stap lists locals.
 * - Functions whose bodies are the same are one: the one whose name sorts first is kept.
 *   (Those with a frame base local never are: the locals' names differ.) A body is each
 *   point's own read, by size (and sign below 8 bytes), where tapster reads a $return or
 *   parameter of different widths as the whole register.
 * - They are listed sorted by name after the program's functions.
 * - On tracepoints, $arg->f or $arg[i] (a plain $arg is none) is
 *   "..._tracepoint_tvar_get_arg_N:long (pointer:long)", counted with the tvars, given the
 *   argument: the same body as an @cast's from that pointer. The probe has a local
 *   "__tracepoint_arg_NAME" for each argument its body names, in the tracepoint's order.
 * - A pretty-printed $x$ is "..._dwarf_pretty_print_N:string ()" and each value it reads
 *   "..._dwarf_pretty_print_deref_M:long ()" (an @cast(p)$'s given the pointer), counted
 *   apart; a deref is one with a tvar of the same body. $$parms$, $$locals$, $$vars$ and
 *   $$return$ (or with $$) are a $x$ of each variable, in their order, one not available
 *   ("?") a pretty function too, of its own.
 * Not listed: the functions of the library's aliases (counted, but named after stap's
 * tapset files, whose bodies are not ours).
 */
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <ctype.h>

#include "resolve/program.h"
#include "resolve/target_scope.h"
#include "resolve/target_vars.h"
#include "target/tracepoints.h"
#include "util.h"

/* A $x or @var (dwarf_tvar), a tracepoint argument's member or element (tracepoint_tvar),
 * an @cast (dwarf_cast), a pretty-printed $x$ (dwarf_pretty_print: a string) and each value
 * it reads (dwarf_pretty_print_deref). Those of a tracepoint and @cast are given the pointer
 * they start from; the pretty ones' names have no verb nor variable. */
enum synth_kind { SYNTH_NONE, SYNTH_TVAR, SYNTH_TRACE, SYNTH_CAST, SYNTH_PRETTY, SYNTH_DEREF };

static const struct {
	const char *prefix;
	bool pointer, named;
	enum synth_counter counter;
	const char *type;
} kinds[] = {
	[SYNTH_TVAR] = { "dwarf_tvar", false, true, SYNTH_TVARS, "long" },
	[SYNTH_TRACE] = { "tracepoint_tvar", true, true, SYNTH_TVARS, "long" },
	[SYNTH_CAST] = { "dwarf_cast", true, true, SYNTH_CASTS, "long" },
	[SYNTH_PRETTY] = { "dwarf_pretty_print", false, false, SYNTH_PRETTIES, "string" },
	[SYNTH_DEREF] = { "dwarf_pretty_print_deref", false, false, SYNTH_DEREFS, "long" },
};

/* Whether `n` is one of stap's functions. Numbering counts those of a branch pass 2 left
 * unresolved as dead (`if (0)`), which stap resolves and then drops: `resolved` false. */
static enum synth_kind synth_kind(const struct derived_probe *p, const struct node *n,
				  bool resolved)
{
	if (n->synth_pretty == 1)
		return n->synth_seq < 0 ? SYNTH_NONE : SYNTH_PRETTY;
	if ((resolved && !n->sym) || n->synth_seq < 0)
		return SYNTH_NONE;
	if (n->synth_pretty == 2)
		return SYNTH_DEREF;
	if (n->kind == N_CAST)
		return n->text ? SYNTH_CAST : SYNTH_NONE;
	if (n->kind == N_ATVAR)
		return SYNTH_TVAR;
	if (n->kind == N_TARGET && n->comps && !n->suffix && on_tracepoints(p))
		return SYNTH_TRACE;
	if (n->kind == N_TARGET && (n->sym || (!n->suffix && strncmp(n->text, "$$", 2))) &&
	    (target_probe_on_functions(p) || on_uprobes(p)))
		return SYNTH_TVAR;
	return SYNTH_NONE;
}

/* What a walk visits: `written` for the target of an '='; `data` is the walk's, whose
 * first member says whether it also visits what pass 2 dropped (numbering does). */
typedef void visit_fn(struct node *n, bool written, void *data);

struct walk_data {
	bool dropped_too;
};

static void walk(struct node *n, bool written, visit_fn *visit, void *data);

static void walk_list(const struct node_list *list, visit_fn *visit, void *data)
{
	for (int i = 0; i < list->len; i++)
		walk(list->items[i], false, visit, data);
}

/* `n` and what it holds, in the order stap counts them; `written`: the target of an '='. */
static void walk(struct node *n, bool written, visit_fn *visit, void *data)
{
	if (!n)
		return;
	if (((const struct walk_data *)data)->dropped_too)
		walk_list(&n->synth_dropped, visit, data);
	visit(n, written, data);
	walk(n->lhs, n->kind == N_ASSIGN && n->op == '=', visit, data);
	walk(n->rhs, false, visit, data);
	walk(n->init, false, visit, data);
	walk(n->cond, false, visit, data);
	walk(n->inc, false, visit, data);
	walk(n->then, false, visit, data);
	walk(n->els, false, visit, data);
	walk_list(&n->args, visit, data);
	walk_list(&n->body, visit, data);
	for (const struct target_comp *c = n->comps; c; c = c->next)
		walk(c->index_expr, false, visit, data);
	if (n->foreach) {
		walk(n->foreach->array, false, visit, data);
		walk_list(&n->foreach->slice, visit, data);
		walk(n->foreach->limit, false, visit, data);
		walk(n->foreach->body, false, visit, data);
	}
}

static int point_count(const struct derived_probe *p)
{
	int n = 0;

	for (const struct derived_point *d = p->points; d; d = d->next)
		n++;
	return n;
}

/* ---- Numbering, before the optimizer ---- */

struct numbering {
	struct walk_data walk;
	struct derived_probe *probe;
	int counts[SYNTH_COUNTS];
	/* Numbering the frame base locals of point `point`, from `*frame_bases`. */
	int point;
	int *frame_bases;
};

/* The access of the resolved target `n` at point `point` of its probe. */
static const struct target_access *access_at(const struct node *n, int point)
{
	const struct target_access *a = n->sym;

	if (a->base == BASE_PER_POINT)
		a = a->per_point[point < a->npoints ? point : 0];
	return a;
}

static const struct derived_point *point_at(const struct derived_probe *p, int point)
{
	const struct derived_point *d = p->points;

	while (point-- > 0 && d->next)
		d = d->next;
	return d;
}

/* Whether stap reads the resolved `n` at point `point` relative to the frame base: its
 * DWARF location there is (a parameter tapster reads by the calling convention at the
 * entry too: stap reads its DWARF location). */
static bool read_by_frame_base(const struct derived_probe *p, const struct node *n, int point)
{
	const struct target_access *a = access_at(n, point);
	char *name;
	bool uses;

	if (a->frame_base || a->base != BASE_PARAM || n->kind != N_TARGET)
		return a->frame_base;
	name = xstrndup(n->text + 1, strcspn(n->text + 1, "@"));
	uses = target_param_uses_frame_base(a->types, point_at(p, point)->function, name);
	free(name);
	return uses;
}

/* stap's function of a read relative to the frame base has a local _fb_N, N counted over
 * the program as the functions are. */
static void number_frame_base(struct node *n, bool written, void *data)
{
	struct numbering *c = data;
	struct derived_probe *p = c->probe;

	enum synth_kind kind = synth_kind(p, n, true);
	enum synth_counter counter = kinds[kind].counter;

	(void)written;
	if ((kind != SYNTH_TVAR && kind != SYNTH_DEREF) || n->synth_seq <= 0)
		return;
	if (read_by_frame_base(p, n, c->point))
		p->synth_frame_bases[counter][c->point * p->synth_count[counter] +
					      n->synth_seq - 1] = (*c->frame_bases)++;
}

/* Whether `n` is the library's: stap's tapsets are not ours, nor what they save at the entry. */
static bool in_tapset(const struct node *n)
{
	return n->loc.source && n->loc.source->is_tapset;
}

static void number_node(struct node *n, bool written, void *data)
{
	struct numbering *c = data;

	enum synth_kind kind = synth_kind(c->probe, n, false);

	(void)written;
	if (kind != SYNTH_NONE)
		n->synth_seq = ++c->counts[kinds[kind].counter];
	else if (n->kind == N_ENTRY && n->synth_seq == 0 && !in_tapset(n))
		n->synth_seq = ++c->counts[SYNTH_ENTRIES];
}

/* The names of the $targets a body has, dropped ones too. */
struct named_targets {
	struct walk_data walk;
	const char **names;
	int len;
};

static void note_target(struct node *n, bool written, void *data)
{
	struct named_targets *t = data;

	(void)written;
	if (n->kind != N_TARGET || !n->text || n->text[0] != '$' || n->text[1] == '$')
		return;
	ARRAY_PUSH(t->names, t->len, n->text + 1);
}

static bool named(const struct named_targets *t, const char *name)
{
	for (int i = 0; i < t->len; i++)
		if (!strcmp(t->names[i], name))
			return true;
	return false;
}

/* stap's probe on a tracepoint has a local __tracepoint_arg_NAME for each argument its body
 * names (before the optimizer), in the tracepoint's order. */
static void list_tracepoint_args(struct derived_probe *p, const struct provider_env *env)
{
	struct named_targets t = { .walk.dropped_too = true };

	walk(p->body, false, note_target, &t);
	for (struct derived_point *d = p->points; d && t.len; d = d->next) {
		const struct tracepoint *tp = point_tracepoint(env, d);
		int len = 0;

		for (int i = 0; tp && i < tp->nargs; i++)
			if (named(&t, tp->arg_names[i]))
				ARRAY_PUSH(d->synth_locals, len,
					   xasprintf("__tracepoint_arg_%s:long", tp->arg_names[i]));
		if (len)	/* the list ends in NULL */
			ARRAY_PUSH(d->synth_locals, len, (char *)NULL);
	}
	free(t.names);
}

/* The counters of the reads that may be relative to the frame base: $x and @var, and the
 * values a pretty-printed $x$ reads. */
static const enum synth_counter frame_base_counters[] = { SYNTH_TVARS, SYNTH_DEREFS };

void synth_functions_number(struct program *program, const struct provider_env *env)
{
	int counts[SYNTH_COUNTS] = { 0 }, frame_bases = 0;

	for (struct derived_probe *p = program->probes; p; p = p->next) {
		struct numbering c = { .walk.dropped_too = true, .probe = p };
		int points = point_count(p);
		bool reads = false;

		if (on_tracepoints(p))
			list_tracepoint_args(p, env);
		walk(p->body, false, number_node, &c);
		for (int i = 0; i < SYNTH_COUNTS; i++) {
			p->synth_base[i] = counts[i];
			p->synth_count[i] = c.counts[i];
			counts[i] += c.counts[i] * points;
		}
		for (size_t k = 0; k < sizeof(frame_base_counters) / sizeof(*frame_base_counters);
		     k++) {
			enum synth_counter i = frame_base_counters[k];
			int n = c.counts[i] * points;

			reads |= n > 0;
			p->synth_frame_bases[i] = n ? xmalloc(sizeof(int) * (size_t)n) : NULL;
			for (int j = 0; j < n; j++)
				p->synth_frame_bases[i][j] = -1;
		}
		if (!reads)
			continue;
		c.walk.dropped_too = false;
		c.frame_bases = &frame_bases;
		for (c.point = 0; c.point < points; c.point++)
			walk(p->body, false, number_frame_base, &c);
	}
}

/* ---- The listing ---- */

struct synth_function {
	const char *type;	/* what it returns */
	char *name;
	char *signature;	/* "(pointer:long, index3:long, rvalue:long)" */
	int frame_base;		/* its local _fb_N, or -1 */
	char *body;		/* what makes two functions one */
};

struct listing {
	struct walk_data walk;
	const struct derived_probe *probe;
	int point;
	struct synth_function *all;
	int len, cap;
};

/* What the function of access `a` does, as a text equal for equal bodies: a parameter in
 * its register by the calling convention and a DWARF location that is that register are
 * one body (stap reads both as the register). */
static void add_access_key(struct strbuf *sb, const struct target_access *a, bool pointer)
{
	static const char *const arg_registers[] = { "di", "si", "dx", "cx", "r8", "r9" };

	switch (pointer ? BASE_VALUE : a->base) {
	case BASE_PARAM:
		if (a->param < 6)
			sb_addf(sb, "reg %s", arg_registers[a->param]);
		else
			sb_addf(sb, "param %d", a->param);
		break;
	case BASE_RETURN:
		sb_add(sb, "return");
		break;
	case BASE_EXPR:
		if (a->reg && !a->lvalue)
			sb_addf(sb, "reg %s", a->reg);
		else
			sb_addf(sb, "at %s", a->expr);
		break;
	case BASE_VALUE:
		sb_add(sb, "pointer");
		break;
	case BASE_PER_POINT:
		break;
	}
	for (int i = 0; i < a->nsteps; i++) {
		const struct target_step *s = &a->steps[i];

		if (s->kind == STEP_LOAD)
			sb_add(sb, " load");
		else if (s->kind == STEP_OFFSET)
			sb_addf(sb, " +%" PRId64, s->offset);
		else if (s->index && s->index->kind == N_NUMBER)
			sb_addf(sb, " +%" PRId64 "*%u", s->index->num, s->scale);
		else
			sb_addf(sb, " +index*%u", s->scale);
	}
	/* A value of 8 bytes is read the same signed or not. */
	sb_addf(sb, " %d %u %d %u %u %d %d", a->lvalue, a->size, a->is_signed && a->size < 8,
		a->bit_offset, a->bit_size, a->address_of, a->user);
}

/* stap's name of a source in its private names: "<input>" is "_input_". */
static void add_file_part(struct strbuf *sb, const struct source *source)
{
	for (const char *c = source ? source->name : ""; *c; c++)
		sb_addc(sb, isalnum((unsigned char)*c) ? *c : '_');
}

static char *signature(const struct node *n, bool pointer, bool written)
{
	struct strbuf sb = { 0 };
	const char *sep = "";
	int position = 0;

	sb_add(&sb, "(");
	if (pointer) {
		sb_add(&sb, "pointer:long");
		sep = ", ";
	}
	for (const struct target_comp *c = n->comps; c; c = c->next, position++) {
		if (c->kind != COMP_INDEX_EXPR)
			continue;
		sb_addf(&sb, "%sindex%d:long", sep, position);
		sep = ", ";
	}
	if (written)
		sb_addf(&sb, "%srvalue:long", sep);
	sb_add(&sb, ")");
	return sb_steal(&sb);
}

/* The variable a tvar function is named after: $name's, @var("name@file")'s. */
static void add_var_name(struct strbuf *sb, const struct node *n)
{
	const char *name = n->text + (n->kind == N_TARGET && n->text[0] == '$');

	sb_addn(sb, name, strcspn(name, "@"));
}

/* A value a pretty-printed $x$ reads (within its string's call, if any). */
static const struct node *pretty_value(const struct node *pretty, int i)
{
	const struct node *value = pretty->args.items[i];

	return value->kind == N_CALL ? value->args.items[0] : value;
}

/* Whether the function of `n` is given a pointer: a tracepoint's, an @cast's, and those
 * of a pretty-printed @cast(...)$ and of what it reads. */
static bool given_pointer(const struct node *n, enum synth_kind kind)
{
	if (kind == SYNTH_PRETTY)
		return n->kind == N_PRINT && pretty_value(n, 1)->kind == N_CAST;
	return kinds[kind].pointer || n->kind == N_CAST;
}

/* The key of a read's function: the body stap gives it, as a text equal for equal bodies.
 * A tracepoint argument's function and an @cast's are the same from the pointer; a
 * pretty-printed value's, the same reads under the same format. */
static void add_read_key(struct strbuf *body, const struct derived_probe *p,
			 const struct node *n, enum synth_kind kind, int point, bool written,
			 const char *signature)
{
	if (kind == SYNTH_PRETTY && n->kind == N_STRING) {
		/* A variable of $$vars$ not available: its own (stap's names it). */
		sb_addf(body, "pretty missing %d", n->synth_seq);
		return;
	}
	if (kind == SYNTH_PRETTY) {
		sb_addf(body, "pretty %s", n->args.items[0]->text);
		for (int i = 1; i < n->args.len; i++) {
			sb_add(body, n->args.items[i]->kind == N_CALL ? " string(" : " (");
			add_access_key(body, access_at(pretty_value(n, i), point), false);
			sb_add(body, ")");
		}
		return;
	}
	sb_addf(body, "%s %s %s %d ", given_pointer(n, kind) ? "cast" : "tvar", signature,
		written ? "set" : "get", on_uprobes(p));
	add_access_key(body, access_at(n, point), kind == SYNTH_TRACE);
}

static void list_node(struct node *n, bool written, void *data)
{
	struct listing *l = data;
	const struct derived_probe *p = l->probe;
	enum synth_kind kind = synth_kind(p, n, true);
	struct strbuf name = { 0 }, body = { 0 };
	int number;

	if (kind == SYNTH_NONE || n->synth_seq <= 0 || in_tapset(n))
		return;
	enum synth_counter counter = kinds[kind].counter;

	number = p->synth_base[counter] + l->point * p->synth_count[counter] + n->synth_seq - 1;
	sb_add(&name, "__private_");
	add_file_part(&name, n->loc.source);
	sb_addf(&name, "__%s", kinds[kind].prefix);
	if (kinds[kind].named)
		sb_addf(&name, "_%s_", written ? "set" : "get");
	if (kind == SYNTH_CAST)
		sb_add(&name, "cast");
	else if (kinds[kind].named)
		add_var_name(&name, n);
	sb_addf(&name, "_%d", number);

	if (l->len == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->all = xrealloc(l->all, sizeof(*l->all) * (size_t)l->cap);
	}
	struct synth_function *f = &l->all[l->len++];

	f->type = kinds[kind].type;
	f->name = sb_steal(&name);
	f->signature = kind == SYNTH_PRETTY ? xstrdup(given_pointer(n, kind) ? "(pointer:long)" : "()") :
		       signature(n, given_pointer(n, kind), written);
	f->frame_base = p->synth_frame_bases[counter] ?
			p->synth_frame_bases[counter][l->point * p->synth_count[counter] +
						      n->synth_seq - 1] : -1;
	add_read_key(&body, p, n, kind, l->point, written, f->signature);
	if (f->frame_base >= 0)
		sb_addf(&body, " _fb_%d", f->frame_base);
	f->body = sb_steal(&body);
}

static int by_body_then_name(const void *x, const void *y)
{
	const struct synth_function *a = x, *b = y;
	int order = strcmp(a->body, b->body);

	return order ? order : strcmp(a->name, b->name);
}

static int by_name(const void *x, const void *y)
{
	const struct synth_function *a = x, *b = y;

	return strcmp(a->name, b->name);
}

/* The functions of every point's body, those with one body made one (the first name). */
static int list_functions(const struct program *program, struct listing *l)
{
	int kept = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next) {
		int points = point_count(p);

		l->probe = p;
		bool any = false;

		for (int i = 0; i < SYNTH_COUNTS; i++)
			any |= p->synth_count[i] > 0;
		for (l->point = 0; l->point < points && any; l->point++)
			walk(p->body, false, list_node, l);
	}
	if (!l->len)
		return 0;
	qsort(l->all, (size_t)l->len, sizeof(*l->all), by_body_then_name);
	for (int i = 0; i < l->len; i++) {
		if (kept && !strcmp(l->all[kept - 1].body, l->all[i].body)) {
			free(l->all[i].name);
			free(l->all[i].signature);
			free(l->all[i].body);
			continue;
		}
		l->all[kept++] = l->all[i];
	}
	qsort(l->all, (size_t)kept, sizeof(*l->all), by_name);
	return kept;
}

bool synth_functions_print(FILE *out, const struct program *program, bool header)
{
	struct listing l = { 0 };
	int n = list_functions(program, &l);

	if (n && header)
		fputs("# functions\n", out);
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s:%s %s\n", l.all[i].name, l.all[i].type, l.all[i].signature);
		if (l.all[i].frame_base >= 0)
			fprintf(out, "  # locals\n  _fb_%d:long\n", l.all[i].frame_base);
		free(l.all[i].name);
		free(l.all[i].signature);
		free(l.all[i].body);
	}
	free(l.all);
	return n > 0;
}

/* ---- The values a return probe saves at the entry ----
 *
 * stap saves each @entry(expr) of a return point in two globals of its own,
 * "__global_entry_tvar_entry_N:TYPE [long, long]" (by thread and depth) and
 * "..._entry_N_ctr:long [long]", N counted over the program as the functions are (each
 * point's copy in turn, dead code too), and listed before the globals the probe names
 * first. The point has a ".call" point before it, both with the local
 * "_entry_tvar_tid:long" (of tid(), listed among the functions), the return point also
 * "__global_entry_tvar_entry_N_tmp:TYPE" of each. A $x a return probe reads (its value at
 * the entry, an @entry of ours too) stap saves in the kretprobe's data instead: a ".call"
 * point, the library's _get_kretprobe_TYPE and _set_kretprobe_TYPE, and embedded C of its
 * own (not listed: stap's code). Those of the library's aliases are not listed, nor counted
 * (stap's tapsets are not ours).
 */

/* The @entry(...) of a body that are still there, by number within the body. */
struct entries {
	struct walk_data walk;
	const struct node **all;	/* [synth_seq - 1]: NULL where dropped */
	int len;
};

static void note_entry(struct node *n, bool written, void *data)
{
	struct entries *t = data;

	(void)written;
	if (n->kind == N_ENTRY && n->synth_seq > 0 && n->synth_seq <= t->len)
		t->all[n->synth_seq - 1] = n;
}

static struct entries find_entries(const struct derived_probe *p)
{
	struct entries t = { .len = p->synth_count[SYNTH_ENTRIES] };

	t.all = xcalloc((size_t)t.len + 1, sizeof(*t.all));
	walk(p->body, false, note_entry, &t);
	return t;
}

void synth_entry_globals_print(FILE *out, const struct derived_probe *p)
{
	struct entries t = find_entries(p);
	int points = point_count(p);

	for (int point = 0; point < points; point++)
		for (int i = 0; i < t.len; i++) {
			int number = p->synth_base[SYNTH_ENTRIES] + point * t.len + i;

			if (!t.all[i])
				continue;
			fprintf(out, "__global_entry_tvar_entry_%d:%s [long, long]\n", number,
				type_name(t.all[i]->type));
			fprintf(out, "__global_entry_tvar_entry_%d_ctr:long [long]\n", number);
		}
	free(t.all);
}

int synth_entry_functions(const struct program *program,
			  const char *lines[SYNTH_ENTRY_FUNCTIONS])
{
	/* Sorted by name, as the program's; the first four by [string]. */
	static const char *const library[SYNTH_ENTRY_FUNCTIONS] = {
		"_get_kretprobe_long:long (i:long)",
		"_get_kretprobe_string:string (i:long)",
		"_set_kretprobe_long:unknown (i:long, value:long)",
		"_set_kretprobe_string:unknown (i:long, value:string)",
		"tid:long ()",
	};
	bool saved[2] = { false, false }, entries = false;
	int n = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next) {
		entries |= p->synth_count[SYNTH_ENTRIES] > 0;
		for (int i = 0; i < p->entries.len; i++)
			if (p->entries.items[i]->synth_seq < 0 &&	/* a $x read at the entry */
			    !in_tapset(p->entries.items[i]))
				saved[p->entries.items[i]->type == TYPE_STRING] = true;
	}
	for (int i = 0; i < 4; i++)
		if (saved[i % 2])
			lines[n++] = library[i];
	if (entries)
		lines[n++] = library[4];
	return n;
}

char *synth_entry_call_point(const struct derived_probe *p, const struct derived_point *d)
{
	static const char suffix[] = ".return";
	size_t len = strlen(d->pp), at;
	bool saves = false;

	/* After the point, its optional (?) or sufficient (!) mark, kept. */
	while (len && (d->pp[len - 1] == '?' || d->pp[len - 1] == '!'))
		len--;
	for (int i = 0; i < p->entries.len; i++)
		saves |= !in_tapset(p->entries.items[i]);
	if (!p->is_return || !saves || len < sizeof(suffix) - 1)
		return NULL;
	at = len - (sizeof(suffix) - 1);
	if (strncmp(d->pp + at, suffix, sizeof(suffix) - 1))
		return NULL;
	return xasprintf("%.*s.call%s", (int)at, d->pp, d->pp + len);
}

char **synth_entry_locals(const struct derived_probe *p, int point, bool call)
{
	struct entries t;
	char **locals = NULL;
	int len = 0;

	if (!p->is_return || p->synth_count[SYNTH_ENTRIES] <= 0)
		return NULL;
	ARRAY_PUSH(locals, len, xstrdup("_entry_tvar_tid:long"));
	t = find_entries(p);
	for (int i = 0; !call && i < t.len; i++)
		if (t.all[i])
			ARRAY_PUSH(locals, len,
				   xasprintf("__global_entry_tvar_entry_%d_tmp:%s",
					     p->synth_base[SYNTH_ENTRIES] + point * t.len + i,
					     type_name(t.all[i]->type)));
	ARRAY_PUSH(locals, len, (char *)NULL);
	free(t.all);
	return locals;
}
