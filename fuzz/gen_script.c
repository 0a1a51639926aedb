// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A generator of random valid stap scripts, for translator totality (fuzz/totality.sh):
 *
 *     gen_script SEED
 *
 * writes one script to stdout; the same SEED gives the same script. Scripts are typed by
 * construction: scalar globals (long, string, with and without initializers), arrays of one
 * to three keys of either type with long or string values (some with a size, some wrapping
 * with %), statistics scalars and arrays (<<<, @count @sum @min @max @avg, @hist_log,
 * @hist_linear), functions with typed parameters and return values (long, string, none)
 * that recurse on a depth parameter and call the functions before them, and begin, end,
 * timer and kernel.function probes (with $target variables). Bodies have locals, every
 * assignment operator, ++ and --, if/else, while, for, foreach over arrays and statistics
 * arrays with every kind of sorting and a limit, `in`, delete, try/catch, break, continue,
 * next, ternaries, string and long comparisons, concatenation, tapset functions, and
 * printf, sprintf, print, println, printd and printdln with every conversion (flags,
 * widths, precisions, `*`). String literals hold escapes, quotes, `*` `/`, `%{`, `??=`
 * and bytes above 127.
 *
 * An array is never written while a foreach walks it (that is a pass-2 error) and functions
 * do not write arrays, so that what pass 2 refuses stays rare.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum type { T_LONG, T_STRING, T_NONE };

#define MAX_KEYS 3
#define MAX_ARRAYS 6
#define MAX_FUNCS 8
#define MAX_LOCALS 16

struct array {
	char name[16];
	int nkeys;
	enum type keys[MAX_KEYS];
	enum type value;
	bool stats;		/* values are statistics: a[k] <<< v */
};

struct function {
	char name[16];
	int nparams;		/* the first one is the recursion depth, a long */
	enum type params[4];
	enum type ret;
};

struct local {
	char name[16];
	enum type type;
};

/* What a body may do, and its locals. */
struct body {
	struct local locals[MAX_LOCALS];
	int nlocals;
	int loop_depth;
	bool in_probe;
	bool in_function;
	int function;		/* its index when in_function */
	unsigned busy_arrays;	/* walked by an enclosing foreach: not to be written */
	int indent;
};

static uint64_t rng;
static int nglobal_longs, nglobal_strings, nstats;
/* A statistics scalar's histogram, the same at each use (stap wants one kind per variable):
 * "" for @hist_log, else the arguments after the variable of @hist_linear. */
static char stat_hist[4][32];
static struct array arrays[MAX_ARRAYS];
static int narrays;
static struct function funcs[MAX_FUNCS];
static int nfuncs;
static int counter;		/* for fresh names */

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned)(rng % n) : 0;
}

static bool chance(unsigned percent)
{
	return rnd(100) < percent;
}

static const char *pick(const char *const *items, size_t n)
{
	return items[rnd((unsigned)n)];
}

#define PICK(list) pick(list, sizeof(list) / sizeof(list[0]))

/* ---- Text: a growing buffer per expression, so that generation can nest. */

struct text {
	char *buf;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			abort();
	}
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

static void line(struct body *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line of a body; a simple statement ends with `;`, as the next one may begin with an
 * operand (`(`, `-`) that would otherwise continue it. */
static void line(struct body *b, const char *fmt, ...)
{
	va_list ap;
	int len;

	printf("%*s", b->indent * 2, "");
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = malloc((size_t)len + 1);

	if (!text)
		abort();
	va_start(ap, fmt);
	vsnprintf(text, (size_t)len + 1, fmt, ap);
	va_end(ap);
	fputs(text, stdout);
	if (len && text[len - 1] != '{' && text[len - 1] != '}')
		putchar(';');
	putchar('\n');
	free(text);
}

/* ---- Expressions */

static void gen_long(struct body *b, struct text *t, int depth);
static void gen_string(struct body *b, struct text *t, int depth);

static void gen_of(struct body *b, struct text *t, enum type type, int depth)
{
	if (type == T_STRING)
		gen_string(b, t, depth);
	else
		gen_long(b, t, depth);
}

static void number(struct text *t)
{
	static const char *const special[] = {
		"0", "1", "-1", "0x7fffffffffffffff", "0xffffffff", "9223372036854775807",
		"-9223372036854775807", "0777", "0x10", "2147483648", "4294967296", "63", "64",
	};

	switch (rnd(4)) {
	case 0:
		add(t, "%s", PICK(special));
		break;
	case 1:
		add(t, "%u", rnd(1000000));
		break;
	default:
		add(t, "%u", rnd(20));
		break;
	}
}

/* A string literal with the content that C and stap treat specially. */
static void string_literal(struct text *t)
{
	static const char *const pieces[] = {
		"text", " ", "\\n", "\\t", "\\\\", "\\\"", "*/", "/*", "%{", "%}", "?\?=", "?\?/",
		"?\?'", "'", "%%", "\\101", "\\x41", "\xc3\xa9", "\xe2\x82\xac", "\xff", "$", "#",
		"?", "{", "}", "\\r", "a very long piece of text to make the string longer than most",
	};
	int n = (int)rnd(5);

	add(t, "\"");
	for (int i = 0; i < n; i++)
		add(t, "%s", PICK(pieces));
	add(t, "\"");
}

static const struct local *local_of(const struct body *b, enum type type)
{
	int n = 0;
	const struct local *found[MAX_LOCALS];

	for (int i = 0; i < b->nlocals; i++)
		if (b->locals[i].type == type)
			found[n++] = &b->locals[i];
	return n ? found[rnd((unsigned)n)] : NULL;
}

/* An array of the given value type (any when T_NONE), not statistics; -1 if none. */
static int array_of(enum type value, bool stats, unsigned not_busy)
{
	int found[MAX_ARRAYS], n = 0;

	for (int i = 0; i < narrays; i++)
		if (arrays[i].stats == stats && (value == T_NONE || arrays[i].value == value) &&
		    !(not_busy & (1u << i)))
			found[n++] = i;
	return n ? found[rnd((unsigned)n)] : -1;
}

static void keys(struct body *b, struct text *t, const struct array *a, int depth)
{
	for (int i = 0; i < a->nkeys; i++) {
		if (i)
			add(t, ", ");
		gen_of(b, t, a->keys[i], depth);
	}
}

static int function_of(const struct body *b, enum type ret)
{
	int found[MAX_FUNCS], n = 0;
	int limit = b->in_function ? b->function + 1 : nfuncs;

	for (int i = 0; i < limit; i++)
		if (funcs[i].ret == ret)
			found[n++] = i;
	return n ? found[rnd((unsigned)n)] : -1;
}

static void call(struct body *b, struct text *t, int f, int depth)
{
	const struct function *fn = &funcs[f];

	add(t, "%s(", fn->name);
	if (b->in_function && f == b->function)
		add(t, "d - 1");	/* recursion, to the depth check at its top */
	else
		add(t, "%u", rnd(4));
	for (int i = 1; i < fn->nparams; i++) {
		add(t, ", ");
		gen_of(b, t, fn->params[i], depth);
	}
	add(t, ")");
}

static void stat_value(struct body *b, struct text *t, int depth)
{
	static const char *const ops[] = { "@count", "@sum", "@min", "@max", "@avg" };
	int a = array_of(T_NONE, true, 0);

	if (a >= 0 && chance(50)) {
		add(t, "%s(%s[", PICK(ops), arrays[a].name);
		keys(b, t, &arrays[a], depth);
		add(t, "])");
	} else {
		add(t, "%s(st%u)", PICK(ops), rnd((unsigned)nstats));
	}
}

static void gen_long(struct body *b, struct text *t, int depth)
{
	static const char *const binary[] = { "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
					      "&&", "||", "<", ">", "<=", ">=", "==", "!=" };
	static const char *const compare[] = { "<", ">", "<=", ">=", "==", "!=" };
	static const char *const unary[] = { "-", "!", "~", "+" };
	static const char *const tapset[] = { "pid()", "tid()", "cpu()", "uid()",
					      "gettimeofday_ns()", "jiffies()", "get_cycles()" };
	const struct local *l;
	int a, f;
	unsigned choice = depth <= 0 ? rnd(4) : rnd(22);

	switch (choice) {
	case 0:
		number(t);
		return;
	case 1:
		if ((l = local_of(b, T_LONG))) {
			add(t, "%s", l->name);
			return;
		}
		number(t);
		return;
	case 2:
		add(t, "gl%u", rnd((unsigned)nglobal_longs));
		return;
	case 3:
		add(t, "%s", PICK(tapset));
		return;
	case 4: case 5: case 6:
		add(t, "(");
		gen_long(b, t, depth - 1);
		add(t, " %s ", PICK(binary));
		gen_long(b, t, depth - 1);
		add(t, ")");
		return;
	case 7:
		add(t, "(");
		gen_string(b, t, depth - 1);
		add(t, " %s ", PICK(compare));
		gen_string(b, t, depth - 1);
		add(t, ")");
		return;
	case 8:
		add(t, "%s", PICK(unary));
		add(t, "(");
		gen_long(b, t, depth - 1);
		add(t, ")");
		return;
	case 9:
		add(t, "(");
		gen_long(b, t, depth - 1);
		add(t, " ? ");
		gen_long(b, t, depth - 1);
		add(t, " : ");
		gen_long(b, t, depth - 1);
		add(t, ")");
		return;
	case 10:
		if ((a = array_of(T_LONG, false, 0)) >= 0) {
			add(t, "%s[", arrays[a].name);
			keys(b, t, &arrays[a], depth - 1);
			add(t, "]");
			return;
		}
		number(t);
		return;
	case 11:
		if ((f = function_of(b, T_LONG)) >= 0) {
			call(b, t, f, depth - 1);
			return;
		}
		number(t);
		return;
	case 12:
		add(t, "strlen(");
		gen_string(b, t, depth - 1);
		add(t, ")");
		return;
	case 13:
		stat_value(b, t, depth - 1);
		return;
	case 14:
		a = (int)rnd((unsigned)narrays);
		if (arrays[a].nkeys == 1 || chance(50)) {
			add(t, "(");
			if (arrays[a].nkeys > 1)
				add(t, "[");
			keys(b, t, &arrays[a], depth - 1);
			add(t, "%s in %s)", arrays[a].nkeys > 1 ? "]" : "", arrays[a].name);
		} else {
			add(t, "([");
			keys(b, t, &arrays[a], depth - 1);
			add(t, "] in %s)", arrays[a].name);
		}
		return;
	case 15:
		if ((l = local_of(b, T_LONG))) {
			static const char *const incdec[] = { "++%s", "--%s", "%s++", "%s--" };

			add(t, PICK(incdec), l->name);
			return;
		}
		number(t);
		return;
	case 16:
		add(t, "isinstr(");
		gen_string(b, t, depth - 1);
		add(t, ", ");
		gen_string(b, t, depth - 1);
		add(t, ")");
		return;
	case 17:
		add(t, "strtol(\"%u\", %s)", rnd(100), chance(50) ? "10" : "16");
		return;
	case 18:
		for (int i = 0; i < nstats; i++) {
			if (*stat_hist[i]) {
				add(t, "@hist_linear(st%d%s)[%u]", i, stat_hist[i], rnd(12));
				return;
			}
		}
		add(t, "@hist_log(st0)[%u]", rnd(64));
		return;
	case 19:
		add(t, "strpos(");
		gen_string(b, t, depth - 1);
		add(t, ", ");
		gen_string(b, t, depth - 1);
		add(t, ")");
		return;
	case 20:
		add(t, "stringat(");
		gen_string(b, t, depth - 1);
		add(t, ", %u)", rnd(3));
		return;
	default:
		add(t, "(gl%u = ", rnd((unsigned)nglobal_longs));
		gen_long(b, t, depth - 1);
		add(t, ")");
		return;
	}
}

static void format_args(struct body *b, struct text *t, int depth);

static void gen_string(struct body *b, struct text *t, int depth)
{
	const struct local *l;
	int a, f;
	unsigned choice = depth <= 0 ? rnd(3) : rnd(12);

	switch (choice) {
	case 0:
		string_literal(t);
		return;
	case 1:
		if ((l = local_of(b, T_STRING))) {
			add(t, "%s", l->name);
			return;
		}
		string_literal(t);
		return;
	case 2:
		add(t, "gs%u", rnd((unsigned)nglobal_strings));
		return;
	case 3: case 4:
		add(t, "(");
		gen_string(b, t, depth - 1);
		add(t, " . ");
		gen_string(b, t, depth - 1);
		add(t, ")");
		return;
	case 5:
		add(t, "sprintf(");
		format_args(b, t, depth - 1);
		add(t, ")");
		return;
	case 6:
		add(t, "substr(");
		gen_string(b, t, depth - 1);
		add(t, ", %u, %u)", rnd(5), rnd(10));
		return;
	case 7:
		add(t, "(");
		gen_long(b, t, depth - 1);
		add(t, " ? ");
		gen_string(b, t, depth - 1);
		add(t, " : ");
		gen_string(b, t, depth - 1);
		add(t, ")");
		return;
	case 8:
		if ((a = array_of(T_STRING, false, 0)) >= 0) {
			add(t, "%s[", arrays[a].name);
			keys(b, t, &arrays[a], depth - 1);
			add(t, "]");
			return;
		}
		string_literal(t);
		return;
	case 9:
		if ((f = function_of(b, T_STRING)) >= 0) {
			call(b, t, f, depth - 1);
			return;
		}
		string_literal(t);
		return;
	case 10:
		add(t, "%s", chance(50) ? "execname()" : "pp()");
		return;
	default:
		add(t, "%s(", chance(50) ? "sprint" : "sprintln");
		gen_of(b, t, chance(50) ? T_LONG : T_STRING, depth - 1);
		add(t, ")");
		return;
	}
}

/* A format string and its arguments: every conversion, flag, width and precision. */
static void format_args(struct body *b, struct text *t, int depth)
{
	static const char conversions[] = "diuoxXpscbmM";
	static const char flags[] = "-+ #0";
	struct text fmt = { 0 }, args = { 0 };
	int n = 1 + (int)rnd(4);

	add(&fmt, "\"");
	for (int i = 0; i < n; i++) {
		char conv = conversions[rnd(sizeof(conversions) - 1)];

		if (chance(50))
			add(&fmt, "%s", PICK(((const char *const[]){ "x=", " ", "\\n", "%%", "*/", "?\?=", "\\\"" })));
		add(&fmt, "%%");
		if (chance(30))
			add(&fmt, "%c", flags[rnd(sizeof(flags) - 1)]);
		if (chance(15)) {
			add(&fmt, "*");
			add(&args, ", %u", rnd(20));
		} else if (chance(30)) {
			add(&fmt, "%u", rnd(20));
		}
		if (conv == 'm' || conv == 'M') {
			/* Memory dumps read their argument as an address: a small one, so the
			 * script stays harmless if it ever runs; their length as a precision. */
			add(&fmt, ".%u%c", rnd(8), conv);
			add(&args, ", 0");
			continue;
		}
		if (chance(20)) {
			if (chance(30)) {
				add(&fmt, ".*");
				add(&args, ", %u", rnd(10));
			} else {
				add(&fmt, ".%u", rnd(10));
			}
		}
		add(&fmt, "%c", conv);
		add(&args, ", ");
		gen_of(b, &args, conv == 's' ? T_STRING : T_LONG, depth);
	}
	add(&fmt, "\\n\"");
	add(t, "%s%s", fmt.buf, args.buf ? args.buf : "");
	free(fmt.buf);
	free(args.buf);
}

/* ---- Statements */

static void gen_block(struct body *b, int nstatements, int depth);

static char *expr_text(struct body *b, enum type type, int depth)
{
	struct text t = { 0 };

	gen_of(b, &t, type, depth);
	return t.buf;
}

static const struct local *new_local(struct body *b, enum type type)
{
	struct local *l;

	if (b->nlocals == MAX_LOCALS)
		return local_of(b, type);
	l = &b->locals[b->nlocals++];
	snprintf(l->name, sizeof(l->name), "%c%d", type == T_STRING ? 's' : 'n', counter++);
	l->type = type;
	return l;
}

static void assign_local(struct body *b)
{
	enum type type = chance(60) ? T_LONG : T_STRING;
	char *value = expr_text(b, type, 2);
	const struct local *l = chance(40) ? local_of(b, type) : NULL;

	if (!l) {
		l = new_local(b, type);
		if (!l) {
			free(value);
			return;
		}
		line(b, "%s = %s", l->name, value);
	} else if (type == T_LONG) {
		static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=",
						   "&=", "|=", "^=" };

		line(b, "%s %s %s", l->name, PICK(ops), value);
	} else {
		line(b, "%s %s %s", l->name, chance(50) ? "=" : ".=", value);
	}
	free(value);
}

static void assign_global(struct body *b)
{
	char *value;

	if (chance(50)) {
		value = expr_text(b, T_LONG, 2);
		line(b, "gl%u %s %s", rnd((unsigned)nglobal_longs), chance(50) ? "=" : "+=", value);
	} else {
		value = expr_text(b, T_STRING, 2);
		line(b, "gs%u %s %s", rnd((unsigned)nglobal_strings), chance(50) ? "=" : ".=", value);
	}
	free(value);
}

static void write_array(struct body *b)
{
	struct text t = { 0 };
	int a = array_of(T_NONE, chance(30), b->busy_arrays);

	if (a < 0 || b->in_function)
		return;
	add(&t, "%s[", arrays[a].name);
	keys(b, &t, &arrays[a], 1);
	add(&t, "]");
	if (arrays[a].stats) {
		add(&t, " <<< ");
		gen_long(b, &t, 1);
	} else if (chance(15)) {
		line(b, "delete %s", t.buf);
		free(t.buf);
		return;
	} else if (arrays[a].value == T_LONG) {
		add(&t, " %s ", chance(70) ? "=" : "+=");
		gen_long(b, &t, 2);
	} else {
		add(&t, " %s ", chance(70) ? "=" : ".=");
		gen_string(b, &t, 2);
	}
	line(b, "%s", t.buf);
	free(t.buf);
}

static void print_statement(struct body *b)
{
	struct text t = { 0 };

	switch (rnd(6)) {
	case 0: case 1:
		format_args(b, &t, 1);
		line(b, "printf(%s)", t.buf);
		break;
	case 2:
		gen_of(b, &t, chance(50) ? T_LONG : T_STRING, 2);
		line(b, "%s(%s)", chance(50) ? "print" : "println", t.buf);
		break;
	case 3:
		string_literal(&t);
		for (int i = 0, n = 2 + (int)rnd(3); i < n; i++) {
			add(&t, ", ");
			gen_of(b, &t, chance(50) ? T_LONG : T_STRING, 1);
		}
		line(b, "%s(%s)", chance(50) ? "printd" : "printdln", t.buf);
		break;
	default: {
		unsigned st = rnd((unsigned)nstats);

		if (*stat_hist[st])
			line(b, "print(@hist_linear(st%u%s))", st, stat_hist[st]);
		else
			line(b, "print(@hist_log(st%u))", st);
		break;
	}
	}
	free(t.buf);
}

/* foreach over an array (or statistics array) with sorting on the value or a key. */
static void foreach_statement(struct body *b, int depth)
{
	int a = (int)rnd((unsigned)narrays);
	const struct array *arr = &arrays[a];
	struct text head = { 0 };
	char names[MAX_KEYS][16];
	const char *sorts[] = { "", "+", "-" };
	int sort_key = chance(30) ? (int)rnd((unsigned)arr->nkeys) : -1;
	bool bracket = arr->nkeys > 1 || chance(50);
	const char *value_name = NULL;

	for (int i = 0; i < arr->nkeys; i++)
		snprintf(names[i], sizeof(names[i]), "k%d", counter++);
	if (!arr->stats && chance(40) && b->nlocals < MAX_LOCALS) {
		const struct local *v = new_local(b, arr->value);

		value_name = v->name;
		add(&head, "%s = ", value_name);
	}
	if (bracket)
		add(&head, "[");
	for (int i = 0; i < arr->nkeys; i++)
		add(&head, "%s%s%s", i ? ", " : "", names[i],
		    i == sort_key ? sorts[1 + rnd(2)] : "");
	if (bracket)
		add(&head, "]");
	add(&head, " in %s", arr->name);
	if (sort_key < 0 && chance(50)) {
		if (arr->stats)
			add(&head, " %s%s", PICK(((const char *const[]){ "@count", "@sum", "@min",
									 "@max", "@avg" })),
			    sorts[1 + rnd(2)]);
		else
			add(&head, "%s", sorts[rnd(3)]);
	}
	if (chance(30))
		add(&head, " limit %u", 1 + rnd(10));
	line(b, "foreach (%s) {", head.buf);
	free(head.buf);
	for (int i = 0; i < arr->nkeys && b->nlocals < MAX_LOCALS; i++) {
		struct local *l = &b->locals[b->nlocals++];

		snprintf(l->name, sizeof(l->name), "%s", names[i]);
		l->type = arr->keys[i];
	}
	b->busy_arrays |= 1u << a;
	b->loop_depth++;
	b->indent++;
	if (arr->stats) {
		struct text t = { 0 };

		for (int i = 0; i < arr->nkeys; i++)
			add(&t, "%s%s", i ? ", " : "", names[i]);
		line(b, "printf(\"%%d\\n\", @count(%s[%s]))", arr->name, t.buf);
		free(t.buf);
	}
	gen_block(b, 1 + (int)rnd(3), depth - 1);
	b->indent--;
	b->loop_depth--;
	b->busy_arrays &= ~(1u << a);
	/* The loop's variables keep their types after it: later statements may use them. */
	line(b, "}");
}

static void statement(struct body *b, int depth)
{
	char *e;
	unsigned choice = depth <= 0 ? rnd(6) : rnd(17);

	switch (choice) {
	case 0: case 1:
		assign_local(b);
		return;
	case 2:
		assign_global(b);
		return;
	case 3:
		write_array(b);
		return;
	case 4:
		print_statement(b);
		return;
	case 5:
		if (b->in_function)
			line(b, "st%u <<< %u", rnd((unsigned)nstats), rnd(1000));
		else
			line(b, "st%u <<< gl0", rnd((unsigned)nstats));
		return;
	case 6: case 7:
		e = expr_text(b, T_LONG, 2);
		line(b, "if (%s) {", e);
		free(e);
		b->indent++;
		gen_block(b, 1 + (int)rnd(3), depth - 1);
		b->indent--;
		if (chance(50)) {
			line(b, "} else {");
			b->indent++;
			gen_block(b, 1 + (int)rnd(2), depth - 1);
			b->indent--;
		}
		line(b, "}");
		return;
	case 8: {
		const struct local *i = new_local(b, T_LONG);

		if (!i)
			return;
		line(b, "for (%s = 0; %s < %u; %s++) {", i->name, i->name, 1 + rnd(5), i->name);
		b->loop_depth++;
		b->indent++;
		gen_block(b, 1 + (int)rnd(3), depth - 1);
		b->indent--;
		b->loop_depth--;
		line(b, "}");
		return;
	}
	case 9: {
		const struct local *i = new_local(b, T_LONG);

		if (!i)
			return;
		line(b, "%s = %u", i->name, rnd(5));
		line(b, "while (%s-- > 0) {", i->name);
		b->loop_depth++;
		b->indent++;
		gen_block(b, 1 + (int)rnd(3), depth - 1);
		b->indent--;
		b->loop_depth--;
		line(b, "}");
		return;
	}
	case 10: case 11:
		foreach_statement(b, depth);
		return;
	case 12:
		line(b, "try {");
		b->indent++;
		gen_block(b, 1 + (int)rnd(2), depth - 1);
		if (chance(50)) {
			e = expr_text(b, T_STRING, 1);
			line(b, "error(%s)", e);
			free(e);
		}
		b->indent--;
		if (chance(60) && b->nlocals < MAX_LOCALS) {
			const struct local *m = new_local(b, T_STRING);

			line(b, "} catch (%s) {", m->name);
		} else {
			line(b, "} catch {");
		}
		b->indent++;
		gen_block(b, 1, depth - 1);
		b->indent--;
		line(b, "}");
		return;
	case 13:
		if (b->loop_depth && chance(50)) {
			e = expr_text(b, T_LONG, 1);
			line(b, "if (%s) %s", e, chance(50) ? "break" : "continue");
			free(e);
			return;
		}
		if (b->in_probe && !b->loop_depth && chance(20)) {
			e = expr_text(b, T_LONG, 1);
			line(b, "if (%s) next", e);
			free(e);
			return;
		}
		assign_local(b);
		return;
	case 14: {
		int f = function_of(b, T_NONE);
		struct text t = { 0 };

		if (f < 0) {
			print_statement(b);
			return;
		}
		call(b, &t, f, 1);
		line(b, "%s", t.buf);
		free(t.buf);
		return;
	}
	case 15:
		if (!b->in_function && chance(50)) {
			int a = array_of(T_NONE, chance(30), b->busy_arrays);

			if (a >= 0) {
				line(b, "delete %s", arrays[a].name);
				return;
			}
		}
		e = expr_text(b, T_LONG, 2);
		line(b, "%s", e);	/* an expression statement */
		free(e);
		return;
	default:
		print_statement(b);
		return;
	}
}

static void gen_block(struct body *b, int nstatements, int depth)
{
	for (int i = 0; i < nstatements; i++)
		statement(b, depth);
}

/* ---- Declarations */

static void declare_globals(void)
{
	nglobal_longs = 1 + (int)rnd(4);
	nglobal_strings = 1 + (int)rnd(3);
	nstats = 1 + (int)rnd(3);
	for (int i = 0; i < nglobal_longs; i++) {
		if (chance(40)) {
			struct text t = { 0 };

			number(&t);
			printf("global gl%d = %s\n", i, t.buf);
			free(t.buf);
		} else {
			printf("global gl%d\n", i);
		}
	}
	for (int i = 0; i < nglobal_strings; i++) {
		if (chance(40)) {
			struct text t = { 0 };

			string_literal(&t);
			printf("global gs%d = %s\n", i, t.buf);
			free(t.buf);
		} else {
			printf("global gs%d\n", i);
		}
	}
	for (int i = 0; i < nstats; i++) {
		printf("global st%d\n", i);
		if (chance(50))
			snprintf(stat_hist[i], sizeof(stat_hist[i]), ", %d, %u, %u", -(int)rnd(10),
				 10 + rnd(100), 1 + rnd(10));
	}
	narrays = 1 + (int)rnd(MAX_ARRAYS);
	for (int i = 0; i < narrays; i++) {
		struct array *a = &arrays[i];

		snprintf(a->name, sizeof(a->name), "%s%d", i % 3 == 2 ? "as" : "a", i);
		a->stats = i % 3 == 2;
		a->nkeys = 1 + (int)rnd(MAX_KEYS);
		for (int k = 0; k < a->nkeys; k++)
			a->keys[k] = chance(60) ? T_LONG : T_STRING;
		a->value = a->stats || chance(60) ? T_LONG : T_STRING;
		switch (rnd(4)) {
		case 0:
			printf("global %s[%u]\n", a->name, 10 + rnd(1000));
			break;
		case 1:
			printf("global %s%%[%u]\n", a->name, 10 + rnd(100));
			break;
		default:
			printf("global %s\n", a->name);
			break;
		}
	}
}

static const char *type_suffix(enum type type)
{
	return type == T_STRING ? ":string" : type == T_LONG ? ":long" : "";
}

static void define_function(int index)
{
	struct function *f = &funcs[index];
	struct body b = { .in_function = true, .function = index, .indent = 1 };

	snprintf(f->name, sizeof(f->name), "f%d", index);
	f->ret = (enum type)rnd(3);
	f->nparams = 1 + (int)rnd(4);
	f->params[0] = T_LONG;
	printf("\nfunction %s%s(d:long", f->name, type_suffix(f->ret));
	for (int i = 1; i < f->nparams; i++) {
		struct local *l = &b.locals[b.nlocals++];

		f->params[i] = chance(50) ? T_LONG : T_STRING;
		snprintf(l->name, sizeof(l->name), "p%d", i);
		l->type = f->params[i];
		printf(", p%d%s", i, type_suffix(f->params[i]));
	}
	printf(") {\n");
	b.locals[b.nlocals++] = (struct local){ "d", T_LONG };
	if (f->ret == T_NONE) {
		line(&b, "if (d <= 0) return");
	} else {
		char *base = expr_text(&b, f->ret, 0);

		line(&b, "if (d <= 0) return %s", base);
		free(base);
	}
	gen_block(&b, 1 + (int)rnd(4), 2);
	if (f->ret != T_NONE) {
		char *value = expr_text(&b, f->ret, 2);

		line(&b, "return %s", value);
		free(value);
	}
	printf("}\n");
}

static void define_probe(const char *point, const char *const *target_vars, int nvars)
{
	struct body b = { .in_probe = true, .indent = 1 };

	printf("\nprobe %s {\n", point);
	if (!strcmp(point, "begin")) {
		/* Each array written once, so that each has its types. */
		for (int a = 0; a < narrays; a++) {
			struct text t = { 0 };

			keys(&b, &t, &arrays[a], 1);
			if (arrays[a].stats)
				line(&b, "%s[%s] <<< %u", arrays[a].name, t.buf, rnd(100));
			else if (arrays[a].value == T_LONG)
				line(&b, "%s[%s] = %u", arrays[a].name, t.buf, rnd(100));
			else
				line(&b, "%s[%s] = \"v\"", arrays[a].name, t.buf);
			free(t.buf);
		}
	}
	for (int i = 0; i < nvars; i++) {
		const struct local *l = new_local(&b, T_LONG);

		line(&b, "%s = %s", l->name, target_vars[i]);
	}
	gen_block(&b, 2 + (int)rnd(6), 3);
	printf("}\n");
}

int main(int argc, char **argv)
{
	static const char *const read_vars[] = { "$count", "$file->f_flags", "$pos ? 1 : 0" };
	static const char *const ret_vars[] = { "$return", "@entry($count)" };
	unsigned long long seed;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SEED\n", argv[0]);
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	rng = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	for (int i = 0; i < 4; i++)
		rnd(1);
	printf("# gen_script %llu\n", seed);
	declare_globals();
	nfuncs = (int)rnd(MAX_FUNCS + 1);
	for (int i = 0; i < nfuncs; i++)
		define_function(i);
	define_probe("begin", NULL, 0);
	if (chance(50))
		define_probe(chance(50) ? "timer.ms(100)" : "timer.s(1)", NULL, 0);
	if (chance(40))
		define_probe("kernel.function(\"vfs_read\")", read_vars, 1 + (int)rnd(2));
	if (chance(25))
		define_probe("kernel.function(\"vfs_read\").return", ret_vars, 1 + (int)rnd(2));
	define_probe("end", NULL, 0);
	return 0;
}
