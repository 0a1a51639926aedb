/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 1: reading sources, parsing them into struct file, and printing the tree (-p1). */
#ifndef TAPSTER_PARSE_H
#define TAPSTER_PARSE_H

#include <stdbool.h>
#include <stdio.h>

#include "parse/ast.h"

/* What %( conditions ask of the target kernel. Asked only when a condition needs it, since
 * finding the target may mean fetching the bundled VM's kit. */
struct parse_target {
	/* The target's release, e.g. "6.1.0-56-cloud-amd64"; NULL when unknown. */
	const char *(*kernel_release)(void *ctx);
	/* The value of `name` ("CONFIG_KPROBES") in the target's .config: "y", "m", "64", or a
	 * string's text without its quotes; "" when it is not set. */
	const char *(*kernel_config)(void *ctx, const char *name);
	void *ctx;
};

struct parse_options {
	bool guru;		/* -g: embedded C allowed in the user script */
	bool guru_mode;		/* -g given, which %( guru_mode == 1 %) asks whatever the file
				 * (tapsets are read with `guru` set, and without -g) */
	int argc;		/* command-line script arguments, for $1/@1 and $#/@# */
	char *const *argv;
	const struct parse_target *target;	/* NULL: the host's kernel, no .config */
	const char *arch;		/* "x86_64" (-a) */
	const char *systemtap_version;	/* %( systemtap_v %): "4.8", or --compatible's */
	const char *privilege;		/* %( systemtap_privilege %): "stapdev" by default */
	/* The library's macro files (*.stpm), whose @define macros every file parsed with these
	 * options sees. They are read once, by the first parse that has them; a file with
	 * errors is left out, and fails the parse of the user script. */
	struct source *const *macro_sources;
	int nmacro_sources;
};

/* Reads a file into a new source; prints "ERROR: ..." and returns NULL when it can't. */
struct source *source_read(const char *path, bool is_tapset);
/* A source from text in memory, e.g. -e 'SCRIPT' as "<input>". The text is copied. */
struct source *source_from_text(const char *name, const char *text);

/* Parses one source. Errors are printed through diag_parse_error() as they are found,
 * with recovery where possible; returns NULL when there was any error (diag_error_count()
 * tells how many). */
struct file *parse_source(struct source *source, const struct parse_options *options);

/* -p1: prints a parsed file in stap's canonical form ("# file NAME" line included). */
void print_file(FILE *out, const struct file *file);
/* Printers for pieces, used by -p2 as well. */
void print_expr(FILE *out, const struct node *expr);
void print_stmt(FILE *out, const struct node *stmt);
/* -p2 shows identifiers and calls by another name: `name` returns it (a new string) or
 * NULL for the name as written. NULL restores the names as written. */
void print_set_namer(char *(*name)(const struct node *n));
void print_probe_point(FILE *out, const struct probe_point *point);

#endif
