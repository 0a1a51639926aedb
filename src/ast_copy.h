/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deep copies of syntax trees, for bodies that pass 2 resolves once per probe. */
#ifndef TAPSTER_AST_COPY_H
#define TAPSTER_AST_COPY_H

#include "ast.h"

/* A copy of `n` and everything below it, without pass 2's annotations; NULL for NULL. */
struct node *node_copy(const struct node *n);

#endif
