// SPDX-License-Identifier: GPL-2.0-or-later
/* Diagnostics in stap's form: see diag.h. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/ast.h"
#include "util.h"

/* Where messages go: stderr, or a buffer while a message waits to know whether it is shown
 * (see diag_error_head_at). */
static FILE *diag_out;

__attribute__((constructor)) static void diag_out_init(void)
{
	diag_out = stderr;
}

static int error_count;
static int suppressed_count;
static bool warnings_enabled = true;

/* The messages of the parse errors printed so far. */
static char **seen_messages;
static int nseen_messages;

int diag_suppressed_count(void)
{
	return suppressed_count;
}

int diag_error_count(void)
{
	return error_count;
}

void diag_forget_errors(int count)
{
	error_count -= count;
}

void diag_reset(void)
{
	error_count = 0;
}

void diag_set_warnings(bool enabled)
{
	warnings_enabled = enabled;
}

static int verbosity;

void diag_set_verbosity(int level)
{
	verbosity = level;
}

int diag_verbosity(void)
{
	return verbosity;
}

/* ---- Colors (--color): stap's parts and SGR codes, SYSTEMTAP_COLORS as stap reads it ---- */

enum color_part { COLOR_ERROR, COLOR_WARNING, COLOR_SOURCE, COLOR_CARET, COLOR_TOKEN, NCOLORS };

static const char *const color_names[NCOLORS] = { "error", "warning", "source", "caret",
						  "token" };
static char *colors[NCOLORS];	/* NULL: the part is not colored */

/* "error=01;31:warning=00;33:...": each known part's code, digits and ';' only. */
static void read_colors(const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL;

	for (char *item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(item, '=');

		if (!eq || !eq[1] || strspn(eq + 1, "0123456789;") != strlen(eq + 1))
			continue;
		*eq = '\0';
		for (int i = 0; i < NCOLORS; i++)
			if (!strcmp(item, color_names[i])) {
				free(colors[i]);
				colors[i] = xstrdup(eq + 1);
			}
	}
	free(copy);
}

void diag_set_color(bool enabled)
{
	const char *spec = getenv("SYSTEMTAP_COLORS");

	for (int i = 0; i < NCOLORS; i++) {
		free(colors[i]);
		colors[i] = NULL;
	}
	if (enabled)
		read_colors(spec ? spec : "error=01;31:warning=00;33:source=00;34:caret=01:"
				   "token=01");
}

static void color_begin(enum color_part part)
{
	if (colors[part])
		fprintf(diag_out, "\033[%sm\033[K", colors[part]);
}

static void color_end(enum color_part part)
{
	if (colors[part])
		fputs("\033[m\033[K", diag_out);
}

/* "semantic error: ", "WARNING: ": the kind in its color. */
static void print_kind(const char *kind, enum color_part part)
{
	color_begin(part);
	fprintf(diag_out, "%s:", kind);
	color_end(part);
	fputc(' ', diag_out);
}

/* The text of line `line` of `source`, without its newline. */
static void source_line(const struct source *source, int line, const char **start, int *len)
{
	const char *p = source->text;
	const char *end = source->text + source->len;

	for (int n = 1; n < line && p < end; p++)
		if (*p == '\n')
			n++;
	const char *eol = memchr(p, '\n', end - p);
	*start = p;
	*len = eol ? (int)(eol - p) : (int)(end - p);
}

void diag_print_source(struct loc loc, const char *label)
{
	const char *text;
	int len;

	if (!loc.source || !loc.source->text)
		return;
	source_line(loc.source, loc.line, &text, &len);
	fprintf(diag_out, "%s: ", label);
	color_begin(COLOR_SOURCE);
	fprintf(diag_out, "%.*s", len, text);
	color_end(COLOR_SOURCE);
	fputc('\n', diag_out);
	/* The caret sits under column `col`; tabs in the line keep their width. */
	int indent = (int)strlen(label) + 2;
	fprintf(diag_out, "%*s", indent, "");
	for (int i = 0; i < loc.col - 1 && i < len; i++)
		fputc(text[i] == '\t' ? '\t' : ' ', diag_out);
	color_begin(COLOR_CARET);
	fputc('^', diag_out);
	color_end(COLOR_CARET);
	fputc('\n', diag_out);
}

static void print_token(const struct token_desc *tok);

static void print_loc(struct loc loc)
{
	if (loc.source)
		fprintf(diag_out, " at %s:%d:%d", loc.source->name, loc.line, loc.col);
}

/* The macro invocations a token at `loc` was expanded from, innermost first. */
static void print_expansions(struct loc loc, const char *label)
{
	for (const struct expansion *e = loc.expansion; e; e = e->loc.expansion) {
		fputs("\tin expansion of macro: ", diag_out);
		print_token(&e->site);
		print_loc(e->loc);
		fputc('\n', diag_out);
		diag_print_source(e->loc, label);
	}
}

struct expansion *expansion_new(const struct token_desc *site, struct loc loc)
{
	struct expansion *e = xcalloc(1, sizeof(*e));

	e->site.what = site->what;
	e->site.text = site->text ? xstrdup(site->text) : NULL;
	e->loc = loc;
	return e;
}

void expansion_free_list(struct expansion *list)
{
	while (list) {
		struct expansion *next = list->next;

		free((char *)list->site.text);
		free(list);
		list = next;
	}
}

/* As stap has it, a semantic message names its file only when the previous one named
 * another: "at seed.stp:1:7", then "at :1:14". */
static const struct source *last_semantic_source;

static void print_semantic_loc(struct loc loc)
{
	if (!loc.source)
		return;
	fprintf(diag_out, " at %s:%d:%d", loc.source == last_semantic_source ? "" : loc.source->name,
		loc.line, loc.col);
	last_semantic_source = loc.source;
}

void diag_count_suppressed(void)
{
	suppressed_count++;
}


static void print_token(const struct token_desc *tok)
{
	if (!tok)
		return;
	if (tok->text) {
		fprintf(diag_out, "%s '", tok->what);
		color_begin(COLOR_TOKEN);
		fputs(tok->text, diag_out);
		color_end(COLOR_TOKEN);
		fputc('\'', diag_out);
	} else {
		fputs(tok->what, diag_out);
	}
}

/*
 * stap prints one error of each kind: a later error raised at the same place of the
 * translator is counted as suppressed (the closing "Number of similar error messages
 * suppressed"), with the errors chained to it. Here the place is the message's format.
 */
static const char **seen_formats;
static int nseen_formats;
static bool continues;		/* the next error continues the last one */
static bool last_suppressed;
static bool suppression = true;

void diag_continue(void)
{
	continues = true;
}

void diag_set_suppression(bool enabled)
{
	suppression = enabled;
}

bool diag_suppressing(void)
{
	return suppression;
}

/* A head waiting for its continuation (diag_error_head_at): its text, and where the last
 * file name stood before it. */
static char *pending_head;
static const struct source *source_before_head;

/* Whether an error of format `fmt` is new (then remembered), else counts it suppressed. */
static bool first_of_format(const char *fmt)
{
	for (int i = 0; suppression && i < nseen_formats; i++) {
		if (seen_formats[i] == fmt) {
			suppressed_count++;
			last_suppressed = true;
			return false;
		}
	}
	seen_formats = xrealloc(seen_formats, sizeof(*seen_formats) * (size_t)(nseen_formats + 1));
	seen_formats[nseen_formats++] = fmt;
	last_suppressed = false;
	return true;
}

/* Whether an error with format `fmt` is to be printed; counts it when it is not. */
static bool print_semantic(const char *fmt)
{
	bool chained = continues;
	char *head = pending_head;

	continues = false;
	pending_head = NULL;
	if (chained && head) {
		/* The pair is shown or suppressed by what the continuation says. */
		bool shown = first_of_format(fmt);

		if (shown)
			fputs(head, diag_out);
		else
			last_semantic_source = source_before_head;
		free(head);
		return shown;
	}
	free(head);
	if (chained)
		return !last_suppressed;
	return first_of_format(fmt);
}

/* Errors while quiet: neither printed nor counted; the last one's message is kept. */
static int quiet_depth, quiet_errors;
static char *quiet_reason;

/* While quiet: keeps the message of an error, without its end of line. */
static void keep_quiet_reason(const char *fmt, va_list ap)
{
	struct strbuf sb = { 0 };
	va_list copy;
	char *text;
	size_t len;

	if (!quiet_depth)
		return;
	va_copy(copy, ap);
	sb_vaddf(&sb, fmt, copy);
	va_end(copy);
	text = sb_steal(&sb);
	len = strlen(text);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	free(quiet_reason);
	quiet_reason = text;
}

const char *diag_quiet_reason(void)
{
	return quiet_reason;
}

/* Each open quiet scope's count of errors when it began. A scope counts only its own
 * errors, and once it ends they are its caller's to weigh, not the enclosing scope's: an
 * optional alias target (nfs.proc2.read ?) whose own optional targets failed quietly before
 * its `never` derived has derived. Suspending leaves the stack as it is: the scopes opened
 * meanwhile end before the resume. */
#define MAX_QUIET_SCOPES 256
static int quiet_starts[MAX_QUIET_SCOPES], quiet_scopes;

void diag_quiet_begin(void)
{
	if (quiet_depth++ == 0)
		quiet_errors = 0;
	if (quiet_scopes < MAX_QUIET_SCOPES)
		quiet_starts[quiet_scopes] = quiet_errors;
	quiet_scopes++;
}

int diag_quiet_end(void)
{
	int start = 0, since;

	quiet_depth--;
	quiet_scopes--;
	if (quiet_scopes < MAX_QUIET_SCOPES)
		start = quiet_starts[quiet_scopes];
	since = quiet_errors - start;
	quiet_errors = start;
	return since;
}

bool diag_quiet(void)
{
	return quiet_depth > 0;
}

void diag_quiet_suspend(struct diag_quiet_state *saved)
{
	saved->depth = quiet_depth;
	saved->errors = quiet_errors;
	quiet_depth = 0;
}

void diag_quiet_resume(const struct diag_quiet_state *saved)
{
	quiet_depth = saved->depth;
	quiet_errors = saved->errors;
}

/* Counts an error; false when it is not to be printed at all. */
static bool count_error(void)
{
	if (quiet_depth) {
		quiet_errors++;
		continues = false;
		return false;
	}
	error_count++;
	return true;
}

/* "kind: message: token at FILE:L:C", its source line and macro expansions. */
static char *next_details;

void diag_next_details(const char *lines)
{
	free(next_details);
	next_details = lines ? xstrdup(lines) : NULL;
}

static void print_semantic_message(const char *kind, const struct token_desc *tok,
				   struct loc loc, const char *fmt, va_list ap)
{
	print_kind(kind, COLOR_ERROR);
	vfprintf(diag_out, fmt, ap);
	if (tok) {
		fputs(": ", diag_out);
		print_token(tok);
	}
	print_semantic_loc(loc);
	fputc('\n', diag_out);
	if (next_details)
		fputs(next_details, diag_out);
	diag_next_details(NULL);
	diag_print_source(loc, "        source");
	print_expansions(loc, "        source");
}

static void semantic_error(const char *kind, const struct token_desc *tok, struct loc loc,
			   const struct token_desc *also_tok, const struct loc *also_loc,
			   const char *fmt, va_list ap)
{
	keep_quiet_reason(fmt, ap);
	if (!count_error() || !print_semantic(fmt)) {
		diag_next_details(NULL);
		return;
	}
	print_semantic_message(kind, tok, loc, fmt, ap);
	if (also_tok) {
		print_token(also_tok);
		print_semantic_loc(*also_loc);
		fputc('\n', diag_out);
		diag_print_source(*also_loc, "        source");
		print_expansions(*also_loc, "        source");
	}
	fputc('\n', diag_out);
}

void diag_error_at(const char *kind, const struct token_desc *tok, struct loc loc,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	semantic_error(kind, tok, loc, NULL, NULL, fmt, ap);
	va_end(ap);
}

void diag_error_head_at(const char *kind, const struct token_desc *tok, struct loc loc,
			const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	size_t len = 0;
	FILE *saved = diag_out;

	if (!count_error())
		return;
	free(pending_head);
	source_before_head = last_semantic_source;
	diag_out = open_memstream(&text, &len);
	va_start(ap, fmt);
	print_semantic_message(kind, tok, loc, fmt, ap);
	va_end(ap);
	fputc('\n', diag_out);
	fclose(diag_out);
	diag_out = saved;
	pending_head = text;
	continues = true;
}

void diag_error_at_also(const char *kind, const struct token_desc *tok, struct loc loc,
			const struct token_desc *also_tok, struct loc also_loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	semantic_error(kind, tok, loc, also_tok, &also_loc, fmt, ap);
	va_end(ap);
}

/* Records `key`; false when it was seen before. */
static bool first_time(char *key)
{
	for (int i = 0; i < nseen_messages; i++) {
		if (!strcmp(seen_messages[i], key)) {
			free(key);
			return false;
		}
	}
	seen_messages = xrealloc(seen_messages, sizeof(*seen_messages) * (size_t)(nseen_messages + 1));
	seen_messages[nseen_messages++] = key;
	return true;
}

static void parse_error(const char *site, const char *label, const struct token_desc *tok,
			struct loc loc, const char *fmt, va_list ap)
{
	struct strbuf message = { 0 };

	error_count++;
	sb_vaddf(&message, fmt, ap);
	if (!first_time(xasprintf("%s\n%s", site ? site : "", message.buf))) {
		suppressed_count++;
		free(message.buf);
		return;
	}
	print_kind("parse error", COLOR_ERROR);
	fprintf(diag_out, "%s\n", message.buf);
	free(message.buf);
	if (tok) {
		fprintf(diag_out, "%12s ", label);
		print_token(tok);
		print_loc(loc);
		fputc('\n', diag_out);
	}
	diag_print_source(loc, "     source");
	print_expansions(loc, "     source");
	fputc('\n', diag_out);
}

void diag_parse_error_site(const char *site, const char *label, const struct token_desc *tok,
			   struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	parse_error(site, label, tok, loc, fmt, ap);
	va_end(ap);
}

void diag_parse_error(const struct token_desc *saw, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	parse_error(NULL, "saw:", saw, loc, fmt, ap);
	va_end(ap);
}

void diag_parse_error_at(const struct token_desc *tok, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	parse_error(NULL, "at:", tok, loc, fmt, ap);
	va_end(ap);
}

void diag_error(const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_quiet_reason(fmt, ap);
	va_end(ap);
	if (!count_error() || !print_semantic(fmt))
		return;
	print_kind(kind, COLOR_ERROR);
	va_start(ap, fmt);
	vfprintf(diag_out, fmt, ap);
	va_end(ap);
	fputc('\n', diag_out);
}

/* "WARNING: message" without its end of line; false when warnings are off (-w). */
/* -W: each warning shown counts as an error too, so the pass it is in fails. */
static bool warnings_are_errors;

void diag_set_warnings_are_errors(bool enabled)
{
	warnings_are_errors = enabled;
}

static bool start_warning(const char *fmt, va_list ap)
{
	if (!warnings_enabled)
		return false;
	if (warnings_are_errors)
		error_count++;
	print_kind("WARNING", COLOR_WARNING);
	vfprintf(diag_out, fmt, ap);
	return true;
}

/*
 * stap shows a warning once per message: the same words again (wherever they are) count
 * as a suppressed warning, unless -v.
 */
static char **seen_warnings;
static int nseen_warnings, suppressed_warnings;

static bool first_warning(const char *message)
{
	for (int i = 0; suppression && i < nseen_warnings; i++) {
		if (!strcmp(seen_warnings[i], message)) {
			suppressed_warnings++;
			return false;
		}
	}
	seen_warnings = xrealloc(seen_warnings, sizeof(*seen_warnings) *
				 (size_t)(nseen_warnings + 1));
	seen_warnings[nseen_warnings++] = xstrdup(message);
	return true;
}

void diag_print_suppressed(void)
{
	if (suppressed_count)
		fprintf(diag_out, "Number of similar error messages suppressed: %d.\n",
			suppressed_count);
	if (suppressed_warnings)
		fprintf(diag_out, "Number of similar warning messages suppressed: %d.\n",
			suppressed_warnings);
	if (suppressed_count || suppressed_warnings)
		fputs("Rerun with -v to see them.\n", diag_out);
}

/* A warning's message (malloc'd), or NULL when warnings are off or it was given before
 * (then counted as suppressed). */
static char *new_warning(const char *fmt, va_list ap)
{
	struct strbuf message = { 0 };

	if (!warnings_enabled)
		return NULL;
	sb_vaddf(&message, fmt, ap);
	if (first_warning(message.buf)) {
		if (warnings_are_errors)
			error_count++;
		return message.buf;
	}
	free(message.buf);
	return NULL;
}

void diag_warning_at(const struct token_desc *tok, struct loc loc, const char *fmt, ...)
{
	va_list ap;
	char *message;

	va_start(ap, fmt);
	message = new_warning(fmt, ap);
	va_end(ap);
	if (!message)
		return;
	print_kind("WARNING", COLOR_WARNING);
	fprintf(diag_out, "%s: ", message);
	free(message);
	print_token(tok);
	print_semantic_loc(loc);
	fputc('\n', diag_out);
	diag_print_source(loc, " source");
}

void diag_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (start_warning(fmt, ap))
		fputc('\n', diag_out);
	va_end(ap);
}

void diag_warning_once(const char *fmt, ...)
{
	va_list ap;
	char *message;

	va_start(ap, fmt);
	message = new_warning(fmt, ap);
	va_end(ap);
	if (message) {
		print_kind("WARNING", COLOR_WARNING);
		fprintf(diag_out, "%s\n", message);
	}
	free(message);
}

/*
 * Everything diag remembers, forgotten: the counts, the messages and formats already seen,
 * a pending head; messages go to `stderr` (as it is now). For a process that translates
 * several scripts, one after the other (fuzz/translate_fuzz).
 */
void diag_reset_all(void)
{
	for (int i = 0; i < nseen_messages; i++)
		free(seen_messages[i]);
	free(seen_messages);
	seen_messages = NULL;
	nseen_messages = 0;
	free(seen_formats);
	seen_formats = NULL;
	nseen_formats = 0;
	for (int i = 0; i < nseen_warnings; i++)
		free(seen_warnings[i]);
	free(seen_warnings);
	seen_warnings = NULL;
	nseen_warnings = suppressed_warnings = 0;
	free(pending_head);
	pending_head = NULL;
	source_before_head = last_semantic_source = NULL;
	continues = last_suppressed = false;
	quiet_depth = quiet_errors = quiet_scopes = 0;
	free(quiet_reason);
	quiet_reason = NULL;
	error_count = suppressed_count = 0;
	diag_out = stderr;
}
