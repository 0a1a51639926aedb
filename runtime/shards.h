/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sharded globals: a numeric global that the probes updating it only update (`x++`, `x--`,
 * `x += v`, `x -= v`, `a[k]++` and the like as statements of their own; the translator's
 * src/translate/shards.c decides) is kept in parts, one set per CPU, that those probes
 * change without the global's lock; a probe that does anything else with it (reads it,
 * assigns it, deletes, foreach, `in`, the end probes and autoprint) takes the global's
 * lock for writing as before and first merges the parts into the global's own value
 * (tap_g_NAME, tap_m_NAME), so it sees every update made before it and works on the global
 * as if there were no parts. Merging moves the parts' values, it never changes the sum of
 * the global and its parts: a merge that leaves off half-way loses nothing.
 *
 * A scalar: one int64 per CPU that only its CPU adds to (this_cpu_add: one instruction on
 * x86, safe against interrupts), and what the merges took of it so far, which only the
 * merging CPU (under the global's write lock) writes: a merge adds the difference to the
 * global. No lock, no atomic on the hot path.
 *
 * An array: two shards per CPU, each a small map (TAP_SHARD_ENTRIES entries at most) with
 * a lock of its own. An update takes the first shard of its CPU, or the second when a merge
 * holds the first (a merge holds one shard at a time and merges are serialized by the
 * global's lock, so one of the two is always free: an update never waits), finds or inserts
 * the key there and adds to its value. A merge takes each shard's lock in turn (an update
 * holds it for a lookup and an add, never from a nested probe: it spins until it has it)
 * and adds its values into the global map; the shard keeps its keys, their values 0 and
 * marked as known to the global map (stamp 0), so that the next updates of the same keys
 * insert nothing. A full shard makes room by dropping such a key. A key removed from the
 * global map (delete) is removed from the shards too (tap_map.forget).
 *
 * MAXMAPENTRIES (or the declared size): a shard may hold at most its `budget` keys that
 * are not known to the global map (`fresh`), and the budgets of all shards are reserved in
 * the global map (tap_map.reserved): its entries plus every budget never pass its
 * capacity, so no merge ever overflows it and an update that inserts into a shard within
 * its budget cannot be one stap would refuse. An insertion into a shard whose budget is
 * used up takes the slow path: the global's lock (MAXTRYLOCK tries, counted and skipped as
 * any lock timeout), every shard merged, and the update done in the global map itself,
 * which errs exactly when stap's would. An insertion into the global map that would need
 * reserved room first takes every budget back (merging every shard: then its count is the
 * number of distinct keys), so the overflow error comes at the very update it would come
 * in stap. A merge gives the shard it emptied a new budget: an even share of the room
 * left, at most the shard's size. A full array's updates of keys it has stay on the fast
 * path; only keys it lacks go the slow way, as they must, to err.
 *
 * foreach order: every shard insertion takes a stamp from the array's clock (an atomic
 * increment, once per new key per shard between merges, not per update); keys new to the
 * global map are appended in stamp order, so the global's insertion order is the order the
 * keys were first inserted anywhere.
 */
#ifndef TAP_SHARDS_H
#define TAP_SHARDS_H

#include <linux/percpu.h>
#include <linux/slab.h>

#include "globals.h"
#include "maps.h"

/* -DTAP_SHARDS_OFF: an array's updates all take the slow path, the global's write lock
 * around the update (for comparison: make bench-shards; stap holds it for the whole probe
 * body, so this is the lighter of the two). */
#ifndef TAP_SHARD_ENTRIES
#define TAP_SHARD_ENTRIES 128	/* entries of a shard, at most */
#endif

/* ---- A sharded scalar ---- */

struct tap_sscalar_part {
	int64_t added;		/* by this CPU's updates */
	int64_t merged;		/* of `added`, what merges took */
};

static int tap_sscalar_init(struct tap_sscalar_part __percpu **parts)
{
	*parts = alloc_percpu(struct tap_sscalar_part);
	return *parts ? 0 : -ENOMEM;
}

static void tap_sscalar_free(struct tap_sscalar_part __percpu *parts)
{
	free_percpu(parts);
}

/* The parts gathered into `global` (under its write lock). */
static void tap_sscalar_merge(int64_t *global, struct tap_sscalar_part __percpu *parts)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tap_sscalar_part *part = per_cpu_ptr(parts, cpu);
		int64_t added = READ_ONCE(part->added);

		*global = (int64_t)((u64)*global + (u64)added - (u64)part->merged);
		part->merged = added;
	}
}

/* ---- A sharded array ---- */

/* A shard's state word: held (by an update or a merge), and updated since its last merge.
 * An update takes it with one locked bit test and leaves it with one store, dirty. */
#define TAP_SHARD_HELD 0		/* the bit */
#define TAP_SHARD_DIRTY 2UL		/* the value */

struct tap_shard {
	unsigned long state;
	int budget;		/* keys new to the global map it may hold */
	int fresh;		/* ... and those it holds: its entries with a stamp */
	struct tap_map map;
} ____cacheline_aligned;

struct tap_smap {
	struct tap_map *global;
	struct tap_lock *lock;		/* the global's */
	struct tap_shard *shards;	/* two per CPU: 2 * cpu and 2 * cpu + 1 */
	int nshards;
	atomic_t clock;			/* insertion stamps, and assignments' */
	u32 merges;			/* merges so far (assignments: tap_assign_into()) */
};

/* An array whose updates assign (a[k] = v): after each value, the last assignment's stamp
 * (0: none since the shard's last merge), and in the global map the merge that set it. */
struct tap_assign_mark {
	u32 merge;
	u32 stamp;
};

static __always_inline struct tap_assign_mark *tap_assign_mark_of(int64_t *value)
{
	return (struct tap_assign_mark *)(value + 1);
}

static __always_inline bool tap_shard_trylock(struct tap_shard *s)
{
	return !test_and_set_bit_lock(TAP_SHARD_HELD, &s->state);
}

/* Released, dirty or not as it was. */
static __always_inline void tap_shard_unlock(struct tap_shard *s)
{
	clear_bit_unlock(TAP_SHARD_HELD, &s->state);
}

/* A merge's: the holder is an update on another CPU, a lookup and an add from its end. */
static void tap_shard_lock(struct tap_shard *s)
{
	while ((READ_ONCE(s->state) & BIT(TAP_SHARD_HELD)) || !tap_shard_trylock(s))
		cpu_relax();
}

/* The budget of a shard just merged: an even share of the room the global map has left. */
static int tap_shard_share(const struct tap_smap *sm, const struct tap_shard *s)
{
	const struct tap_map *g = sm->global;
	int room = g->capacity - g->count - g->reserved;
	int share = (g->capacity - g->count) / sm->nshards;

	return max(0, min3(room, share, s->map.capacity));
}

static int tap_stamp_compare(void *priv, const struct list_head *la, const struct list_head *lb)
{
	const struct tap_map_entry *a = list_entry(la, struct tap_map_entry, order);
	const struct tap_map_entry *b = list_entry(lb, struct tap_map_entry, order);

	return (s32)(a->stamp - b->stamp) > 0;
}

static __always_inline int64_t *tap_shard_value(struct tap_map *m, struct tap_map_entry *e)
{
	return tap_map_value(m, e);
}

/* Whether entry e of a shard holds nothing for the global map: a key it has, with nothing
 * added (or assigned) since the last merge. */
static bool tap_shard_idle(struct tap_map *m, struct tap_map_entry *e)
{
	int64_t *value = tap_shard_value(m, e);

	if (e->stamp)
		return false;
	return m->desc->shard_assigns ? !tap_assign_mark_of(value)->stamp : !*value;
}

/* A shard's assignment into the global map's value `to`: the last one made wins, of those
 * this merge (`merge`) brings from the shards; any of them follows what `to` held before. */
static void tap_assign_into(u32 merge, int64_t *to, int64_t *value)
{
	struct tap_assign_mark *tm = tap_assign_mark_of(to), *vm = tap_assign_mark_of(value);

	if (vm->stamp && (tm->merge != merge || (s32)(vm->stamp - tm->stamp) > 0)) {
		*to = *value;
		tm->merge = merge;
		tm->stamp = vm->stamp;
	}
	vm->stamp = 0;
}

/* Shard s's values added (or assigned) into the global map and its new keys inserted
 * there; s keeps its keys (stamp 0: known to the global map) with value 0, so that the
 * next updates of them need no insertion. Both locks held. */
static void tap_shard_add_into(struct tap_smap *sm, struct tap_shard *s)
{
	struct tap_map *g = sm->global;
	union tap_key keys[TAP_MAX_KEYS];
	struct tap_map_entry *e, *ge;
	int64_t *value, *to;

	list_for_each_entry(e, &s->map.used, order) {
		value = tap_shard_value(&s->map, e);
		if (tap_shard_idle(&s->map, e))
			continue;
		tap_map_entry_keys(&s->map, e, keys);
		ge = tap_map_find_hashed(g, keys, e->hash);
		if (!ge) {
			if (WARN_ON_ONCE(list_empty(&g->free)))
				continue;
			ge = tap_map_insert_free(g, keys, e->hash);
			ge->stamp = e->stamp;
		}
		to = tap_map_value(g, ge);
		if (g->desc->shard_assigns)
			tap_assign_into(sm->merges, to, value);
		else
			*to = (int64_t)((u64)*to + (u64)*value);
		*value = 0;
		e->stamp = 0;
	}
	s->fresh = 0;
}

/* Shard s merged (when it was updated since its last merge), and given `budget` (-1: a
 * share); the global's write lock held. */
static void tap_shard_merge(struct tap_smap *sm, struct tap_shard *s, int budget)
{
	struct tap_map *g = sm->global;

	tap_shard_lock(s);
	g->reserved -= s->budget;	/* its new keys take the room it held */
	if (s->state & TAP_SHARD_DIRTY)
		tap_shard_add_into(sm, s);
	s->budget = budget < 0 ? tap_shard_share(sm, s) : budget;
	g->reserved += s->budget;
	smp_store_release(&s->state, 0);	/* free, and clean */
}

/* Every shard merged (each given `budget`, -1: a share), the keys new to the global map in
 * the order they were first inserted; the global's write lock held. */
static void tap_smap_merge_budget(struct tap_smap *sm, int budget)
{
	struct tap_map *g = sm->global;
	struct list_head *last = g->used.prev;
	LIST_HEAD(before);
	int i;

	sm->merges++;
	for (i = 0; i < sm->nshards; i++)
		tap_shard_merge(sm, &sm->shards[i], budget);
	if (g->used.prev == last)
		return;
	list_cut_position(&before, &g->used, last);
	list_sort(NULL, &g->used, tap_stamp_compare);
	list_splice(&before, &g->used);
}

static void tap_smap_merge(struct tap_smap *sm)
{
	tap_smap_merge_budget(sm, -1);
}

/* tap_map_insert() on the global map, when the room it needs is the shards': their budgets
 * taken back, so that its count is that of its distinct keys. The next merges share out
 * the room again. */
static void tap_smap_reclaim(struct tap_map *g)
{
	tap_smap_merge_budget(g->shards, 0);
}

/* An entry removed from the global map (delete), or all of them (e NULL): the shards forget
 * it, and what they added to it since the merge, which came after the removal's probe took
 * the lock (the removal is taken to follow it). */
static void tap_smap_forget(struct tap_map *g, struct tap_map_entry *ge)
{
	struct tap_smap *sm = g->shards;
	union tap_key keys[TAP_MAX_KEYS];
	struct tap_map_entry *e;
	struct tap_shard *s;
	int i;

	if (ge)
		tap_map_entry_keys(g, ge, keys);
	for (i = 0; i < sm->nshards; i++) {
		s = &sm->shards[i];
		tap_shard_lock(s);
		if (!ge) {
			tap_map_clear(&s->map);
			s->fresh = 0;
		} else if ((e = tap_map_find_hashed(&s->map, keys, ge->hash))) {
			s->fresh -= e->stamp != 0;
			tap_map_unlink(&s->map, e);
		}
		tap_shard_unlock(s);
	}
}

static int tap_smap_init(struct tap_smap *sm, struct tap_map *global, struct tap_lock *lock)
{
	int i, size;

	sm->global = global;
	sm->lock = lock;
	sm->nshards = 2 * nr_cpu_ids;
	sm->shards = kvcalloc(sm->nshards, sizeof(*sm->shards), GFP_KERNEL);
	if (!sm->shards)
		return -ENOMEM;
	size = min(global->capacity, TAP_SHARD_ENTRIES);
	for (i = 0; i < sm->nshards; i++)
		if (tap_map_init_capacity(&sm->shards[i].map, global->desc, size))
			return -ENOMEM;
	global->shards = sm;
	global->reclaim = tap_smap_reclaim;
	global->forget = tap_smap_forget;
	for (i = 0; i < sm->nshards; i++) {
		sm->shards[i].budget = tap_shard_share(sm, &sm->shards[i]);
		global->reserved += sm->shards[i].budget;
	}
	return 0;
}

static void tap_smap_free(struct tap_smap *sm)
{
	int i;

	if (!sm->shards)
		return;
	for (i = 0; i < sm->nshards; i++)
		tap_map_free(&sm->shards[i].map);
	kvfree(sm->shards);
	sm->shards = NULL;
}

/* A new key's stamp: never 0, which marks the keys the global map has. */
static __always_inline u32 tap_smap_stamp(struct tap_smap *sm)
{
	u32 stamp = (u32)atomic_inc_return(&sm->clock);

	return stamp ? stamp : (u32)atomic_inc_return(&sm->clock);
}

/* Room in a full shard: a key it knows the global map has and holds nothing for, the one
 * inserted first. False when there is none. */
static noinline bool tap_shard_evict(struct tap_shard *s)
{
	struct tap_map_entry *e;

	list_for_each_entry(e, &s->map.used, order)
		if (tap_shard_idle(&s->map, e)) {
			tap_map_unlink(&s->map, e);
			return true;
		}
	return false;
}

/* The slow path's: the CPU's first shard learns the key, known to the global map now, so
 * that its next updates take the fast path (a full array's keys too). Only a merge, which
 * needs the global's lock (held), could hold the shard. */
static void tap_shard_learn(struct tap_shard *s, const union tap_key *keys, u32 hash)
{
	struct tap_map_entry *e;

	tap_shard_lock(s);
	if (!tap_map_find_hashed(&s->map, keys, hash) &&
	    (!list_empty(&s->map.free) || tap_shard_evict(s))) {
		e = tap_map_insert_free(&s->map, keys, hash);
		e->stamp = 0;
	}
	tap_shard_unlock(s);
}

/* What an update holds until tap_smap_done(): a shard, or (NULL: the slow path) the
 * global's lock. */
struct tap_smap_hold {
	struct tap_shard *shard;
};

/* The slow path of an update whose shard has no budget left: the global's lock, every
 * shard merged, the update's slot in the global map. NULL (nothing held) after an error,
 * or when the lock could not be had: the hit is then skipped (counted as a lock timeout). */
static noinline int64_t *tap_smap_slot_locked(struct tap_context *c, struct tap_smap *sm,
					      const union tap_key *keys, u32 hash,
					      const char *location)
{
	struct tap_lock_use use = { sm->lock, true };
	void *slot;

	if (!tap_lock_all(&use, 1)) {
		/* Skipped (counted): the hit ends here, as abort() ends it, unreported. */
		c->last_error = tap_abort_request;
		return NULL;
	}
	tap_smap_merge(sm);
	slot = tap_map_slot(c, sm->global, keys, location);
	if (!slot) {
		tap_unlock(&use);
		return NULL;
	}
#ifndef TAP_SHARDS_OFF
	tap_shard_learn(&sm->shards[2 * smp_processor_id()], keys, hash);
#endif
	return slot;
}

/* The value of a[keys] for an update on this CPU (probe context: preemption is off), in a
 * shard of the CPU or, on the slow path, in the global map; tap_smap_done() after the add.
 * NULL, with nothing held, when the hit ends here (an error, or a skip). Inlined where the
 * generated code passes the array's description, a constant. */
static __always_inline int64_t *tap_smap_slot_desc(struct tap_context *c, struct tap_smap *sm,
						   const struct tap_map_desc *d,
						   const union tap_key *keys,
						   struct tap_smap_hold *hold,
						   const char *location)
{
	struct tap_shard *pair = &sm->shards[2 * smp_processor_id()], *s;
	struct tap_map_entry *e;
	u32 hash = tap_map_hash_desc(d, keys);
	unsigned int i = 0;

#ifdef TAP_SHARDS_OFF
	/* For comparison (make bench-shards): every update of an array under its lock. */
	hold->shard = NULL;
	return tap_smap_slot_locked(c, sm, keys, hash, location);
#endif
	/* A merge holds at most one of the two, for the time it takes to empty it. */
	while (!tap_shard_trylock(s = &pair[i++ & 1]))
		cpu_relax();
	e = tap_map_find_desc(&s->map, d, keys, hash);
	if (unlikely(!e)) {
		if (unlikely(s->fresh >= s->budget ||
			     (list_empty(&s->map.free) && !tap_shard_evict(s)))) {
			tap_shard_unlock(s);
			hold->shard = NULL;
			return tap_smap_slot_locked(c, sm, keys, hash, location);
		}
		e = tap_map_insert_free(&s->map, keys, hash);
		e->stamp = tap_smap_stamp(sm);
		s->fresh++;
	}
	hold->shard = s;
	return (int64_t *)(e->data + tap_desc_value_offset(d));
}

/* Whether the update ends here (tap_smap_slot_desc() gave no slot): tested on the shard
 * first, which the fast path has and tap_smap_done() tests again, so that the compiler
 * makes one test of the two. */
static __always_inline bool tap_smap_failed(const struct tap_smap_hold *hold, const int64_t *part)
{
	return !hold->shard && !part;
}

/* a[k] = v: the assignment's stamp, in a shard (the global map's slot needs none). */
static __always_inline void tap_smap_assigned(struct tap_smap *sm, struct tap_smap_hold *hold,
					      int64_t *value)
{
	if (likely(hold->shard))
		tap_assign_mark_of(value)->stamp = tap_smap_stamp(sm);
}

/* The update's end: its shard released, dirty (one store), or the global's lock. */
static __always_inline void tap_smap_done(struct tap_smap *sm, struct tap_smap_hold *hold)
{
	if (likely(hold->shard)) {
		smp_store_release(&hold->shard->state, TAP_SHARD_DIRTY);
	} else {
		struct tap_lock_use use = { sm->lock, true };

		tap_unlock(&use);
	}
}

#endif
