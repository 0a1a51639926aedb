/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The preprocessor of pass 1: the middle layers of the lexer (lexer.l), each reading from
 * the one below:
 *
 *   arg_next()       $1 @1 $# @#: the script's arguments substituted.
 *   pp1_next()       @define NAME(PARAMS) %( BODY %): macros defined and expanded, the
 *                    user's and those of the library's .stpm files.
 *   pp_next()        %( CONDITION %? ... %: ... %): the branches not taken dropped.
 *
 * It reports its own errors, as stap's does.
 */
#define _GNU_SOURCE	/* strverscmp(), which compares versions as stap does */

#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "diag.h"
#include "parse/parse.h"
#include "parse/parser.h"
#include "parse/preprocess.h"
#include "util.h"

/* ---- $1 @1 $# @#: the script's arguments ---- */

static void make_junk(struct token *tok, const char *what, char *message)
{
	tok->kind = JUNK;
	tok->what = what;
	tok->error = message;
	if (!strcmp(what, "junk")) {
		free(tok->text);
		tok->text = xstrdup("");
	}
}

/* Adds escapes to an argument used as a string, so that it reads as it would in a script. */
static char *escape_argument(const char *arg)
{
	struct strbuf sb = { 0 };

	for (; *arg; arg++) {
		if (*arg == '"' || *arg == '\\')
			sb_addc(&sb, '\\');
		sb_addc(&sb, *arg);
	}
	return sb_steal(&sb);
}

/* The argument number of a $N or @N token, or 0 when it is not a plain number. */
static int argument_number(const char *text)
{
	int n = 0;

	for (const char *p = text + 1; *p; p++) {
		if (*p < '0' || *p > '9' || n > 100000)
			return 0;
		n = n * 10 + (*p - '0');
	}
	return n;
}

static const char *argument(struct lexer *lx, struct token *tok)
{
	int n = argument_number(tok->text);

	if (n < 1 || n > lx->options->argc) {
		make_junk(tok, "junk", xasprintf("command line argument out of range [1-%d]",
						 lx->options->argc));
		return NULL;
	}
	return lx->options->argv[n - 1];
}

/* $# and @#, @N, and $N: the arguments of the script, substituted as stap does. $N is
 * replaced by the tokens of its argument, @N by a string. */
static bool substitute(struct lexer *lx, struct token *tok)
{
	const char *arg;

	switch (tok->kind) {
	case ARG_COUNT:
		/* `$#` is a number, `@#` a string. */
		if (tok->text[0] == '$') {
			tok->kind = NUMBER;
			tok->num = lx->options->argc;
			free(tok->text);
			tok->text = xasprintf("%d", lx->options->argc);
		} else {
			tok->kind = STRING;
			tok->value = xasprintf("%d", lx->options->argc);
			tok->raw = xstrdup(tok->value);
			free(tok->text);
			tok->text = xstrdup(tok->value);
		}
		return false;
	case ARG_AT:
		arg = argument(lx, tok);
		if (arg) {
			tok->kind = STRING;
			tok->value = xstrdup(arg);
			tok->raw = escape_argument(arg);
			free(tok->text);
			tok->text = xstrdup(tok->raw);
		}
		return false;
	case ARG_DOLLAR:
		arg = argument(lx, tok);
		if (!arg)
			return false;
		lx->arg = scanner_new(lx->source, arg, (long)strlen(arg));
		lx->arg_site = tok;
		lx->arg_first = true;
		return true;
	}
	return false;
}

/* The next token of the script with its arguments substituted. */
static struct token *arg_next(struct lexer *lx)
{
	for (;;) {
		struct token *tok = new_token(lx);

		if (lx->arg) {
			scanner_next(lx->arg, tok);
			if (tok->kind == 0) {
				scanner_continue_comment(lx->main, lx->arg);
				scanner_free(lx->arg);
				lx->arg = NULL;
				continue;
			}
			/* The argument's tokens are where its $N was. */
			tok->loc = lx->arg_site->loc;
			if (lx->arg_first)
				tok->glued = lx->arg_site->glued;
			lx->arg_first = false;
			if (tok->kind == ARG_DOLLAR || tok->kind == ARG_AT || tok->kind == ARG_COUNT)
				make_junk(tok, "junk", xstrdup("command line argument out of range"));
			return tok;
		}
		if (lx->at_end) {
			tok->loc = lx->end_loc;
			return tok;
		}
		scanner_next(lx->main, tok);
		if (!tok->kind) {
			lx->at_end = true;
			lx->end_loc = tok->loc;
		} else {
			lx->any_token = true;
		}
		if (!substitute(lx, tok))
			return tok;
	}
}

/* ---- @define NAME(PARAMS) %( BODY %) and @NAME(ARGS): macros ---- */

/*
 * A macro is a list of tokens. Its invocation is replaced by them, as they are (they are
 * not read again by the scanner), each marked with the invocation it was expanded from, so
 * that messages about it show the chain of invocations as stap does. An argument of an
 * invocation is a macro of its own, bound to the parameter's name: `@a` in the body expands
 * it, with the parameters that were visible where the invocation was written.
 */
struct macro {
	char *name;			/* without its @ */
	struct token *name_tok;		/* the name in its @define, for messages */
	char **params;
	int nparams;
	struct token **body;
	int nbody, body_cap;
	bool library;			/* from a .stpm file */
	bool is_argument;		/* an argument, bound to a parameter of its invocation */
	struct activation *written_in;	/* an argument: what it was read from (NULL: the
					 * script), whose parameters it sees */
	struct macro *next_alloc;
};

/* A macro being expanded. */
struct activation {
	struct macro *macro;
	int cursor;			/* its next token */
	struct token *site;		/* the invocation */
	struct expansion *expansion;	/* ... as its tokens are marked */
	struct macro **args;		/* a macro's arguments, by parameter */
	struct activation *scope;	/* whose parameters @a names here: this one, or for an
					 * argument the scope it was written in */
	struct activation *origin;	/* the activation the invocation was read from */
	struct activation *below;	/* the stack */
	struct activation *next_alloc;
};

/* The macros of the library's .stpm files, read once for all the files parsed with them. */
struct macro_library {
	struct source *const *sources;	/* as given in the parse options */
	int nsources;
	struct parse_options options;	/* the files are read with */
	struct macro **macros;
	int nmacros;
	struct lexer **lexers;		/* of the files read, which hold the macros' tokens */
	int nlexers;
	bool failed;			/* a file had errors (and was left out) */
};

static const char expected_operand[] =
	"expected 'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',\n"
	"             'runtime', 'systemtap_privilege', 'CONFIG_...', or\n"
	"             comparison between strings or integers";

/* The version stap reports to %( systemtap_v ... %). */
#define SYSTEMTAP_VERSION "4.8"

/*
 * A parse error of the preprocessor, printed at once (even while the parser skips tokens
 * after an error) and handed on as a token the parser rejects without a word. While a branch
 * not taken is skipped, stap drops these errors unsaid. `site` tells the place of stap's
 * preprocessor that raises the error (see diag_parse_error_site()). An error about a
 * malformed token says what is wrong with the token instead, as in stap.
 */
static struct token *pp_error(struct lexer *lx, struct token *at, const char *site,
			      const char *message)
{
	struct token *junk = new_token(lx);

	if (!lx->quiet) {
		struct token_desc desc = lexer_describe(lx, at);
		const char *said = at->kind == JUNK && at->error ? at->error : message;

		diag_parse_error_site(site, "at:", &desc, at->kind ? at->loc : (struct loc){ 0 },
				      "%s", said);
	}
	junk->kind = JUNK;
	junk->what = "junk";
	junk->text = xstrdup("");
	junk->loc = at->loc;
	junk->reported = true;
	return junk;
}

/* Whether stap's parser is done with a token of this kind once it has read it, so that
 * an error with no token of its own shows the end of the file rather than it. */
static bool swallowed(int kind)
{
	return kind == ';' || kind == ')' || kind == ']' || kind == ',' || kind == '}';
}

/* The same for an error stap raises with no token (the end of the file was reached): it
 * shows the last token the parser read, labelled "saw:". */
static struct token *pp_error_at_end(struct lexer *lx, const char *site, const char *message)
{
	struct token *last = lx->last_out;
	struct token *junk = new_token(lx);

	if (!lx->quiet) {
		struct token_desc desc = { lx->eof_what, NULL };
		struct loc loc = { 0 };

		if (last && !swallowed(last->kind)) {
			desc = lexer_describe(lx, last);
			loc = last->loc;
		}
		diag_parse_error_site(site, "saw:", &desc, loc, "%s", message);
	}
	junk->kind = JUNK;
	junk->what = "junk";
	junk->text = xstrdup("");
	junk->loc = lx->end_loc;
	junk->reported = true;
	return junk;
}

/* @cast, @sum, @foo, ...: what may name a macro. */
static bool is_at_word(int kind)
{
	return kind >= AT_CAST && kind <= AT_UNKNOWN;
}

static bool is_op(const struct token *tok, int kind)
{
	return tok && tok->kind == kind;
}

/* A copy of a macro's token, marked as expanded by `act`. */
static struct token *expanded_token(struct lexer *lx, const struct token *orig,
				    const struct activation *act)
{
	struct token *tok = new_token(lx);
	struct token *next_alloc = tok->next_alloc;

	*tok = *orig;
	tok->next_alloc = next_alloc;
	tok->text = orig->text ? xstrdup(orig->text) : NULL;
	tok->raw = orig->raw ? xstrdup(orig->raw) : NULL;
	tok->value = orig->value ? xstrdup(orig->value) : NULL;
	tok->error = orig->error ? xstrdup(orig->error) : NULL;
	tok->desc = orig->desc ? xstrdup(orig->desc) : NULL;
	tok->piece = NULL;
	tok->loc.expansion = act->expansion;
	return tok;
}

/* The next token of the current macro, or of the script when no macro is being expanded;
 * NULL at the end of a macro. */
static struct token *pp1_read(struct lexer *lx)
{
	struct activation *act = lx->expanding;

	if (!act)
		return arg_next(lx);
	if (act->cursor < act->macro->nbody)
		return expanded_token(lx, act->macro->body[act->cursor++], act);
	return NULL;
}

static struct macro *macro_new(struct lexer *lx, const char *name, struct token *name_tok)
{
	struct macro *m = xcalloc(1, sizeof(*m));

	m->name = xstrdup(name);
	m->name_tok = name_tok;
	m->next_alloc = lx->all_macros;
	lx->all_macros = m;
	return m;
}

static void macro_add_token(struct macro *m, struct token *tok)
{
	if (m->nbody == m->body_cap) {
		m->body_cap = m->body_cap ? 2 * m->body_cap : 16;
		m->body = xrealloc(m->body, sizeof(*m->body) * (size_t)m->body_cap);
	}
	m->body[m->nbody++] = tok;
}

void free_macros(struct macro *m)
{
	while (m) {
		struct macro *next = m->next_alloc;

		free(m->name);
		for (int i = 0; i < m->nparams; i++)
			free(m->params[i]);
		free(m->params);
		free(m->body);
		free(m);
		m = next;
	}
}

void free_activations(struct activation *act)
{
	while (act) {
		struct activation *next = act->next_alloc;

		free(act->args);
		free(act);
		act = next;
	}
}

static struct macro *find_macro(struct macro **macros, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(macros[i]->name, name))
			return macros[i];
	return NULL;
}

/* The words of stap's own @operators: a macro of that name hides the operator. */
static bool is_builtin_at_word(const char *name)
{
	static const char *const words[] = {
		"cast", "var", "defined", "entry", "probewrite", "perf", "const", "kregister",
		"uregister", "kderef", "uderef", "count", "sum", "min", "max", "avg", "variance",
		"hist_linear", "hist_log",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(words[i], name))
			return true;
	return false;
}

/* The body of a definition, after its %(: up to the %) that closes it. NULL when the file
 * ends first. */
static struct token *read_body(struct lexer *lx, struct macro *m)
{
	int depth = 0;

	for (;;) {
		struct token *tok = pp1_read(lx);

		if (!tok || !tok->kind)
			return NULL;
		if (tok->kind == PP_IF)
			depth++;
		else if (tok->kind == PP_END && depth-- == 0)
			return tok;
		macro_add_token(m, tok);
	}
}

/* NAME(PARAMS): the parameters of a definition, after its `(`. Returns the token after
 * them, or an error. */
static struct token *read_params(struct lexer *lx, struct macro *m)
{
	for (;;) {
		struct token *tok = arg_next(lx);

		if (tok->kind != IDENT)
			return tok->kind ? pp_error(lx, tok, "define-param", "expected identifier") :
			       pp_error_at_end(lx, "define-param", "expected identifier");
		m->params = xrealloc(m->params, sizeof(*m->params) * (size_t)(m->nparams + 1));
		m->params[m->nparams++] = xstrdup(tok->text);
		tok = arg_next(lx);
		if (tok->kind == ')')
			return arg_next(lx);
		if (tok->kind != ',')
			return tok->kind ? pp_error(lx, tok, "define-comma", "expected ',' or ')'") :
			       pp_error_at_end(lx, "define-comma", "expected ',' or ')'");
	}
}

/* A second definition of a macro in one file: stap says so, and where the first one is. */
static struct token *redefinition(struct lexer *lx, struct token *name, struct macro *first)
{
	char *message = xasprintf("attempt to redefine macro '@%s' in the same file", name->text);
	char *where = xasprintf("macro '@%s' first defined here", name->text);
	struct token *error;

	pp_error(lx, name, "define-again", message);
	/* A second message about the same error, which stap does not count. */
	error = pp_error(lx, first->name_tok, "define-first", where);
	if (!lx->quiet)
		diag_forget_errors(1);
	free(message);
	free(where);
	return error;
}

/*
 * After @define: the rest of the definition, read from the script itself. Returns NULL
 * when it is read, or an error. As in stap, the macro is defined as soon as its name is
 * read, and a definition in a branch not taken defines nothing.
 */
static struct token *read_definition(struct lexer *lx, struct token *define)
{
	struct token *name, *tok;
	struct macro *m, *first;

	if (lx->expanding)
		return pp_error(lx, define, "define-nested", "'@define' forbidden inside macro body");
	name = arg_next(lx);
	if (name->kind != IDENT)
		return name->kind ? pp_error(lx, name, "define-name", "expected identifier") :
		       pp_error_at_end(lx, "define-name", "expected identifier");
	first = find_macro(lx->macros, lx->nmacros, name->text);
	if (first && !lx->quiet)
		return redefinition(lx, name, first);
	if (!strcmp(name->text, "define"))
		return pp_error(lx, name, "define-define", "attempt to redefine '@define'");
	if (is_builtin_at_word(name->text) && !lx->quiet) {
		struct token_desc desc = lexer_describe(lx, name);

		diag_warning_at(&desc, name->loc, "macro redefines built-in operator '@%s'",
				name->text);
	}
	m = macro_new(lx, name->text, name);
	m->library = lx->library_file;
	if (!lx->quiet) {
		lx->macros = xrealloc(lx->macros, sizeof(*lx->macros) * (size_t)(lx->nmacros + 1));
		lx->macros[lx->nmacros++] = m;
	}
	tok = arg_next(lx);
	if (tok->kind == '(') {
		tok = read_params(lx, m);
		if (is_reported(tok))
			return tok;
		if (tok->kind != PP_IF)
			return tok->kind ? pp_error(lx, tok, "define-open", "expected '%('") :
			       pp_error_at_end(lx, "define-open", "expected '%('");
	} else if (tok->kind != PP_IF) {
		return tok->kind ? pp_error(lx, tok, "define-open2", "expected '%(' or '('") :
		       pp_error_at_end(lx, "define-open2", "expected '%(' or '('");
	}
	if (!read_body(lx, m))
		return pp_error(lx, name, "define-body", "incomplete macro definition - missing '%)'");
	return NULL;
}

/* The macro `@name` stands for where `act` is being expanded, or NULL. */
static struct macro *lookup_macro(struct lexer *lx, const struct activation *act,
				  const char *name)
{
	const struct activation *scope = act ? act->scope : NULL;
	struct macro *m;

	/* Of two parameters of one name, the last one counts, as in stap. */
	if (scope) {
		for (int i = scope->macro->nparams - 1; i >= 0; i--)
			if (!strcmp(scope->macro->params[i], name))
				return scope->args[i];
	}
	/* The body of a library macro sees the library's macros only. */
	if (!(act && act->macro->library)) {
		m = find_macro(lx->macros, lx->nmacros, name);
		if (m)
			return m;
	}
	return lx->library ? find_macro(lx->library->macros, lx->library->nmacros, name) : NULL;
}

/* Whether expanding `m` from `act` would expand it again from its own body, forever. */
static bool is_recursive(const struct activation *act, const struct macro *m)
{
	for (; act; act = act->origin)
		if (act->macro == m)
			return true;
	return false;
}

/* An argument of an invocation, after its `(` or `,`: the tokens up to the `,` or `)` that
 * ends it, outside parentheses and brackets. Returns that token, or NULL at the end. */
static struct token *read_argument(struct lexer *lx, struct macro *arg)
{
	int depth = 0;

	for (;;) {
		struct token *tok = pp1_read(lx);

		if (!tok || !tok->kind)
			return NULL;
		/* As stap: a comma inside ( ) or [ ] (not { }) is the argument's. */
		if (tok->kind == '(' || tok->kind == '[')
			depth++;
		else if ((tok->kind == ')' || tok->kind == ']') && depth)
			depth--;
		else if (!depth && (tok->kind == ')' || tok->kind == ','))
			return tok;
		macro_add_token(arg, tok);
	}
}

static struct activation *activation_new(struct lexer *lx, struct macro *m, struct token *site)
{
	struct activation *act = xcalloc(1, sizeof(*act));
	struct token_desc desc = lexer_describe(lx, site);

	act->macro = m;
	act->site = site;
	act->expansion = expansion_new(&desc, site->loc);
	act->expansion->next = lx->expansions;
	lx->expansions = act->expansion;
	act->args = m->nparams ? xcalloc((size_t)m->nparams, sizeof(*act->args)) : NULL;
	act->next_alloc = lx->all_activations;
	lx->all_activations = act;
	return act;
}

/* Reads the arguments of an invocation of `m` into `act`. Returns NULL, or an error. */
static struct token *read_arguments(struct lexer *lx, struct activation *act,
				    struct activation *current)
{
	struct macro *m = act->macro;
	struct token *tok = pp1_read(lx);
	char *message;

	if (!is_op(tok, '(')) {
		message = xasprintf("expected '(' in invocation of macro '@%s' taking %d parameter%s",
				    m->name, m->nparams, m->nparams == 1 ? "" : "s");
		tok = tok && tok->kind ? pp_error(lx, tok, "invoke-open", message) :
		      pp_error_at_end(lx, "invoke-open", message);
		free(message);
		return tok;
	}
	for (int i = 0; i < m->nparams; i++) {
		struct macro *arg = macro_new(lx, m->params[i], act->site);

		arg->is_argument = true;
		arg->written_in = current;
		act->args[i] = arg;
		tok = read_argument(lx, arg);
		if (!tok)
			return pp_error(lx, act->site, "invoke-end",
					"could not find end of macro invocation");
		if (tok->kind == ',' && i + 1 == m->nparams) {
			message = xasprintf("too many parameters for macro '@%s' (expected %d)",
					    m->name, m->nparams);
			tok = pp_error(lx, tok, "invoke-many", message);
			free(message);
			return tok;
		}
		if (tok->kind == ')' && i + 1 != m->nparams) {
			message = xasprintf("too few parameters for macro '@%s' (expected %d)",
					    m->name, m->nparams);
			tok = pp_error(lx, tok, "invoke-few", message);
			free(message);
			return tok;
		}
	}
	return NULL;
}

/* @name read from the current expansion (or the script) stands for `m`: starts expanding
 * it. Returns NULL, or an error. */
static struct token *invoke(struct lexer *lx, struct token *site, struct macro *m)
{
	struct activation *current = lx->expanding;
	struct activation *act;
	struct token *error;

	if (!m->is_argument && is_recursive(current, m)) {
		/* stap would expand it until it runs out of memory. */
		char *message = xasprintf("recursive invocation of macro '@%s'", m->name);

		error = pp_error(lx, site, "invoke-recursive", message);
		free(message);
		return error;
	}
	act = activation_new(lx, m, site);
	if (m->is_argument) {
		/* Expanded as if where it was written, with the parameters seen there. */
		act->origin = m->written_in;
		act->scope = m->written_in ? m->written_in->scope : NULL;
	} else {
		act->origin = current;
		act->scope = act;
		error = m->nparams ? read_arguments(lx, act, current) : NULL;
		if (error)
			return error;
	}
	act->below = current;
	lx->expanding = act;
	return NULL;
}

/*
 * The tokens of the script with its macros expanded (stap's first preprocessing pass):
 * definitions are read and dropped, invocations replaced by the macro's tokens. An @word
 * that names no macro is an operator.
 */
static struct token *pp1_next(struct lexer *lx)
{
	for (;;) {
		struct token *tok = pp1_read(lx), *error;
		struct macro *m;

		if (!tok) {
			lx->expanding = lx->expanding->below;
			continue;
		}
		if (!is_at_word(tok->kind))
			return tok;
		if (!strcmp(tok->text, "@define")) {
			error = read_definition(lx, tok);
			if (error)
				return error;
			continue;
		}
		m = lookup_macro(lx, lx->expanding, tok->text + 1);
		if (!m)
			return tok;
		error = invoke(lx, tok, m);
		if (error)
			return error;
	}
}

/* ---- The library's macros: the .stpm files ---- */

static void library_add(struct macro_library *lib, struct macro *m)
{
	lib->macros = xrealloc(lib->macros, sizeof(*lib->macros) * (size_t)(lib->nmacros + 1));
	lib->macros[lib->nmacros++] = m;
}

/* The first (by name, as stap has them sorted) of the file's macros that the library has
 * already, or NULL. */
static struct macro *first_duplicate(const struct macro_library *lib, const struct lexer *lx)
{
	struct macro *found = NULL;

	for (int i = 0; i < lx->nmacros; i++)
		if (find_macro(lib->macros, lib->nmacros, lx->macros[i]->name) &&
		    (!found || strcmp(lx->macros[i]->name, found->name) < 0))
			found = lx->macros[i];
	return found;
}

/*
 * Reads one .stpm file into the library: nothing but definitions (and invocations that
 * expand to nothing), in conditionals or not, none of a macro the library has. A file with
 * errors is left out whole. Its lexer is kept, as the library's macros are made of its
 * tokens.
 */
static void read_macro_file(struct macro_library *lib, struct source *source)
{
	struct lexer *lx = lexer_new(source, &lib->options);
	int errors = diag_error_count();
	struct token *tok;
	struct macro *duplicate;

	lx->library = lib;
	lx->library_file = true;
	tok = pp_next(lx);
	if (tok->kind && !is_reported(tok)) {
		char *message = xasprintf("unexpected token in library macro file '%s'",
					  source->name);

		pp_error(lx, tok, "stpm-token", message);
		free(message);
	}
	duplicate = diag_error_count() == errors ? first_duplicate(lib, lx) : NULL;
	if (duplicate) {
		struct macro *first = find_macro(lib->macros, lib->nmacros, duplicate->name);
		char *message = xasprintf("duplicate definition of library macro '@%s'",
					  duplicate->name);
		char *where = xasprintf("macro '@%s' first defined here", duplicate->name);

		pp_error(lx, duplicate->name_tok, "stpm-duplicate", message);
		pp_error(lx, first->name_tok, "stpm-first", where);
		free(message);
		free(where);
	}
	if (diag_error_count() != errors) {
		diag_warning("macro tapset \"%s\" has errors, and will be skipped.", source->name);
		lib->failed = true;
		lexer_free(lx);
		return;
	}
	for (int i = 0; i < lx->nmacros; i++)
		library_add(lib, lx->macros[i]);
	lib->lexers = xrealloc(lib->lexers, sizeof(*lib->lexers) * (size_t)(lib->nlexers + 1));
	lib->lexers[lib->nlexers++] = lx;
}

/*
 * The library of the parse options' .stpm files, read on the first parse that asks for it
 * and kept for the others (the user script and every tapset see the same macros). stap does
 * not count the errors of these files among the script's parse errors.
 */
const struct macro_library *macro_library_for(const struct parse_options *options)
{
	static struct macro_library **libraries;
	static int nlibraries;
	struct macro_library *lib;
	int errors;

	if (!options->nmacro_sources)
		return NULL;
	for (int i = 0; i < nlibraries; i++)
		if (libraries[i]->sources == options->macro_sources &&
		    libraries[i]->nsources == options->nmacro_sources)
			return libraries[i];
	lib = xcalloc(1, sizeof(*lib));
	lib->sources = options->macro_sources;
	lib->nsources = options->nmacro_sources;
	lib->options = *options;
	lib->options.macro_sources = NULL;
	lib->options.nmacro_sources = 0;
	errors = diag_error_count();
	for (int i = 0; i < lib->nsources; i++)
		read_macro_file(lib, lib->sources[i]);
	diag_forget_errors(diag_error_count() - errors);
	libraries = xrealloc(libraries, sizeof(*libraries) * (size_t)(nlibraries + 1));
	libraries[nlibraries++] = lib;
	return lib;
}

/* Whether the .stpm files of the lexer's library had errors, which fail the user script's
 * pass 1. */
bool lexer_library_failed(const struct lexer *lx)
{
	return lx->library && lx->library->failed;
}

/* Hands the expansion records over to the parsed file, whose tree points to them. */
struct expansion *lexer_take_expansions(struct lexer *lx)
{
	struct expansion *list = lx->expansions;

	lx->expansions = NULL;
	return list;
}

/* ---- %( CONDITION %? TOKENS %: TOKENS %): conditionals ---- */

/* Where a conditional is: in which branch, and whether its tokens are kept. */
enum pp_state {
	PP_KEEP_THEN,
	PP_SKIP_THEN,
	PP_KEEP_ELSE,
	PP_SKIP_ELSE,
};

struct pp_frame {
	struct token *open;		/* its %( */
	enum pp_state state;
};

static bool compare_ok(int op, int cmp)
{
	switch (op) {
	case '<': return cmp < 0;
	case LE: return cmp <= 0;
	case '>': return cmp > 0;
	case GE: return cmp >= 0;
	case EQ: return cmp == 0;
	case NE: return cmp != 0;
	}
	return false;
}

static bool is_comparison(int kind)
{
	return kind == '<' || kind == LE || kind == '>' || kind == GE || kind == EQ || kind == NE;
}

static int sign(int cmp)
{
	return cmp < 0 ? -1 : cmp > 0;
}

static const char *kernel_release(struct lexer *lx)
{
	static struct utsname uts;

	const struct parse_target *target = lx->options->target;
	const char *release = target ? target->kernel_release(target->ctx) : NULL;

	if (release)
		return release;
	if (!uts.release[0] && uname(&uts) != 0)
		return "";
	return uts.release;
}

static const char *kernel_config(struct lexer *lx, const char *name)
{
	const struct parse_target *target = lx->options->target;

	return target ? target->kernel_config(target->ctx, name) : "";
}

/* A value of .config as a number, as stap reads it (strtoll, any base); false when it is
 * not one. An option that is not set reads as 0. */
static bool config_number(const char *value, int64_t *number)
{
	char *end;

	errno = 0;
	*number = strtoll(value, &end, 0);
	return errno != ERANGE && errno != EINVAL && *end == '\0';
}

/* A number literal of a condition: stap reads it as decimal, so that 010 is ten. */
static int64_t literal_number(const struct token *tok)
{
	char *end;
	long long value;

	errno = 0;
	value = strtoll(tok->text, &end, 10);
	return errno || *end ? tok->num : value;
}

/* One comparison of a condition, and what is wrong with it: the token, the message, and
 * the site of stap's evaluation that raises it. */
struct pp_comparison {
	struct token *left, *op, *right;
	struct token *error_at;
	const char *error;
	const char *site;
};

static bool pp_fail(struct pp_comparison *c, struct token *at, const char *site,
		    const char *message)
{
	c->error_at = at;
	c->site = site;
	c->error = message;
	return false;
}

/* <, <=, ... between values compared with `cmp`. */
static bool pp_order(struct pp_comparison *c, int cmp)
{
	if (!is_comparison(c->op->kind))
		return pp_fail(c, c->op, "pp-compare", "expected comparison operator");
	return compare_ok(c->op->kind, sign(cmp));
}

/* kernel_v, kernel_vr, systemtap_v: versions, or wildcards with == and !=. */
static bool pp_version(struct lexer *lx, struct pp_comparison *c)
{
	const char *name = c->left->text;
	char *version;
	bool result;

	if (c->right->kind != STRING)
		return pp_fail(c, c->right, "pp-version-string", "expected string literal");
	version = xstrdup(strcmp(name, "systemtap_v") ? kernel_release(lx) :
			  lx->options->systemtap_version ? lx->options->systemtap_version :
			  SYSTEMTAP_VERSION);
	if (!strcmp(name, "kernel_v"))
		version[strcspn(version, "-")] = '\0';
	if (!is_comparison(c->op->kind)) {
		result = pp_fail(c, c->op, "pp-version-op", "expected comparison operator");
	} else if (strpbrk(c->right->value, "*?[")) {
		if (c->op->kind != EQ && c->op->kind != NE)
			result = pp_fail(c, c->op, "pp-version-wildcard",
					 "wildcard not allowed with order comparison operators");
		else
			result = (fnmatch(c->right->value, version, FNM_NOESCAPE) == 0) ==
				 (c->op->kind == EQ);
	} else {
		result = compare_ok(c->op->kind, sign(strverscmp(version, c->right->value)));
	}
	free(version);
	return result;
}

/* arch, runtime, systemtap_privilege: a string, matched with == or != only. */
static bool pp_string_fact(struct lexer *lx, struct pp_comparison *c)
{
	const char *name = c->left->text;
	bool wildcards = strcmp(name, "systemtap_privilege") != 0;
	const char *value = !strcmp(name, "arch") ?
			    (lx->options->arch ? lx->options->arch : "x86_64") :
			    !strcmp(name, "runtime") ? "kernel" :
			    lx->options->privilege ? lx->options->privilege : "stapdev";
	bool equal;

	if (c->right->kind != STRING)
		return pp_fail(c, c->right, name[0] == 'a' ? "pp-arch-string" :
			       name[0] == 'r' ? "pp-runtime-string" : "pp-privilege-string",
			       "expected string literal");
	if (c->op->kind != EQ && c->op->kind != NE)
		return pp_fail(c, c->op, name[0] == 'a' ? "pp-arch-op" :
			       name[0] == 'r' ? "pp-runtime-op" : "pp-privilege-op",
			       "expected '==' or '!='");
	equal = wildcards ? fnmatch(c->right->value, value, FNM_NOESCAPE) == 0 :
		!strcmp(c->right->value, value);
	return equal == (c->op->kind == EQ);
}

/* guru_mode: 1 with -g, else 0, compared with a number by == or !=. */
static bool pp_guru_mode(struct lexer *lx, struct pp_comparison *c)
{
	if (c->right->kind != NUMBER)
		return pp_fail(c, c->right, "pp-guru-number", "expected number");
	if (c->op->kind != EQ && c->op->kind != NE)
		return pp_fail(c, c->op, "pp-guru-op", "expected '==' or '!='");
	return (literal_number(c->right) == (lx->options->guru_mode ? 1 : 0)) == (c->op->kind == EQ);
}

/* CONFIG_...: the target's .config, compared with a string (wildcards), a number, or another
 * option. */
static bool pp_config(struct lexer *lx, struct pp_comparison *c)
{
	const char *value = kernel_config(lx, c->left->text);
	int64_t left, right;

	if (c->right->kind == STRING) {
		if (c->op->kind != EQ && c->op->kind != NE)
			return pp_fail(c, c->op, "pp-config-op", "expected '==' or '!='");
		return (fnmatch(c->right->value, value, FNM_NOESCAPE) == 0) == (c->op->kind == EQ);
	}
	if (c->right->kind == NUMBER) {
		if (!config_number(value, &left))
			return pp_fail(c, c->left, "pp-config-nan", "Config option value not a number");
		right = literal_number(c->right);
		return pp_order(c, left < right ? -1 : left > right);
	}
	if (c->right->kind == IDENT && !strncmp(c->right->text, "CONFIG_", 7)) {
		const char *other = kernel_config(lx, c->right->text);

		if (config_number(value, &left) && config_number(other, &right))
			return pp_order(c, left < right ? -1 : left > right);
		return pp_order(c, strcmp(value, other));
	}
	return pp_fail(c, c->right, "pp-config-right",
		       "expected string, number literal or other CONFIG_... as right side operand");
}

static bool is_operator(const struct lexer *lx, const struct token *tok)
{
	return !strcmp(lexer_describe(lx, tok).what, "operator");
}

/* Evaluates LEFT OP RIGHT; sets c->error when it is malformed. */
static bool pp_evaluate(struct lexer *lx, struct pp_comparison *c)
{
	struct token *l = c->left, *r = c->right;

	if (l->kind == IDENT) {
		if (!strcmp(l->text, "kernel_v") || !strcmp(l->text, "kernel_vr") ||
		    !strcmp(l->text, "systemtap_v"))
			return pp_version(lx, c);
		if (!strcmp(l->text, "arch") || !strcmp(l->text, "runtime") ||
		    !strcmp(l->text, "systemtap_privilege"))
			return pp_string_fact(lx, c);
		if (!strcmp(l->text, "guru_mode"))
			return pp_guru_mode(lx, c);
		if (!strncmp(l->text, "CONFIG_", 7))
			return pp_config(lx, c);
	}
	if (l->kind == STRING && r->kind == STRING)
		return pp_order(c, strcmp(l->value, r->value));
	if (l->kind == NUMBER && r->kind == NUMBER) {
		int64_t a = literal_number(l), b = literal_number(r);

		return pp_order(c, a < b ? -1 : a > b);
	}
	if (l->kind == STRING && r->kind == NUMBER && is_operator(lx, c->op))
		return pp_fail(c, r, "pp-string-right", "expected string literal as right value");
	if (l->kind == NUMBER && r->kind == STRING && is_operator(lx, c->op))
		return pp_fail(c, r, "pp-number-right", "expected number literal as right value");
	return pp_fail(c, l, "pp-operand", expected_operand);
}

/* The three tokens of a comparison; NULL, or an error. */
static struct token *pp_read_comparison(struct lexer *lx, struct token *open,
					struct pp_comparison *c)
{
	struct token **parts[] = { &c->left, &c->op, &c->right };

	for (int i = 0; i < 3; i++) {
		*parts[i] = pp1_next(lx);
		if (is_reported(*parts[i]))
			return *parts[i];
	}
	for (int i = 0; i < 3; i++)
		if (!(*parts[i])->kind)
			return pp_error(lx, open, "pp-incomplete", "incomplete condition after '%('");
	return NULL;
}

/*
 * After %(: CONDITION %?, comparisons joined by && and || (&& binding tighter). Returns
 * an error, or NULL with *taken set.
 */
static struct token *pp_condition(struct lexer *lx, struct token *open, bool *taken)
{
	bool any = false, all = true;
	struct token *next;

	for (;;) {
		struct pp_comparison c = { 0 };
		struct token *error = pp_read_comparison(lx, open, &c);

		if (error)
			return error;
		all &= pp_evaluate(lx, &c);
		if (c.error)
			return pp_error(lx, c.error_at, c.site, c.error);
		next = pp1_next(lx);
		if (is_reported(next))
			return next;
		if (next->kind == ANDAND)
			continue;
		any |= all;
		all = true;
		if (next->kind != OROR)
			break;
	}
	if (next->kind != PP_THEN)
		return pp_error(lx, open, "pp-then", "expected '%?' marker for conditional");
	*taken = any;
	return NULL;
}

/* In a branch not taken: the next %?, %: or %) of this conditional, or the end. Nested
 * conditionals are skipped whole, and errors (of macros) pass unsaid. */
static struct token *pp_skip(struct lexer *lx)
{
	int depth = 0;

	lx->quiet++;
	for (;;) {
		struct token *tok = pp1_next(lx);

		if (!tok->kind) {
			lx->quiet--;
			return tok;
		}
		if (tok->kind == PP_IF) {
			depth++;
		} else if (tok->kind == PP_END && depth) {
			depth--;
		} else if (!depth && (tok->kind == PP_THEN || tok->kind == PP_ELSE ||
				      tok->kind == PP_END)) {
			lx->quiet--;
			return tok;
		}
	}
}

static void pp_push(struct lexer *lx, struct token *open, enum pp_state state)
{
	if (lx->pp_depth == lx->pp_cap) {
		lx->pp_cap = lx->pp_cap ? 2 * lx->pp_cap : 8;
		lx->pp_stack = xrealloc(lx->pp_stack, sizeof(*lx->pp_stack) * (size_t)lx->pp_cap);
	}
	lx->pp_stack[lx->pp_depth++] = (struct pp_frame){ open, state };
}

/* The tokens of the script with macros expanded and conditionals resolved (stap's second
 * preprocessing pass). */
struct token *pp_next(struct lexer *lx)
{
	for (;;) {
		struct pp_frame *top = lx->pp_depth ? &lx->pp_stack[lx->pp_depth - 1] : NULL;
		bool skipping = top && (top->state == PP_SKIP_THEN || top->state == PP_SKIP_ELSE);
		struct token *tok = skipping ? pp_skip(lx) : pp1_next(lx);
		struct token *error;
		bool taken = false;

		switch (tok->kind) {
		case 0:
			if (top) {
				lx->pp_depth--;
				return pp_error(lx, top->open, "pp-eof",
						"incomplete conditional at end of file");
			}
			return tok;
		case PP_THEN:
			return pp_error(lx, tok, "pp-stray-then", "incomplete conditional - missing '%('");
		case PP_ELSE:
			if (!top)
				return pp_error(lx, tok, "pp-stray-else",
						"incomplete conditional - missing '%('");
			if (top->state == PP_KEEP_ELSE || top->state == PP_SKIP_ELSE)
				return pp_error(lx, tok, "pp-else-again",
						"invalid conditional - duplicate '%:'");
			top->state = top->state == PP_KEEP_THEN ? PP_SKIP_ELSE : PP_KEEP_ELSE;
			continue;
		case PP_END:
			if (!top)
				return pp_error(lx, tok, "pp-stray-end",
						"incomplete conditional - missing '%('");
			lx->pp_depth--;
			continue;
		case PP_IF:
			error = pp_condition(lx, tok, &taken);
			if (error)
				return error;
			pp_push(lx, tok, taken ? PP_KEEP_THEN : PP_SKIP_THEN);
			continue;
		default:
			return tok;
		}
	}
}
