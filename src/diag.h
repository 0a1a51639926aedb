/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics in stap's form. A located message is printed as
 *
 *     semantic error: unresolved function foo: identifier 'foo' at seed.stp:1:15
 *             source: probe begin { foo() }
 *                                   ^
 *
 * followed by a blank line. Each pass counts its errors; the driver prints the pass's
 * closing line ("Pass 2: analysis failed.  [man error::pass2]").
 */
#ifndef TAPSTER_DIAG_H
#define TAPSTER_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

struct source;

struct expansion;

struct loc {
	const struct source *source;	/* NULL for "no location" */
	int line, col;			/* 1-based */
	/* A token that a macro expansion produced is where it is written in the macro's body
	 * (or in the argument of a macro parameter), and `expansion` says which invocation
	 * produced it; NULL for a token read from the source as it is. */
	const struct expansion *expansion;
};

/* What a token or node is, as stap names it in "saw:" and "at:" lines:
 * "identifier 'foo'", "operator '}'", "number '3'", "string '\"x\"'", "keyword 'probe'". */
struct token_desc {
	const char *what;	/* "identifier", "operator", "number", "string", "keyword", ... */
	const char *text;	/* the token as written; NULL for end of input */
};

/* A macro invocation (`@NAME` or a parameter `@a` in a macro's body) that tokens were expanded
 * from. Messages about such a token are followed, as in stap, by one
 *     \tin expansion of macro: operator '@NAME' at FILE:LINE:COL
 * line and its source line per invocation, innermost first. */
struct expansion {
	struct token_desc site;		/* "operator '@NAME'"; its text is owned */
	struct loc loc;			/* where the invocation is written */
	struct expansion *next;		/* in its owner's list (see struct file) */
};

/* Lines that the next semantic error prints between its message and its source line
 * (stap's DWARF details: "        dieoffset: ...\n"); NULL: none. Copied. */
void diag_next_details(const char *lines);

/* "kind: message: what 'text' at file:line:col" + source line + caret + blank line. */
void diag_error_at(const char *kind, const struct token_desc *tok, struct loc loc,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* stap's parse-error layout:
 *     parse error: expected foo
 *             saw: operator '}' at <input>:1:23
 *          source: probe begin { x = 1 + }
 *                                        ^
 */
void diag_parse_error(const struct token_desc *saw, struct loc loc,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with the token line labelled "at:" instead of "saw:", as stap has it for errors
 * about a token itself (a malformed literal, an alias name with `?`, ...). */
void diag_parse_error_at(const struct token_desc *tok, struct loc loc,
			 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * As in stap, a parse error that was already printed is counted but not printed again; the
 * driver ends with
 *     Number of similar error messages suppressed: N.
 *     Rerun with -v to see them.
 * when this is not zero. Errors are the same when their message is, and their `site`:
 * stap tells its errors apart by the place in its parser that raises them, so the same
 * message can come from different sites ("expected identifier" after `global` and after
 * `function` are both printed). NULL is a site of its own.
 */
void diag_parse_error_site(const char *site, const char *label, const struct token_desc *tok,
			   struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int diag_suppressed_count(void);
/* At the end of the session: how many errors and warnings were suppressed as repeats. */
void diag_print_suppressed(void);
/* Counts an error that stap reports twice, the second time suppressed. */
void diag_count_suppressed(void);

/* A semantic error that points at a second place as well, printed under the first:
 *     identifier 'f' at :1:10
 *             source: function f(a) { return a }
 *                              ^ */
void diag_error_at_also(const char *kind, const struct token_desc *tok, struct loc loc,
			const struct token_desc *also_tok, struct loc also_loc, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* A warning about a token, as stap words them:
 *     WARNING: message: identifier 'cast' at seed.stp:1:9
 *      source: @define cast %( 1 %)
 *                      ^
 * (no blank line after it). */
void diag_warning_at(const struct token_desc *tok, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A new expansion record for the invocation `site` at `loc` (its text copied), and freeing a
 * list of them. */
struct expansion *expansion_new(const struct token_desc *site, struct loc loc);
void expansion_free_list(struct expansion *list);

/* The next error continues the last one (stap's chained errors, such as "probe point
 * mismatch" after "while resolving probe point"): printed or suppressed with it. A later
 * error with the format of an earlier one is suppressed and counted, as in stap, unless
 * diag_set_suppression(false) (-v). */
void diag_continue(void);
/* The first part of a two-part error (stap's "while resolving probe point: ..."), shown
 * only with the part that follows (an error after it, as after diag_continue), and
 * suppressed as a repeat by what that part says. */
void diag_error_head_at(const char *kind, const struct token_desc *tok, struct loc loc,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_set_suppression(bool enabled);
/* Whether similar errors are suppressed (not -v). */
bool diag_suppressing(void);

/* Between these, semantic errors are neither printed nor counted: an optional probe point
 * (`?`) that does not resolve is dropped without a word. The end returns how many there
 * were since its begin; they are then its caller's, not an enclosing scope's. They nest. */
void diag_quiet_begin(void);
int diag_quiet_end(void);
/* Whether errors are quiet now: what only decorates a message (similar names) is skipped. */
bool diag_quiet(void);
/* The message of the last error while quiet ("invalid suffix for probe"), or NULL: what a
 * failed alias suffix reports at the suffix, as stap does. */
const char *diag_quiet_reason(void);
/* Errors said aloud again for a while (a probe body resolved while its optional point is
 * derived quietly: its errors are the script's), then quiet as before. */
struct diag_quiet_state {
	int depth, errors;
};
void diag_quiet_suspend(struct diag_quiet_state *saved);
void diag_quiet_resume(const struct diag_quiet_state *saved);

/* An unlocated error or warning: "semantic error: ..." / "WARNING: ...". */
void diag_error(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An unlocated warning that, as a located one, is shown once: the same words again count as
 * a suppressed warning (unless -v). */
void diag_warning_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "        source: LINE\n" and the caret line, with the given label width. */
void diag_print_source(struct loc loc, const char *label);

/* Errors reported since the last diag_reset(). */
int diag_error_count(void);
/* Takes back `count` errors from that count: those of the library's macro files, which
 * stap reports but does not count among the script's parse errors. */
void diag_forget_errors(int count);
void diag_reset(void);
/* All of diag's state forgotten, as at the start of a process (fuzz/translate_fuzz). */
void diag_reset_all(void);

/* -w: warnings are not printed. */
void diag_set_warnings(bool enabled);
/* --color: the kinds, source lines, carets and tokens in stap's colors (SYSTEMTAP_COLORS). */
void diag_set_color(bool enabled);
/* -W: every warning shown is counted as an error as well. */
void diag_set_warnings_are_errors(bool enabled);
/* -v's count: what passes report beyond the messages (stap's -vvv notes, for one). */
void diag_set_verbosity(int level);
int diag_verbosity(void);

#endif
