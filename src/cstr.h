/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C literals for the generated module: pass 2 keeps where a target access is reported at
 * as one (target_vars.h), pass 3 writes them throughout.
 */
#ifndef TAPSTER_CSTR_H
#define TAPSTER_CSTR_H

struct node;

/* `s` as a C string literal, quotes and escapes in (malloc'd). */
char *c_string_literal(const char *s);
/* What stap reports an error at, as a C string literal: "\"operator '/' at f.stp:1:2\"". */
char *location_literal(const struct node *n);

#endif
