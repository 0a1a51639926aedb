/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The regular expressions of `=~` and `!~` in the module (pass 3): each distinct pattern
 * compiled (regex.h) and written as static data for the runtime's matcher (runtime/regex.h).
 */
#ifndef TAPSTER_REGEX_TABLE_H
#define TAPSTER_REGEX_TABLE_H

#include <stdio.h>

#include "resolve/regex.h"

/* The distinct patterns a module uses, numbered in order of first use. */
struct regex_table {
	char **patterns;
	struct regex_program **programs;
	int len;
};

/* The number of `pattern` in the table, compiling and adding it on first use (the pattern
 * was checked in pass 2). */
int regex_table_use(struct regex_table *table, const char *pattern);
/* `#define`s that size the runtime's scratch space, before context.h; nothing when the
 * table is empty. */
void regex_write_sizes(const struct regex_table *table, FILE *out);
/* Each program as static data `tap_regex_N`, after runtime/regex.h. */
void regex_write_programs(const struct regex_table *table, FILE *out);
void regex_table_free(struct regex_table *table);

#endif
