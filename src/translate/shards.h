/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3: which numeric globals are kept in per-CPU parts (runtime/shards.h). A global is
 * sharded when some probe updates it with a statement of its own, `x++`, `x--`, `++x`,
 * `--x`, `x += v` or `x -= v` (x a scalar or an element a[k] of an array of numbers,
 * `global a%` aside), or `a[k] = v` (an array whose updates all assign: one whose updates
 * both add and assign is not sharded), and no probe that does so uses it in any other way
 * (reads it, in the keys or the value of its update too, or in a function it calls): those
 * probes update their CPU's part without its lock; the others take its lock for writing
 * and merge the parts first. A global read by a probe's condition is never sharded.
 */
#ifndef TAPSTER_SHARDS_H
#define TAPSTER_SHARDS_H

#include "parse/ast.h"
#include "resolve/program.h"

/* Sets `sharded` on the program's globals that are. */
void shards_decide(struct program *program);

/*
 * Sets `pstat_unwatched` on the statistics scalars that no probe reads while others run (only
 * begin, end and error probes read them, directly or through functions) and none deletes:
 * their adds go to their CPU's part without the protocol that lets a reader elsewhere copy
 * it whole, or a delete empty it (runtime/pstat.h's tap_pstat_begin_add_unwatched()).
 */
void pstats_decide(struct program *program);

/* The update of statement `stmt` (an N_EXPR_STMT) when it is one of a global's that a
 * sharded global's probes make without its lock, else NULL. */
const struct node *shard_update(const struct node *stmt);

/* The global an update of shard_update() changes. */
const struct var *shard_update_var(const struct node *update);

/* Whether an update of shard_update() assigns an element, a[k] = v. */
bool shard_update_assigns(const struct node *update);

#endif
