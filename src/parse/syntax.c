/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1: syntax errors in stap's words. A syntax error is described from the tokens the
 * parser could have accepted (with LAC they are exact) and, where the same set arises in
 * different constructs, from the construct being parsed (read off the state stack), both
 * handed over by parser.y.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse/grammar.h"
#include "parse/parser.h"
#include "util.h"

/* What the parser was in the middle of, read off its state stack. */
struct stack_view {
	int syms[GRAMMAR_STACK_VIEW];	/* the symbols on the stack, top first */
	int n;
};

static void view_stack(const struct syntax_context *ctx, struct stack_view *view)
{
	view->n = 0;
	for (int i = 0; i < ctx->nstack; i++)
		view->syms[view->n++] = ctx->stack[i];
}

static int sym(int token)
{
	return grammar_symbol(token);
}

/* The symbol below the innermost unclosed `open` on the stack, or grammar_symbols.empty. */
static int opened_by(const struct stack_view *view, int open, int close)
{
	int depth = 0;

	for (int i = 0; i < view->n; i++) {
		if (view->syms[i] == sym(close)) {
			depth++;
		} else if (view->syms[i] == sym(open)) {
			if (depth-- == 0)
				return i + 1 < view->n ? view->syms[i + 1] : grammar_symbols.eof;
		}
	}
	return grammar_symbols.empty;
}

static bool on_stack(const struct stack_view *view, int token)
{
	for (int i = 0; i < view->n; i++)
		if (view->syms[i] == sym(token))
			return true;
	return false;
}

/* The tokens that can continue a complete expression: they don't count in what stap says
 * it expected, since its parser only looks for what has to come next. */
static const int continuations[] = {
	'+', '-', '*', '/', '%', '<', '>', '=', '&', '|', '^', '?', '.', '[', '(',
	INC, DEC, SHL, SHR, USHR, LE, GE, EQ, NE, ANDAND, OROR, MATCH, NOMATCH, ARROW,
	STATS_ADD, ADD_ASSIGN, SUB_ASSIGN, MUL_ASSIGN, DIV_ASSIGN, MOD_ASSIGN, SHL_ASSIGN,
	SHR_ASSIGN, AND_ASSIGN, XOR_ASSIGN, OR_ASSIGN, CAT_ASSIGN, IN, DOLLARS, STRING,
};

struct expected {
	bool set[GRAMMAR_MAX_TOKENS];
	int count;
};

static bool expects(const struct expected *e, int token)
{
	return e->set[sym(token)];
}

/* Exactly these tokens (0-terminated) are expected. */
static bool expects_only(const struct expected *e, const int *tokens)
{
	int n = 0;

	for (; tokens[n]; n++)
		if (!expects(e, tokens[n]))
			return false;
	return n == e->count;
}

#define ONLY(e, ...) expects_only((e), (const int[]){ __VA_ARGS__, 0 })

static void drop_continuations(struct expected *e)
{
	/* More adjacent strings could continue a string literal. */
	if (expects(e, STRING) && e->count > 1) {
		e->set[sym(STRING)] = false;
		e->count--;
	}
	if (!expects(e, '?'))
		return;
	for (size_t i = 0; i < sizeof(continuations) / sizeof(continuations[0]); i++) {
		if (e->set[sym(continuations[i])]) {
			e->set[sym(continuations[i])] = false;
			e->count--;
		}
	}
}

/* A syntax error and how to word it. */
struct verdict {
	const char *message;
	const char *site;		/* see diag_parse_error_site() */
	bool at_label;			/* "at:" rather than "saw:" */
	struct token *shown;		/* the token shown, the look-ahead by default */
};

/* Where an expression or a statement was expected. */
static bool top_is(const struct stack_view *view, int depth, int symbol);

static bool operand_expected(const struct expected *e, const struct stack_view *view,
			     struct token *look, struct verdict *v)
{
	if (!expects(e, NUMBER))
		return false;
	if (look->kind == AT_UNKNOWN && expects(e, IDENT)) {
		v->message = xasprintf("unknown operator %s", look->text);
		return true;
	}
	if (ONLY(e, NUMBER, '-')) {
		v->message = look->kind ? "expected number" : "unexpected end-of-file";
		return true;
	}
	if (ONLY(e, NUMBER)) {
		/* After a minus: a global's initializer and a probe point's argument are
		 * literals, the rest numbers. */
		bool literal = top_is(view, 1, sym('=')) || top_is(view, 1, sym('&')) ||
			       top_is(view, 1, sym(INC)) || top_is(view, 1, sym(DEC)) ||
			       (top_is(view, 1, sym('(')) && top_is(view, 2, sym(COMPONENT)));

		v->message = !look->kind ? "unexpected end-of-file" :
			     literal ? "expected literal string or number" : "expected number";
		return true;
	}
	if (ONLY(e, NUMBER, '-', STRING)) {
		v->message = look->kind ? "expected literal string or number"
					: "unexpected end-of-file";
		return true;
	}
	if (expects(e, IF) && (!look->kind || token_is_keyword(look->kind) ||
				 (look->kind == OTHER && look->what)))
		v->message = "expected statement";
	else
		v->message = look->kind ? "expected literal string or number" : "expected value";
	return true;
}

/* After a probe point. */
static bool point_expected(const struct expected *e, struct token *look, struct verdict *v)
{
	if (!expects(e, ',') || (!expects(e, '{') && !expects(e, '}')))
		return false;
	/* In a {a,b} group. */
	if (!expects(e, '{') &&
	    (look->kind == '=' || look->kind == ADD_ASSIGN || look->kind == '{')) {
		v->message = "expected '}'";
		return true;
	}
	if (look->kind == '}' ||
	    ((look->kind == '=' || look->kind == ADD_ASSIGN) && !expects(e, '=')))
		v->message = "expected probe point specifier";
	else
		v->message = "expected one of ', { } = +='";
	return true;
}

/* One or two tokens that had to come next, worded for the construct. */
static const char *closing_expected(const struct expected *e, const struct stack_view *view)
{
	int call = opened_by(view, '(', ')');
	int index = opened_by(view, '[', ']');

	if (ONLY(e, ')', ',')) {
		if (call == sym(IDENT))
			return "expected one of ') ,'";
		if (call == sym(PRINT) || call == sym(PRINTLN) || call == sym(PRINTF) ||
		    call == sym(PRINTD))
			return "expected one of ', )'";
		if (call == sym(AT_STAT))
			return "unexpected end-of-file";
		if (call == sym(AT_CAST) || call == sym(AT_VAR))
			return "expected ')'";
		return "expected ',' or ')'";
	}
	if (ONLY(e, ')', ',', ':'))
		return "expected ',' or ')'";
	if (ONLY(e, ']', ',')) {
		/* An index, or a list of keys: [k1, k2] in a, foreach ([k1, k2] ...), a[*, k] */
		if (index == sym(IDENT) || index == grammar_symbols.hist)
			return "expected one of '] ,'";
		return "expected ',' or ']'";
	}
	if (ONLY(e, ')'))
		return "expected ')'";
	if (ONLY(e, ']'))
		return "expected ']'";
	if (ONLY(e, ';'))
		return "expected ';'";
	if (ONLY(e, ':'))
		return "expected ':'";
	if (ONLY(e, ','))
		return "expected ','";
	if (ONLY(e, IN))
		return "expected 'in'";
	if (ONLY(e, '('))
		return "expected '('";
	if (ONLY(e, '{') || ONLY(e, '{', EMBEDDED) || ONLY(e, '{', EMBEDDED, ':'))
		return "expected '{'";
	if (ONLY(e, '{', '('))
		return "expected '{'";
	if (ONLY(e, '(', ':'))
		return "expected '('";
	if (ONLY(e, CATCH))
		return "expected 'catch'";
	if (ONLY(e, STRING_KW, LONG_KW))
		return "expected 'string' or 'long'";
	if (ONLY(e, STRING))
		return on_stack(view, AT_CAST) || on_stack(view, AT_VAR) ||
		       top_is(view, 1, grammar_symbols.const_kw) ?
			"expected string" : "expected literal string";
	if (expects(e, GLOBAL) && expects(e, FUNCTION) && expects(e, IDENT))
		return "expected 'function' or identifier";
	if (ONLY(e, '+', '-'))
		return "expected sort directive";
	if (expects(e, AT_HIST_LOG) && expects(e, AT_UNKNOWN))
		return "expected identifier or statistical operation";
	if (expects(e, COMPONENT))
		return "expected identifier or '*' or '{'";
	if (expects(e, IDENT) && expects(e, CATCH))
		return "expected identifier or keyword";
	if (expects(e, IDENT))
		return "expected identifier";
	if (expects(e, ')') && expects(e, LIMIT))
		return "expected ')'";
	return NULL;
}

static bool top_is(const struct stack_view *view, int depth, int symbol)
{
	return depth < view->n && view->syms[depth] == symbol;
}

/*
 * At the end of the file, stap names the last token rather than the end when it read the
 * next token right after that one, without peeking: after a keyword or an operator that
 * must be followed by something in particular.
 */
static bool end_shows_previous(const struct stack_view *view, const struct token *prev)
{
	static const int tokens[] = {
		PROBE, IF, FOR, WHILE, FOREACH, TRY, IN, ARROW, MATCH, NOMATCH, AT_CAST, AT_VAR,
		AT_DEFINED, AT_ENTRY, AT_PROBEWRITE, AT_STAT, AT_HIST_LINEAR, AT_HIST_LOG, PRINT,
		PRINTLN, PRINTF, PRINTD,
	};

	if (top_is(view, 0, sym(IF)) && top_is(view, 1, grammar_symbols.point_mark))
		return false;
	if (top_is(view, 0, sym(IN)) && top_is(view, 1, grammar_symbols.foreach_vars))
		return false;
	for (size_t i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++)
		if (top_is(view, 0, sym(tokens[i])))
			return true;
	if (top_is(view, 0, grammar_symbols.name))
		return top_is(view, 1, sym(FUNCTION)) || top_is(view, 2, grammar_symbols.type_opt) ||
		       top_is(view, 2, grammar_symbols.params) || top_is(view, 2, sym(CATCH));
	if (top_is(view, 0, grammar_symbols.literal_arg))
		return prev && prev->kind == NUMBER && top_is(view, 2, sym(COMPONENT));
	if (top_is(view, 0, sym('=')))
		return top_is(view, 1, grammar_symbols.global_name);
	return false;
}

/* The initializer and the increment of a for loop. */
static bool in_for_clause(const struct stack_view *view)
{
	return (top_is(view, 0, sym('(')) && top_is(view, 1, sym(FOR))) ||
	       (top_is(view, 0, sym(';')) && top_is(view, 2, sym(';')) &&
		top_is(view, 5, sym(FOR)));
}

/* In the `if (...)` of a probe point. */
static bool in_point_condition(const struct stack_view *view)
{
	for (int i = 0; i + 1 < view->n; i++)
		if (view->syms[i] == sym(IF) && view->syms[i + 1] == grammar_symbols.point_mark)
			return true;
	return false;
}

/* Whether stap had only peeked at the token it did not expect (and so resumes at it). */
static bool peeked(const char *message, const struct stack_view *view)
{
	static const char *const peeking[] = {
		"expected statement", "expected one of ', { } = +='", "expected ',' or ']'",
		"expected sort directive",
	};

	for (size_t i = 0; i < sizeof(peeking) / sizeof(peeking[0]); i++)
		if (!strcmp(message, peeking[i]))
			return true;
	return in_point_condition(view) &&
	       (!strcmp(message, "expected '('") || !strcmp(message, "expected ')'"));
}

/* What stap says when the file ends where `message` was expected. */
static const char *at_end(const char *message, const struct stack_view *view)
{
	static const char *const kept[] = {
		"expected value", "expected statement", "expected one of ', { } = +='",
		"expected ',' or ']'", "expected sort directive",
		"unexpected comma-separated expression list",
	};
	bool in_condition = in_point_condition(view);
	if (!strcmp(message, "expected value") && in_for_clause(view))
		return "expression statement expected";
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!strcmp(message, kept[i]))
			return message;
	if (in_condition && (!strcmp(message, "expected '('") || !strcmp(message, "expected ')'")))
		return message;
	return "unexpected end-of-file";
}

/* Whether the [...] that ends just before `look` has more than one element. */
static bool bare_list_has_commas(struct parser *p, struct token *look)
{
	int depth = 0;

	for (struct token *tok = handed_before(p, look, 2); tok; tok = handed_before(p, tok, 1)) {
		if (tok->kind == ']' || tok->kind == ')')
			depth++;
		else if ((tok->kind == '[' || tok->kind == '(') && depth-- == 0)
			return false;
		else if (tok->kind == ',' && depth == 0)
			return true;
	}
	return false;
}

static void judge(struct parser *p, const struct syntax_context *ctx, struct verdict *v)
{
	struct token *look = lexer_last(p->lx);
	const int *tokens = ctx->expected;
	struct expected e = { 0 };
	struct stack_view view;
	int n = ctx->nexpected;

	v->shown = look;
	if (look->kind == JUNK && look->reported) {
		v->message = NULL;
		return;
	}
	if (look->kind == JUNK) {
		v->message = look->error;
		v->at_label = true;
		return;
	}
	for (int i = 0; i < n; i++)
		e.set[tokens[i]] = true;
	e.count = n;
	view_stack(ctx, &view);
	if (top_is(&view, 0, sym(']')) && top_is(&view, 1, grammar_symbols.in_keys) &&
	    !expects(&e, '/') && bare_list_has_commas(p, look)) {
		/* [k1, k2] without the `in` that has to follow. */
		v->message = "unexpected comma-separated expression list";
		return;
	}
	if (expects(&e, OTHER)) {
		/* Only the end stops stap skipping what follows @count(x. */
		v->message = "unexpected end-of-file";
		if (top_is(&view, 0, grammar_symbols.any_token))
			v->shown = handed_before(p, look, 1);
		return;
	}
	if (top_is(&view, 0, grammar_symbols.return_kw)) {
		/* stap reads a value after `return` unless `;` or `}` follows. */
		v->message = look->kind ? "expected literal string or number" : "expected value";
		return;
	}
	if (top_is(&view, 0, grammar_symbols.hist) && !top_is(&view, 1, sym(IN))) {
		if (top_is(&view, 1, sym('(')) &&
		    (top_is(&view, 2, sym(PRINT)) || top_is(&view, 2, sym(PRINTLN)))) {
			v->message = "expected ')'";
		} else {
			/* Not a value unless indexed. */
			v->message = "base histogram operator where expression expected";
			v->at_label = true;
			v->shown = enclosing_operator(p, handed_before(p, look, 1));
		}
		return;
	}
	if (expects(&e, PROBE) && expects(&e, 0)) {
		v->message = "expected 'probe', 'global', 'private', 'function', or '%{'";
		return;
	}
	if (operand_expected(&e, &view, look, v))
		return;
	if (point_expected(&e, look, v))
		return;
	drop_continuations(&e);
	if (expects(&e, IDENT) && expects(&e, CATCH)) {
		v->message = "expected identifier or keyword";
		return;
	}
	if (expects(&e, IN) && !expects(&e, '?')) {
		v->message = "expected 'in'";
		return;
	}
	if (expects(&e, ']') && expects(&e, ',') && expects(&e, '+')) {
		v->message = "expected ',' or ']'";
		return;
	}
	if (expects_only(&e, (const int[]){ ')', '+', '-', AT_STAT, LIMIT, '[', 0 }) ||
	    expects_only(&e, (const int[]){ ')', '+', '-', AT_STAT, LIMIT, 0 })) {
		v->message = look->kind >= AT_CAST && look->kind <= AT_UNKNOWN ?
			     "expected statistical operation" : "expected ')'";
		return;
	}
	v->message = closing_expected(&e, &view);
	if (!v->message)
		v->message = "syntax error";
}

/* The nearest of `tokens` (0-terminated) down the stack, or 0. */
static int nearest(const struct stack_view *view, const int *tokens)
{
	for (int i = 0; i < view->n; i++)
		for (int j = 0; tokens[j]; j++)
			if (view->syms[i] == sym(tokens[j]))
				return tokens[j];
	return 0;
}

#define NEAREST(view, ...) nearest((view), (const int[]){ __VA_ARGS__, 0 })

/* Where in stap's parser the error would come from, for telling repeated errors apart. */
static const char *site_of(const char *message, const struct stack_view *view)
{
	if (!strcmp(message, "expected '('")) {
		int kind = NEAREST(view, IF, WHILE, FOR, FOREACH, FUNCTION);

		return kind == IF ? "if" : kind == WHILE ? "while" : kind == FOR ? "for" :
		       kind == FOREACH ? "foreach" : kind == FUNCTION ? "function" : "@op";
	}
	if (!strcmp(message, "expected ')'")) {
		int below = opened_by(view, '(', ')');

		if (below == sym(IF) || below == sym(WHILE) || below == sym(FOR) ||
		    below == sym(FOREACH) || below == sym(CATCH) || below == sym(AT_HIST_LOG) ||
		    below == sym(COMPONENT))
			return grammar_symbol_name(below);
		if (below == sym(AT_CAST) || below == sym(AT_VAR))
			return "cast";
		return "paren";
	}
	if (!strcmp(message, "expected ';'"))
		return top_is(view, 1, sym('(')) ? "for-init" : "for-cond";
	if (!strcmp(message, "expected identifier")) {
		int kind = NEAREST(view, GLOBAL, PRIVATE, FUNCTION, FOREACH, CATCH, AT_PROBEWRITE, '(');

		if (kind == '(')
			kind = NEAREST(view, GLOBAL, PRIVATE, FUNCTION, FOREACH, CATCH, AT_PROBEWRITE);
		else if (kind == FUNCTION)
			return "function";
		return kind == PRIVATE ? "global" : kind == FUNCTION ? "param" :
		       kind ? grammar_symbol_name(sym(kind)) : NULL;
	}
	if (!strcmp(message, "expected 'string' or 'long'"))
		return NEAREST(view, '(', FUNCTION) == '(' ? "param" : "function";
	return NULL;
}

void report_syntax_error(struct parser *p, const struct syntax_context *ctx)
{
	struct verdict v = { 0 };

	struct stack_view view;

	judge(p, ctx, &v);
	if (!v.message) {
		p->keep_error_token = true;
		return;
	}
	view_stack(ctx, &view);
	if (!v.shown->kind) {
		v.message = at_end(v.message, &view);
		if (!strcmp(v.message, "unexpected end-of-file") &&
		    end_shows_previous(&view, handed_before(p, v.shown, 1)))
			v.shown = handed_before(p, v.shown, 1);
	}
	p->keep_error_token = peeked(v.message, &view);
	/* stap gives up at this error, even where it is no end of file (@count(s }). */
	p->gave_up = !strcmp(v.message, "unexpected end-of-file");
	{
		struct token_desc desc = describe(p, v.shown);

		diag_parse_error_site(site_of(v.message, &view), v.at_label ? "at:" : "saw:",
				      &desc, token_loc(v.shown), "%s", v.message);
	}
	if (!strncmp(v.message, "unknown operator ", 17))
		free((char *)v.message);
}
