// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap's regular expressions, parsed and compiled (see regex.h).
 *
 * The parser follows stap's grammar and its quirks, which scripts can observe:
 *  - the pattern's escapes are decoded as the parser reads, so "\." is `.` (any character)
 *    and "\\." a literal dot; an error's position is in the literal as written;
 *  - a `)` that ends the pattern is ignored; `(?:` does not swallow its `:`;
 *  - alternatives that are single characters or classes merge into one class, placed
 *    first (this decides which alternative a subexpression reports);
 *  - x{m,n} is (max - min) optional copies of x, then min copies; with n < m, nothing;
 *  - `^` matches at the start of the string only, `$` consumes its end.
 * Matching (runtime/regex.h) reports the first match to end, leftmost among those, and then
 * the longest match from that same start; subexpressions by priority (the left
 * alternative, the longer repetition).
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/regex.h"
#include "util.h"

/* Longer patterns are refused before parsing: parsing and compiling recurse over them. */
#define MAX_PATTERN_LEN 8192
#define MAX_NESTING 256
/* stap's bound on a repetition count. */
#define MAX_REPETITIONS 12345

/* Characters are 0..127 and 128, which stands for every byte above 127. */
#define OTHER_CHAR 128

enum rx_kind {
	RX_EMPTY,
	RX_SET,		/* one character of `set` */
	RX_BOL,
	RX_EOL,
	RX_TAG,		/* note the position in tag `tag` */
	RX_CAT,		/* a then b */
	RX_ALT,		/* a or b, a preferred */
	RX_PLUS,	/* a, once or more, more preferred */
	RX_REPEAT,	/* a{min,max}; max -1: no bound */
};

struct rx_node {
	enum rx_kind kind;
	int a, b;
	int min, max;
	int tag;
	uint8_t set[32];	/* bits over 0..255; folded to 0..128 when emitted */
};

struct parser {
	const char *in;
	int len;
	int pos;		/* of the next character as written */
	int last_pos;		/* where the character last read was written */
	bool finished;		/* everything written has been read */
	bool has_next;		/* a character read ahead (peeked) */
	unsigned char next_c;

	struct rx_node *nodes;
	int nnodes, room;
	int nsub;		/* groups so far, group 0 included */
	int depth;

	struct regex_insn *insns;
	int ninsns, insn_room;
	uint8_t (*classes)[REGEX_CLASS_BYTES];
	int nclasses;

	char *number;		/* the digits of the last count read */
	jmp_buf *fail;
	char *message;
	int position;
};

static __attribute__((noreturn, format(printf, 3, 4)))
void fail(struct parser *p, int position, const char *fmt, ...)
{
	struct strbuf message = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&message, fmt, ap);
	va_end(ap);
	free(p->message);
	p->message = sb_steal(&message);
	p->position = position;
	longjmp(*p->fail, 1);
}

/* ---- Reading the pattern, its escapes decoded ---- */

static int hex_digit(char c)
{
	const char *digits = "0123456789abcdef";
	const char *d = c ? strchr(digits, tolower((unsigned char)c)) : NULL;

	return d ? (int)(d - digits) : -1;
}

static int octal_digit(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

static unsigned char decode_hex(struct parser *p)
{
	int d1, d2;

	if (p->pos >= p->len - 2)
		fail(p, p->pos, "two hex digits required in escape sequence");
	d1 = hex_digit(p->in[p->pos + 1]);
	d2 = hex_digit(p->in[p->pos + 2]);
	if (d1 < 0 || d2 < 0)
		fail(p, p->pos + (d1 >= 0 ? 1 : 2), "two hex digits required in escape sequence");
	p->pos += 2;
	return (unsigned char)(d1 << 4 | d2);
}

static unsigned char decode_octal(struct parser *p)
{
	int d0, d1, d2;

	if (p->pos >= p->len - 2)
		fail(p, p->pos, "three octal digits required in escape sequence");
	d0 = octal_digit(p->in[p->pos]);
	d1 = octal_digit(p->in[p->pos + 1]);
	d2 = octal_digit(p->in[p->pos + 2]);
	if (d0 < 0 || d1 < 0 || d2 < 0)
		fail(p, p->pos + (d1 >= 0 ? 1 : 2),
		     "three octal digits required in escape sequence");
	p->pos += 2;
	return (unsigned char)(d0 << 6 | d1 << 3 | d2);
}

/* Reads one character ahead, decoding an escape. */
static void read_ahead(struct parser *p)
{
	unsigned char c = (unsigned char)p->in[p->pos];

	p->last_pos = p->pos;
	if (c == '\\') {
		p->pos++;
		if (p->pos >= p->len)
			fail(p, p->pos, "unexpected end of regex");
		c = (unsigned char)p->in[p->pos];
		switch (c) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 't': c = '\t'; break;
		case 'n': c = '\n'; break;
		case 'v': c = '\v'; break;
		case 'f': c = '\f'; break;
		case 'r': c = '\r'; break;
		case 'x': c = decode_hex(p); break;
		case '4': case '5': case '6': case '7':
			fail(p, p->pos, "octal escape sequence out of range");
		case '0': case '1': case '2': case '3':
			c = decode_octal(p);
			break;
		default:
			break;	/* the character itself */
		}
	}
	p->next_c = c;
	p->has_next = true;
	p->pos++;
	p->finished = p->pos >= p->len;
}

/* The next character without taking it; 0 at the end. */
static unsigned char peek(struct parser *p)
{
	if (!p->has_next && !p->finished)
		read_ahead(p);
	return p->has_next ? p->next_c : 0;
}

static unsigned char take(struct parser *p)
{
	if (!p->has_next && p->finished)
		fail(p, p->pos, "unexpected end of regex");
	if (!p->has_next)
		read_ahead(p);
	p->has_next = false;
	return p->next_c;
}

/* At least n characters as written remain (stap's unsigned arithmetic: always, when the
 * pattern is shorter than n). */
static bool has(const struct parser *p, int n)
{
	return p->len < n || p->pos <= p->len - n;
}

static void expect(struct parser *p, unsigned char expected)
{
	jmp_buf here, *outer = p->fail;
	unsigned char c;

	p->fail = &here;
	if (setjmp(here)) {
		p->fail = outer;
		fail(p, p->last_pos, "expected %c, found end of regex", expected);
	}
	c = take(p);
	p->fail = outer;
	if (c != expected)
		fail(p, p->last_pos, "expected %c, found %c", expected, c);
}

/* ---- The tree ---- */

static int new_node(struct parser *p, enum rx_kind kind, int a, int b)
{
	struct rx_node *n;

	if (p->nnodes == p->room) {
		p->room = p->room ? 2 * p->room : 64;
		p->nodes = xrealloc(p->nodes, (size_t)p->room * sizeof(*p->nodes));
	}
	n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->a = a;
	n->b = b;
	return p->nnodes++;
}

static void set_add_range(uint8_t *set, unsigned lo, unsigned hi)
{
	for (unsigned c = lo; c <= hi && c < 256; c++)
		set[c / 8] |= (uint8_t)(1u << (c % 8));
}

static bool set_has(const uint8_t *set, unsigned c)
{
	return set[c / 8] & (1u << (c % 8));
}

static int new_set(struct parser *p, unsigned lo, unsigned hi)
{
	int n = new_node(p, RX_SET, -1, -1);

	set_add_range(p->nodes[n].set, lo, hi);
	return n;
}

static int any_char(struct parser *p)
{
	return new_set(p, 1, OTHER_CHAR);
}

static int cat(struct parser *p, int a, int b)
{
	return new_node(p, RX_CAT, a, b);
}

static int empty(struct parser *p)
{
	return new_node(p, RX_EMPTY, -1, -1);
}

static int tagged(struct parser *p, int re, int group)
{
	int start = new_node(p, RX_TAG, -1, -1), end = new_node(p, RX_TAG, -1, -1);

	p->nodes[start].tag = 2 * group;
	p->nodes[end].tag = 2 * group + 1;
	return cat(p, cat(p, start, re), end);
}

/* One side of an alternative, taken apart: the set it starts with (or -1) and the rest
 * (or -1), as stap merges single-character alternatives. */
static void alt_parts(const struct parser *p, int re, int *set, int *rest)
{
	const struct rx_node *n = &p->nodes[re];

	*set = -1;
	*rest = re;
	if (n->kind == RX_ALT && p->nodes[n->a].kind == RX_SET) {
		*set = n->a;
		*rest = n->b;
	} else if (n->kind == RX_SET) {
		*set = re;
		*rest = -1;
	}
}

static int either(struct parser *p, int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return new_node(p, RX_ALT, a, b);
}

static int alternative(struct parser *p, int a, int b)
{
	int set_a, rest_a, set_b, rest_b, merged = -1;

	alt_parts(p, a, &set_a, &rest_a);
	alt_parts(p, b, &set_b, &rest_b);
	if (set_a >= 0 || set_b >= 0) {
		merged = new_node(p, RX_SET, -1, -1);
		for (int i = 0; i < 32; i++)
			p->nodes[merged].set[i] = (uint8_t)((set_a >= 0 ? p->nodes[set_a].set[i] : 0) |
							    (set_b >= 0 ? p->nodes[set_b].set[i] : 0));
	}
	return either(p, merged, either(p, rest_a, rest_b));
}

/* ---- The grammar ---- */

static bool is_special(unsigned char c)
{
	return c && strchr(".[{()\\*+?|^$", c);
}

static bool is_closure(unsigned char c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

static int parse_expr(struct parser *p);

static const struct {
	const char *name;
	const char *members;	/* ranges as lo-hi pairs of characters */
} named_classes[] = {
	{ "alpha", "AZaz" }, { "alnum", "AZaz09" }, { "blank", "  \t\t" },
	{ "cntrl", "\x01\x1f\x7f\x7f" }, { "d", "09" }, { "digit", "09" },
	{ "xdigit", "09afAF" }, { "graph", "\x21\x7e" }, { "l", "az" }, { "lower", "az" },
	{ "print", "\x20\x7e" }, { "punct", "!/:@[`{~" }, { "s", "  \t\r" },
	{ "space", "  \t\r" }, { "u", "AZ" }, { "upper", "AZ" },
};

static void add_named_class(struct parser *p, uint8_t *set, const char *name)
{
	for (size_t i = 0; i < sizeof(named_classes) / sizeof(named_classes[0]); i++) {
		const char *m = named_classes[i].members;

		if (strcmp(named_classes[i].name, name))
			continue;
		for (; *m; m += 2)
			set_add_range(set, (unsigned char)m[0], (unsigned char)m[1]);
		return;
	}
	fail(p, -1, "unknown character class '%s'", name);
}

/* `[:name:]` after its `[`, the `:` peeked. */
static void parse_named_class(struct parser *p, uint8_t *set)
{
	struct strbuf name = { 0 };
	unsigned char c;

	take(p);
	c = peek(p);
	for (;;) {
		if (p->finished)
			fail(p, p->pos, "unclosed character class '[:%s'", name.buf ? name.buf : "");
		if (has(p, 2) && c == ':' && p->in[p->pos] == ']') {
			take(p);
			take(p);
			add_named_class(p, set, name.buf ? name.buf : "");
			free(name.buf);
			return;
		}
		sb_addc(&name, (char)c);
		take(p);
		c = peek(p);
	}
}

/* One member of a bracket expression: a character, a range or a named class. */
static void parse_class_member(struct parser *p, uint8_t *set)
{
	unsigned char c = peek(p), lo, hi;

	if (c == '\\') {
		take(p);
		c = peek(p);
		take(p);
	} else if (c == '[') {
		take(p);
		c = peek(p);
		if (c == ':') {
			parse_named_class(p, set);
			return;
		}
		c = '[';
	} else {
		take(p);
	}
	lo = hi = c;
	if (has(p, 2) && peek(p) == '-' && p->in[p->pos] != ']') {
		take(p);
		hi = peek(p);
		if (hi < lo)
			fail(p, p->pos, "Inverted character range %c-%c", lo, hi);
		take(p);
	}
	set_add_range(set, lo, hi);
}

static int parse_class(struct parser *p)
{
	int n = new_node(p, RX_SET, -1, -1);
	uint8_t set[32] = { 0 };
	bool inverted = false;

	if (peek(p) == '^') {
		inverted = true;
		take(p);
	}
	do {
		if (p->finished)
			fail(p, p->last_pos, "unclosed character class");
		parse_class_member(p, set);
	} while (peek(p) != ']');
	if (inverted) {
		uint8_t all[32] = { 0 };

		set_add_range(all, 1, OTHER_CHAR);
		for (int i = 0; i < 32; i++)
			set[i] = all[i] & (uint8_t)~set[i];
	}
	memcpy(p->nodes[n].set, set, sizeof(set));
	return n;
}

static int parse_number(struct parser *p)
{
	struct strbuf digits = { 0 };
	long value;

	while (isdigit(peek(p)))
		sb_addc(&digits, (char)take(p));
	if (!digits.len)
		fail(p, p->pos, "expected number");
	errno = 0;
	value = strtol(digits.buf, NULL, 10);
	free(p->number);
	p->number = digits.buf;
	if (errno == ERANGE)
		fail(p, p->pos, "could not parse number %s", p->number);
	if ((int)value >= MAX_REPETITIONS || (int)value < 0)
		fail(p, p->pos, "%s is too large", p->number);
	return (int)value;
}

/* `{m}`, `{m,}` or `{m,n}` after its `{`, applied to re. */
static int parse_bounds(struct parser *p, int re)
{
	int min = parse_number(p), max;
	unsigned char c = take(p);

	if (c == ',') {
		c = peek(p);
		if (c == '}') {
			take(p);
			max = -1;
		} else if (isdigit(c)) {
			max = parse_number(p);
			expect(p, '}');
		} else {
			fail(p, p->pos, "expected '}' or number");
		}
	} else if (c == '}') {
		max = min;
	} else {
		fail(p, p->last_pos, "expected ',' or '}'");
	}
	if (min == 0 && max == -1)
		return alternative(p, new_node(p, RX_PLUS, re, -1), empty(p));
	if (min == 1 && max == -1)
		return new_node(p, RX_PLUS, re, -1);
	int n = new_node(p, RX_REPEAT, re, -1);

	p->nodes[n].min = min;
	p->nodes[n].max = max;
	return n;
}

/* A run of ordinary (or escaped) characters; a closure after it governs its last one,
 * returned in *last (-1: none). */
static int parse_literal(struct parser *p, unsigned char c, int *last)
{
	int re = -1;
	unsigned char d = 0;

	*last = -1;
	while (c && (!is_special(c) || c == '\\')) {
		if (c == '\\') {
			take(p);
			c = peek(p);
		}
		take(p);
		d = peek(p);
		if (is_closure(d)) {
			*last = new_set(p, c, c);
			break;
		}
		re = re < 0 ? new_set(p, c, c) : cat(p, re, new_set(p, c, c));
		c = d;
	}
	return re < 0 ? empty(p) : re;
}

static int parse_group(struct parser *p)
{
	bool capture = true;
	int group = 0, re;

	if (peek(p) == '?') {
		unsigned char c;

		take(p);
		c = peek(p);
		if (c != ':')
			fail(p, p->last_pos, "unexpected '(?%c'", c);
		capture = false;
	}
	if (capture) {
		group = p->nsub++;
		if (p->nsub > REGEX_MAX_GROUPS)
			fail(p, -1, "too many subexpressions (tapster allows %d)",
			     REGEX_MAX_GROUPS - 1);
	}
	if (++p->depth > MAX_NESTING)
		fail(p, -1, "subexpressions nested too deeply (tapster allows %d)", MAX_NESTING);
	re = parse_expr(p);
	p->depth--;
	re = capture ? tagged(p, re, group) : cat(p, re, empty(p));
	expect(p, ')');
	return re;
}

static int parse_factor(struct parser *p)
{
	unsigned char c = peek(p);
	int re, before = -1;

	if (!c || c == '|' || c == ')')
		return empty(p);
	if (is_closure(c))
		fail(p, p->last_pos, "unexpected '%c'", c);
	if (is_special(c) && c != '\\')
		take(p);
	if (c == '.') {
		re = any_char(p);
	} else if (c == '[') {
		re = parse_class(p);
		expect(p, ']');
	} else if (c == '(') {
		re = parse_group(p);
	} else if (c == '^' || c == '$') {
		re = new_node(p, c == '^' ? RX_BOL : RX_EOL, -1, -1);
	} else {
		int last;

		re = parse_literal(p, c, &last);
		if (last >= 0) {
			before = re;
			re = last;
		}
	}
	for (c = peek(p); is_closure(c); c = peek(p)) {
		take(p);
		if (p->nodes[re].kind == RX_BOL || p->nodes[re].kind == RX_EOL)
			fail(p, p->last_pos, "postfix closure '%c' applied to anchoring operator", c);
		if (c == '*')
			re = alternative(p, new_node(p, RX_PLUS, re, -1), empty(p));
		else if (c == '+')
			re = new_node(p, RX_PLUS, re, -1);
		else if (c == '?')
			re = alternative(p, re, empty(p));
		else
			re = parse_bounds(p, re);
	}
	return before >= 0 ? cat(p, before, re) : re;
}

static int parse_term(struct parser *p)
{
	int re = parse_factor(p);
	unsigned char c;

	while ((c = peek(p)) && c != '|' && c != ')')
		re = cat(p, re, parse_factor(p));
	return re;
}

static int parse_expr(struct parser *p)
{
	int re = parse_term(p);

	while (peek(p) == '|') {
		take(p);
		re = alternative(p, re, parse_term(p));
	}
	return re;
}

static int parse_pattern(struct parser *p)
{
	int re;

	p->nsub = 1;
	re = tagged(p, parse_expr(p), 0);
	if (!p->finished) {
		if (peek(p) == ')')
			fail(p, p->pos, "unbalanced ')'");
		fail(p, p->pos, "BUG -- regex parse failed to finish for unknown reasons");
	}
	return re;
}

/* ---- The program ---- */

static int emit_insn(struct parser *p, enum regex_opcode op, int arg)
{
	if (p->ninsns >= REGEX_MAX_INSNS)
		fail(p, -1, "regex too large (tapster allows %d instructions)", REGEX_MAX_INSNS);
	if (p->ninsns == p->insn_room) {
		p->insn_room = p->insn_room ? 2 * p->insn_room : 32;
		p->insns = xrealloc(p->insns, (size_t)p->insn_room * sizeof(*p->insns));
	}
	p->insns[p->ninsns] = (struct regex_insn){ op, arg, 0, 0 };
	return p->ninsns++;
}

/* A set as the runtime sees it: 0..127 and 128 for every byte above. */
static int class_of(struct parser *p, const uint8_t *set)
{
	uint8_t folded[REGEX_CLASS_BYTES];

	memcpy(folded, set, REGEX_CLASS_BYTES);
	folded[REGEX_CLASS_BYTES - 1] &= 1;
	for (int i = 0; i < p->nclasses; i++)
		if (!memcmp(p->classes[i], folded, REGEX_CLASS_BYTES))
			return i;
	p->classes = xrealloc(p->classes, (size_t)(p->nclasses + 1) * sizeof(*p->classes));
	memcpy(p->classes[p->nclasses], folded, REGEX_CLASS_BYTES);
	return p->nclasses++;
}

static void emit_set(struct parser *p, const uint8_t *set)
{
	int members = 0, only = 0;

	for (unsigned c = 0; c <= OTHER_CHAR; c++)
		if (set_has(set, c)) {
			members++;
			only = (int)c;
		}
	if (members == 1 && only < OTHER_CHAR)
		emit_insn(p, REGEX_BYTE, only);
	else
		emit_insn(p, REGEX_CLASS, class_of(p, set));
}

static void emit_node(struct parser *p, int re);

/* x{min,max}: the optional copies first, each of which may skip to the required ones. */
static void emit_repeat(struct parser *p, const struct rx_node *n)
{
	int nsplits = n->max < 0 ? 0 : n->max - n->min;
	int *splits;

	if (n->max >= 0 && n->min > n->max)
		return;
	splits = xcalloc((size_t)nsplits + 1, sizeof(*splits));
	for (int i = 0; i < nsplits; i++) {
		splits[i] = emit_insn(p, REGEX_SPLIT, 0);
		p->insns[splits[i]].x = splits[i] + 1;
		emit_node(p, n->a);
	}
	for (int i = 0; i < nsplits; i++)
		p->insns[splits[i]].y = p->ninsns;
	free(splits);
	for (int i = 0; i < n->min; i++) {
		int start = p->ninsns;

		emit_node(p, n->a);
		if (n->max < 0 && i == 0) {
			int split = emit_insn(p, REGEX_SPLIT, 0);

			p->insns[split].x = start;
			p->insns[split].y = split + 1;
		}
	}
}

static void emit_node(struct parser *p, int re)
{
	const struct rx_node *n = &p->nodes[re];
	int split, jump, start;

	switch (n->kind) {
	case RX_EMPTY:
		break;
	case RX_SET:
		emit_set(p, n->set);
		break;
	case RX_BOL:
		emit_insn(p, REGEX_BOL, 0);
		break;
	case RX_EOL:
		emit_insn(p, REGEX_BYTE, 0);
		break;
	case RX_TAG:
		emit_insn(p, REGEX_SAVE, n->tag);
		break;
	case RX_CAT:
		emit_node(p, n->a);
		emit_node(p, n->b);
		break;
	case RX_ALT:
		split = emit_insn(p, REGEX_SPLIT, 0);
		p->insns[split].x = split + 1;
		emit_node(p, n->a);
		jump = emit_insn(p, REGEX_JUMP, 0);
		p->insns[split].y = p->ninsns;
		emit_node(p, n->b);
		p->insns[jump].x = p->ninsns;
		break;
	case RX_PLUS:
		start = p->ninsns;
		emit_node(p, n->a);
		split = emit_insn(p, REGEX_SPLIT, 0);
		p->insns[split].x = start;
		p->insns[split].y = split + 1;
		break;
	case RX_REPEAT:
		emit_repeat(p, n);
		break;
	}
}

struct regex_program *regex_compile(const char *pattern, char **message, int *position)
{
	struct parser p = { .in = pattern, .len = (int)strlen(pattern) };
	struct regex_program *program = NULL;
	jmp_buf failed;

	p.finished = p.len == 0;
	p.fail = &failed;
	if (setjmp(failed)) {
		*message = p.message;
		*position = p.position;
		free(p.number);
		free(p.nodes);
		free(p.insns);
		free(p.classes);
		return NULL;
	}
	if (strlen(pattern) > MAX_PATTERN_LEN)
		fail(&p, -1, "regex too large (tapster allows %d characters)", MAX_PATTERN_LEN);
	emit_node(&p, parse_pattern(&p));
	emit_insn(&p, REGEX_MATCH, 0);
	program = xcalloc(1, sizeof(*program));
	program->insns = p.insns;
	program->ninsns = p.ninsns;
	program->classes = p.classes;
	program->nclasses = p.nclasses;
	program->ngroups = p.nsub;
	free(p.number);
	free(p.nodes);
	return program;
}

void regex_free(struct regex_program *program)
{
	if (!program)
		return;
	free(program->insns);
	free(program->classes);
	free(program);
}
