/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deep copies of syntax trees, for bodies that pass 2 resolves once per probe, and a walk
 * over every node of a tree. */
#ifndef TAPSTER_AST_COPY_H
#define TAPSTER_AST_COPY_H

#include "parse/ast.h"

/* A copy of `n` and everything below it, without pass 2's annotations; NULL for NULL. */
struct node *node_copy(const struct node *n);

/* Whether `test` holds for `n` or any node below it (foreach parts and target-variable
 * indexes included); the walk stops at the first that does. */
bool node_any(const struct node *n, bool (*test)(const struct node *n, void *ctx), void *ctx);

#endif
