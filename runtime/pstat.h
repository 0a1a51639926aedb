/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics globals kept per CPU. `s <<< v` and `a[k] <<< v` add to the aggregate of the
 * CPU the probe hit runs on (a scalar's per-CPU part, without any lock; one of that CPU's
 * two maps of an array, held by a bit of its own for the add: below): any number of CPUs add
 * at once, and none touches another's data. Reading one (@count and the others, a histogram, foreach, `in`)
 * takes the lock for writing and gathers the CPUs' parts into one aggregate: counts, sums
 * and buckets added, the least minimum and the greatest maximum.
 *
 * @variance of parts from several CPUs: each part's spread around the common average
 * (sum/count, scaled) added to its own sum of squares, over count - 1; with one part, which
 * is how stap's own single-CPU tests see it, the part as it is (histogram.h does the rest).
 *
 * A scalar's gathered aggregate is its tap_g_NAME; an array's, its map tap_m_NAME (listed
 * for foreach) or, for one entry read, the context's scratch aggregate.
 */
#ifndef TAP_PSTAT_H
#define TAP_PSTAT_H

#include <linux/percpu.h>
#include <linux/slab.h>

#include "context.h"
#include "maps.h"

/* What an aggregate keeps after its tap_stat (stat.h). */
struct tap_stat_layout {
	bool variance;
	int shift;
	int buckets;	/* 0: no histogram */
};

static __always_inline size_t tap_stat_layout_size(const struct tap_stat_layout *l)
{
	return sizeof(struct tap_stat) + (l->variance ? sizeof(struct tap_stat_variance) : 0) +
	       (size_t)l->buckets * sizeof(int64_t);
}

static __always_inline struct tap_stat_layout tap_map_stat_layout(const struct tap_map_desc *d)
{
	return (struct tap_stat_layout){ d->stat_variance, d->variance_shift,
					 d->hist ? d->hist->buckets : 0 };
}

/* One gathering: the aggregate it fills, and what it saw of the parts so far. */
struct tap_gather {
	struct tap_stat *agg;
	const struct tap_stat_layout *layout;
	const struct tap_stat *only;	/* the part with values, while there is one */
	int parts;
	int64_t avg_s, total;
};

static void tap_gather_start(struct tap_gather *g, struct tap_stat *agg,
			     const struct tap_stat_layout *layout)
{
	memset(agg, 0, tap_stat_layout_size(layout));
	*g = (struct tap_gather){ .agg = agg, .layout = layout };
}

/* First round: counts, sums, extremes and buckets. */
static void tap_gather_add(struct tap_gather *g, const struct tap_stat *part)
{
	struct tap_stat *agg = g->agg;
	int i;

	if (!part || !part->count)
		return;
	if (!agg->count || part->min < agg->min)
		agg->min = part->min;
	if (!agg->count || part->max > agg->max)
		agg->max = part->max;
	agg->count += part->count;
	agg->sum += part->sum;
	if (g->layout->buckets) {
		int64_t *to = tap_stat_buckets_of(agg, g->layout->variance);
		const int64_t *from = tap_stat_buckets_of((struct tap_stat *)part,
							  g->layout->variance);

		for (i = 0; i < g->layout->buckets; i++)
			to[i] += from[i];
	}
	g->only = part;
	g->parts++;
}

/* Whether a second round, through tap_gather_spread(), is needed. */
static bool tap_gather_spreads(struct tap_gather *g)
{
	if (!g->layout->variance || g->parts < 2)
		return false;
	g->avg_s = div64_s64(tap_scaled(g->agg->sum, g->layout->shift), g->agg->count);
	return true;
}

static void tap_gather_spread(struct tap_gather *g, const struct tap_stat *part)
{
	const struct tap_stat_variance *v;
	int64_t d;

	if (!part || !part->count)
		return;
	v = tap_stat_variance_of((struct tap_stat *)part);
	d = v->avg_s - g->avg_s;
	g->total += (int64_t)((u64)part->count * (u64)d * (u64)d +
			      (u64)(part->count - 1) * (u64)v->variance_s);
}

static struct tap_stat *tap_gather_finish(struct tap_gather *g)
{
	struct tap_stat_variance *v;

	if (g->parts == 1) {
		memcpy(g->agg, g->only, tap_stat_layout_size(g->layout));
	} else if (g->parts > 1 && g->layout->variance) {
		v = tap_stat_variance_of(g->agg);
		v->avg_s = g->avg_s;
		v->m2 = g->total;
		v->variance_s = div64_s64(g->total, g->agg->count - 1);
	}
	return g->agg;
}

/* ---- A statistics scalar: one part per CPU, fed without a lock ---- */

/*
 * Only its own CPU writes a part, from probe context (which holds that CPU's context, so
 * no other add runs there): `seq` is odd while an add is under way, and a reader on another
 * CPU copies the part until it sees the same even `seq` before and after. `delete` (under the
 * global's write lock, like every read) moves the scalar to a new generation instead of
 * touching the parts: a part of an older one counts as empty, and is reset by its CPU's
 * next add.
 */
struct tap_pstat_part {
	u32 seq, gen;
	int64_t stat[];		/* the aggregate: a tap_stat and its extras */
};

struct tap_pstat {
	struct tap_pstat_part __percpu *parts;
	const struct tap_stat_layout *layout;
	u32 gen;
};

static int tap_pstat_init(struct tap_pstat *ps)
{
	ps->parts = (struct tap_pstat_part __percpu *)
		__alloc_percpu(sizeof(struct tap_pstat_part) + tap_stat_layout_size(ps->layout),
			       __alignof__(int64_t));
	return ps->parts ? 0 : -ENOMEM;
}

static void tap_pstat_free(struct tap_pstat *ps)
{
	free_percpu(ps->parts);
}

/* part->seq + 1: one instruction on x86 (only this CPU writes it, so no lock prefix), kept in
 * its place by the compiler barriers around it. */
static __always_inline void tap_pstat_seq_inc(u32 *seq)
{
#ifdef CONFIG_X86
	asm volatile("incl %0" : "+m"(*seq));
#else
	WRITE_ONCE(*seq, *seq + 1);
#endif
}

/* s <<< v, on this CPU: the aggregate to add to, until tap_pstat_end_add(). */
static __always_inline struct tap_stat *tap_pstat_begin_add(struct tap_pstat *ps)
{
	struct tap_pstat_part *part = this_cpu_ptr(ps->parts);
	u32 gen = READ_ONCE(ps->gen);

	tap_pstat_seq_inc(&part->seq);
	smp_wmb();
	if (unlikely(part->gen != gen)) {
		memset(part->stat, 0, tap_stat_layout_size(ps->layout));
		part->gen = gen;
	}
	return (struct tap_stat *)part->stat;
}

/* The end of the add to `stat`, which tap_pstat_begin_add() gave. */
static __always_inline void tap_pstat_end_add(struct tap_stat *stat)
{
	struct tap_pstat_part *part = container_of((int64_t *)stat, struct tap_pstat_part,
						   stat[0]);

	smp_wmb();
	tap_pstat_seq_inc(&part->seq);
}

/*
 * s <<< v on this CPU, for a scalar that only begin, end and error probes read and nothing
 * deletes (the translator's pstat_unwatched): no reader runs while probes add, so the part
 * needs neither `seq` nor a look at its generation (never moved). The readers are the same.
 */
static __always_inline struct tap_stat *tap_pstat_begin_add_unwatched(struct tap_pstat *ps)
{
	return (struct tap_stat *)this_cpu_ptr(ps->parts)->stat;
}

static __always_inline void tap_pstat_end_add_unwatched(struct tap_stat *stat)
{
}

/* A consistent copy of `cpu`'s part into `copy`, empty when it is of an older generation;
 * returns the `seq` it was copied at. */
static u32 tap_pstat_read_part(const struct tap_pstat *ps, int cpu, struct tap_stat *copy)
{
	struct tap_pstat_part *part = per_cpu_ptr(ps->parts, cpu);
	size_t size = tap_stat_layout_size(ps->layout);
	u32 seq, gen;

	for (;;) {
		seq = READ_ONCE(part->seq);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		smp_rmb();
		memcpy(copy, part->stat, size);
		gen = READ_ONCE(part->gen);
		smp_rmb();
		if (READ_ONCE(part->seq) == seq)
			break;
	}
	if (gen != ps->gen)
		memset(copy, 0, size);
	return seq;
}

/* One gathering of the parts into `agg`; false when a part changed between its two rounds. */
static bool tap_pstat_gather_once(struct tap_context *c, struct tap_stat *agg,
				  const struct tap_pstat *ps)
{
	struct tap_stat *copy = (struct tap_stat *)c->stat_scratch;
	struct tap_gather g;
	u32 seqs = 0;
	int cpu, only = -1;

	tap_gather_start(&g, agg, ps->layout);
	for_each_possible_cpu(cpu) {
		seqs += tap_pstat_read_part(ps, cpu, copy);
		tap_gather_add(&g, copy);
		if (copy->count)
			only = cpu;
	}
	if (g.parts == 1) {
		/* The one part as it is (tap_gather_finish() copies it), read again whole. */
		tap_pstat_read_part(ps, only, copy);
		g.only = copy;
	} else if (tap_gather_spreads(&g)) {
		for_each_possible_cpu(cpu) {
			seqs -= tap_pstat_read_part(ps, cpu, copy);
			tap_gather_spread(&g, copy);
		}
		if (seqs)
			return false;
	}
	tap_gather_finish(&g);
	return true;
}

/* @count(s) and the others: the parts gathered into `agg` (under the global's write lock). A
 * gathering that raced with adds on other CPUs is done again, a few times at most. */
static struct tap_stat *tap_pstat_gather(struct tap_context *c, struct tap_stat *agg,
					 const struct tap_pstat *ps)
{
	int tries = 0;

	while (!tap_pstat_gather_once(c, agg, ps) && ++tries < 4)
		;
	return agg;
}

/* delete s */
static void tap_pstat_clear(struct tap_stat *agg, struct tap_pstat *ps)
{
	WRITE_ONCE(ps->gen, ps->gen + 1);
	memset(agg, 0, tap_stat_layout_size(ps->layout));
}

/* ---- An array of statistics: two maps per CPU ---- */

/*
 * `a[k] <<< v` adds to a map of its CPU, holding that map's bit for the lookup and the add
 * alone; a reader (under the global's write lock: readers come one at a time) holds one
 * map's bit at a time while it reads that map. The first map of a CPU is the one its adds
 * use; while a reader holds it, they use the second (smaller, TAP_PMAP_SPARE entries at
 * most), so that an add waits for a reader only when the second has no room for a key it
 * lacks. Every map is one more part to gather: with nobody reading, one CPU's adds all go
 * to its first map, one part, as before. The maps hold the whole array's keys: the first
 * map of a CPU is full (MAXMAPENTRIES, or the declared size) when stap's map of that CPU
 * would be, and an add of a key it lacks then errs as stap's.
 *
 * An array whose @variance is taken keeps the global's read lock around its adds (its
 * gathering reads each part twice, which must not change in between); the others need no
 * lock (src/translate/locks.c).
 */
#ifndef TAP_PMAP_SPARE
#define TAP_PMAP_SPARE 128
#endif

struct tap_pmap_part {
	unsigned long state;	/* bit 0: held */
	struct tap_map map;
} ____cacheline_aligned;

static __always_inline bool tap_pmap_trylock(struct tap_pmap_part *p)
{
	return !test_and_set_bit_lock(0, &p->state);
}

static __always_inline void tap_pmap_unlock(struct tap_pmap_part *p)
{
	clear_bit_unlock(0, &p->state);
}

/* A reader's: the holder is an add on the part's CPU, a lookup and an add from its end. */
static struct tap_map *tap_pmap_hold(struct tap_pmap_part *p)
{
	while ((READ_ONCE(p->state) & 1) || !tap_pmap_trylock(p))
		cpu_relax();
	return &p->map;
}

/* The parts, two per possible CPU. */
#define tap_pmap_for_each(i) \
	for ((i) = 0; (i) < 2 * nr_cpu_ids; (i)++) \
		if (cpu_possible((i) / 2))

static int tap_pmap_init(struct tap_pmap_part **pmap, const struct tap_map_desc *desc)
{
	int i, capacity = desc->max_entries > 0 ? desc->max_entries : MAXMAPENTRIES;

	*pmap = kvcalloc(2 * nr_cpu_ids, sizeof(**pmap), GFP_KERNEL);
	if (!*pmap)
		return -ENOMEM;
	tap_pmap_for_each(i)
		if (tap_map_init_capacity(&(*pmap)[i].map, desc,
					  i & 1 ? min(capacity, TAP_PMAP_SPARE) : capacity))
			return -ENOMEM;
	return 0;
}

static void tap_pmap_free(struct tap_pmap_part *pmap)
{
	int i;

	if (!pmap)
		return;
	tap_pmap_for_each(i)
		tap_map_free(&pmap[i].map);
	kvfree(pmap);
}

/* The add's slot when a reader holds the CPU's first map: the second's, if it has the key,
 * or room for it while the first is not full (a key new to a full first map is its error,
 * as in stap), else the first's once the reader is done with it. */
static noinline void *tap_pmap_slot_spare(struct tap_context *c, struct tap_pmap_part *first,
					  const union tap_key *keys,
					  struct tap_pmap_part **held, const char *location)
{
	struct tap_pmap_part *p;
	void *slot;

	for (;;) {
		p = first + 1;
		if (tap_pmap_trylock(p)) {
			if (tap_map_find(&p->map, keys) ||
			    (!list_empty(&p->map.free) &&
			     READ_ONCE(first->map.count) < first->map.capacity))
				break;
			tap_pmap_unlock(p);
		}
		p = first;
		if (tap_pmap_trylock(p))
			break;
		cpu_relax();
	}
	slot = tap_map_slot(c, &p->map, keys, location);
	if (!slot)
		tap_pmap_unlock(p);
	*held = p;
	return slot;
}

/* a[keys] <<< v on this CPU (probe context: preemption is off): the aggregate to add to,
 * its map held until tap_pmap_done(); NULL, nothing held, after an error (a full map). */
static __always_inline struct tap_stat *tap_pmap_slot_desc(struct tap_context *c,
							   struct tap_pmap_part *pmap,
							   const struct tap_map_desc *d,
							   const union tap_key *keys,
							   struct tap_pmap_part **held,
							   const char *location)
{
	struct tap_pmap_part *p = &pmap[2 * smp_processor_id()];
	void *slot;

	if (unlikely(!tap_pmap_trylock(p)))
		return tap_pmap_slot_spare(c, p, keys, held, location);
	slot = tap_map_slot_desc(c, &p->map, d, keys, location);
	if (unlikely(!slot))
		tap_pmap_unlock(p);
	*held = p;
	return slot;
}

static __always_inline void tap_pmap_done(struct tap_pmap_part *held)
{
	tap_pmap_unlock(held);
}

/* The parts of a[keys] gathered into `agg`. */
static struct tap_stat *tap_pmap_gather_into(struct tap_stat *agg, struct tap_pmap_part *pmap,
					     const union tap_key *keys)
{
	struct tap_stat_layout l = tap_map_stat_layout(pmap[0].map.desc);
	u32 hash = tap_map_hash(&pmap[0].map, keys);	/* every map hashes alike */
	struct tap_map_entry *e;
	struct tap_map *m;
	struct tap_gather g;
	int i, only = -1;

	tap_gather_start(&g, agg, &l);
	tap_pmap_for_each(i) {
		m = tap_pmap_hold(&pmap[i]);
		e = tap_map_find_hashed(m, keys, hash);
		if (e && ((struct tap_stat *)tap_map_value(m, e))->count)
			only = i;
		tap_gather_add(&g, e ? tap_map_value(m, e) : NULL);
		tap_pmap_unlock(&pmap[i]);
	}
	if (g.parts == 1) {
		/* The one part as it is, copied whole while its map is held (adds only add:
		 * the entry is still there). */
		m = tap_pmap_hold(&pmap[only]);
		memcpy(agg, tap_map_value(m, tap_map_find_hashed(m, keys, hash)),
		       tap_stat_layout_size(&l));
		tap_pmap_unlock(&pmap[only]);
		return agg;
	}
	if (tap_gather_spreads(&g))
		tap_pmap_for_each(i) {
			m = tap_pmap_hold(&pmap[i]);
			e = tap_map_find_hashed(m, keys, hash);
			tap_gather_spread(&g, e ? tap_map_value(m, e) : NULL);
			tap_pmap_unlock(&pmap[i]);
		}
	return tap_gather_finish(&g);
}

/* @op(a[keys]) and the like: the entry gathered into the context's scratch aggregate. */
static struct tap_stat *tap_pmap_gather_key(struct tap_context *c, struct tap_pmap_part *pmap,
					    const union tap_key *keys)
{
	return tap_pmap_gather_into((struct tap_stat *)c->stat_scratch, pmap, keys);
}

/* Every entry gathered into `agg`, for foreach: its entries in the order the CPUs' maps
 * list them, CPU after CPU. False, and the array's error, when `agg` is full. */
static bool tap_pmap_gather(struct tap_context *c, struct tap_map *agg, struct tap_pmap_part *pmap,
			    const char *location)
{
	union tap_key keys[TAP_MAX_KEYS];
	struct tap_map_entry *e, *ae;
	struct tap_map *m;
	bool full = false;
	int i;

	tap_map_clear(agg);
	tap_pmap_for_each(i) {
		m = tap_pmap_hold(&pmap[i]);
		list_for_each_entry(e, &m->used, order) {
			tap_map_entry_keys(m, e, keys);
			if (!tap_map_entry(c, agg, keys, location)) {
				full = true;
				break;
			}
		}
		tap_pmap_unlock(&pmap[i]);
		if (full)
			return false;
	}
	list_for_each_entry(ae, &agg->used, order) {
		tap_map_entry_keys(agg, ae, keys);
		tap_pmap_gather_into(tap_map_value(agg, ae), pmap, keys);
	}
	return true;
}

/* [keys] in a, and its slices. */
static bool tap_pmap_any(struct tap_pmap_part *pmap, const union tap_key *keys, u32 wild)
{
	struct tap_map *m;
	bool found;
	int i;

	tap_pmap_for_each(i) {
		m = tap_pmap_hold(&pmap[i]);
		found = wild ? tap_map_slice_any(m, keys, wild) : tap_map_find(m, keys) != NULL;
		tap_pmap_unlock(&pmap[i]);
		if (found)
			return true;
	}
	return false;
}

/* delete a[keys] (a slice when `wild`), or, with `keys` NULL, delete a. */
static void tap_pmap_delete(struct tap_map *agg, struct tap_pmap_part *pmap,
			    const union tap_key *keys, u32 wild)
{
	struct tap_map *m;
	int i;

	tap_pmap_for_each(i) {
		m = tap_pmap_hold(&pmap[i]);
		if (!keys)
			tap_map_clear(m);
		else if (wild)
			tap_map_slice_delete(m, keys, wild);
		else
			tap_map_delete(m, keys);
		tap_pmap_unlock(&pmap[i]);
	}
	tap_map_clear(agg);
}

#endif
