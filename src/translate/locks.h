/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3: which globals a probe body locks, and how. As in stap, each global has its own
 * reader/writer lock; a probe takes, in the order the globals are declared, a read lock on
 * each global it (or a function it calls, at any depth) only reads and a write lock on each
 * it may change, for the whole body (runtime/globals.h). A foreach counts as a change.
 * Statistics are kept per CPU (runtime/pstat.h): <<< needs no lock, as each CPU adds to its
 * own part (into an array whose @variance is taken, a read lock); reading them takes a
 * write lock, as that gathers the parts. A sharded global (shards.h) is not locked by the updates that
 * only change its CPU's part, and is locked for writing by any other use, which merges its
 * parts first.
 */
#ifndef TAPSTER_LOCKS_H
#define TAPSTER_LOCKS_H

#include <stdbool.h>

#include "parse/ast.h"
#include "resolve/program.h"

struct lock_use {
	const struct var *global;
	bool locked;	/* false: only fed with <<< (a scalar kept per CPU needs no lock) */
	bool write;
	bool changes;	/* the body may change the global's value: a write, or <<< */
};

struct lock_plan {
	struct lock_use *uses;	/* in the order of program->globals */
	int len;
};

/* The locks `body` and the @entry expressions `entries` (either may be NULL) need. */
struct lock_plan lock_plan_for(const struct program *program, const struct node *body,
			       const struct node_list *entries);

void lock_plan_free(struct lock_plan *plan);

#endif
