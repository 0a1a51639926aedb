/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 2: stap's optimizer on the resolved program (see optimize.c). */
#ifndef TAPSTER_OPTIMIZE_H
#define TAPSTER_OPTIMIZE_H

#include "parse/ast_copy.h"
#include "resolve/program.h"

/* Before types: folds arithmetic; with `elide` (no -u), also removes what has no effect,
 * with stap's warnings. */
void optimize(struct program *program, bool elide);
/* The value of `n` when it is made of numbers only (1 + 2, !0, 0 && x); false otherwise
 * or for what stays to run time (a division by zero). */
bool optimize_constant_value(const struct node *n, int64_t *value);
/* After types: folds constant conditions (if, loops, &&, ||, ?:); with `elide`, removes
 * what that leaves without effect (quietly), then the probes left empty, as stap. */
void optimize_typed(struct program *program, bool elide);

#endif
