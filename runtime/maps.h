/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Associative arrays: a global `a[k1, k2]` is a tap_map. Its entries come from a pool
 * allocated when the module loads (max_entries of them: `global a[N]`, else MAXMAPENTRIES),
 * chained in hash buckets and listed in insertion order. A full array is an error, or, for
 * `global a%`, gives up its oldest entry.
 *
 * Every entry holds its keys and its value at fixed offsets: a long key or value takes 8
 * bytes, a string MAXSTRINGLEN. Keys are passed as arrays of union tap_key.
 *
 * The caller holds the array's lock (globals.h: a read lock to look entries up, a write
 * lock to change them or to walk them with foreach), so nothing here locks.
 */
#ifndef TAP_MAPS_H
#define TAP_MAPS_H

#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/list_sort.h>
#include <linux/stringhash.h>
#include <linux/vmalloc.h>

#include "histogram.h"
#include "values.h"

#define TAP_MAX_KEYS 32

static __always_inline void tap_stat_add(struct tap_stat *st, int64_t value)
{
	if (!st->count || value < st->min)
		st->min = value;
	if (!st->count || value > st->max)
		st->max = value;
	st->count++;
	st->sum += value;
}

/* @count(s) and @sum(s) of an empty aggregate are 0; @min, @max and @avg an error. */
static int64_t tap_stat_op(struct tap_context *c, const struct tap_stat *st, char op,
			   const char *location)
{
	if (op == 'c')
		return st->count;
	if (op == 's')
		return st->sum;
	if (!st->count) {
		tap_set_error(c, "empty aggregate", location);
		return 0;
	}
	switch (op) {
	case 'n': return st->min;
	case 'x': return st->max;
	default: return div64_s64(st->sum, st->count);
	}
}

union tap_key {
	int64_t l;
	const char *s;
};

struct tap_map_desc {
	int nkeys;
	bool string_key[TAP_MAX_KEYS];
	bool string_value;
	bool stat_value;	/* an array of aggregates: a[k] <<< v */
	bool stat_variance;	/* ... that keeps what @variance needs, */
	int variance_shift;
	const struct tap_hist *hist;	/* ... and a histogram, or NULL */
	int max_entries;	/* 0: MAXMAPENTRIES */
	bool wrap;		/* a%: the oldest entry makes room */
	const char *overflow;	/* the error when it is full (and does not wrap) */
	bool shard_assigns;	/* sharded, its updates a[k] = v: a tap_assign_mark after the value */
};

struct tap_map_entry {
	struct hlist_node chain;
	struct list_head order;	/* insertion order while used, else the free list */
	u32 hash;
	u32 stamp;		/* a sharded array's: when it was first inserted (shards.h) */
	char data[];		/* the keys, then the value */
};

struct tap_map {
	const struct tap_map_desc *desc;
	size_t entry_size;
	size_t key_offset[TAP_MAX_KEYS];
	size_t value_offset;
	unsigned int nbuckets;	/* a power of two */
	struct hlist_head *buckets;
	struct list_head used, free;
	int count, capacity;
	void *pool;
	/* A sharded array's (shards.h): the entries its shards may still add, what gives
	 * them back when an insertion here would need them, and what makes them forget a key
	 * removed here (NULL: every key). */
	int reserved;
	void (*reclaim)(struct tap_map *m);
	void (*forget)(struct tap_map *m, struct tap_map_entry *e);
	void *shards;
};

static __always_inline size_t tap_slot_size(bool is_string)
{
	return is_string ? MAXSTRINGLEN : sizeof(int64_t);
}

/* The bytes an aggregate of the array takes: stat.h has the layout. */
static size_t tap_stat_size(const struct tap_map_desc *desc)
{
	return sizeof(struct tap_stat) +
	       (desc->stat_variance ? sizeof(struct tap_stat_variance) : 0) +
	       (desc->hist ? desc->hist->buckets * sizeof(int64_t) : 0);
}

static int tap_map_init_capacity(struct tap_map *m, const struct tap_map_desc *desc,
				  int capacity)
{
	size_t offset = 0;
	int i;

	m->desc = desc;
	for (i = 0; i < desc->nkeys; i++) {
		m->key_offset[i] = offset;
		offset += tap_slot_size(desc->string_key[i]);
	}
	m->value_offset = offset;
	offset += desc->stat_value ? tap_stat_size(desc) : tap_slot_size(desc->string_value);
	if (desc->shard_assigns)
		offset += 2 * sizeof(u32);	/* shards.h: struct tap_assign_mark */
	m->entry_size = ALIGN(sizeof(struct tap_map_entry) + offset, 8);
	m->capacity = capacity;
	m->nbuckets = roundup_pow_of_two(max(m->capacity, 16));
	m->buckets = kvcalloc(m->nbuckets, sizeof(*m->buckets), GFP_KERNEL);
	m->pool = kvcalloc(m->capacity, m->entry_size, GFP_KERNEL);
	if (!m->buckets || !m->pool)
		return -ENOMEM;
	INIT_LIST_HEAD(&m->used);
	INIT_LIST_HEAD(&m->free);
	for (i = 0; i < m->capacity; i++) {
		struct tap_map_entry *e = m->pool + (size_t)i * m->entry_size;

		list_add_tail(&e->order, &m->free);
	}
	return 0;
}

static int tap_map_init(struct tap_map *m, const struct tap_map_desc *desc)
{
	return tap_map_init_capacity(m, desc,
				     desc->max_entries > 0 ? desc->max_entries : MAXMAPENTRIES);
}

static void tap_map_free(struct tap_map *m)
{
	kvfree(m->buckets);
	kvfree(m->pool);
	m->buckets = NULL;
	m->pool = NULL;
}

static __always_inline void *tap_map_key_slot(const struct tap_map *m, struct tap_map_entry *e,
					      int i)
{
	return e->data + m->key_offset[i];
}

static __always_inline void *tap_map_value(const struct tap_map *m, struct tap_map_entry *e)
{
	return e->data + m->value_offset;
}

/*
 * One key's part of the hash and of the comparison, and the loops over an array's keys
 * that use them: __always_inline, so that where the generated code passes the array's
 * description, a constant, the loops unroll and the offsets fold (the *_desc functions
 * below); the functions for any array call them with m->desc.
 */
/* A string key's hash: the kernel's word-at-a-time string hash (its length and hash in one
 * pass), but for a string as long as a slot holds (or longer: a slot keeps its first
 * MAXSTRINGLEN - 1 bytes), whose first MAXSTRINGLEN - 1 bytes are hashed alike. */
static u32 tap_string_hash(const char *s, u32 hash)
{
	u64 hashlen = hashlen_string((void *)(unsigned long)hash, s);

	if (unlikely(hashlen_len(hashlen) >= MAXSTRINGLEN - 1))
		return jhash(s, MAXSTRINGLEN - 1, hash);
	return hashlen_hash(hashlen);
}

static __always_inline u32 tap_key_hash(bool is_string, union tap_key key, u32 hash)
{
	if (is_string)
		return tap_string_hash(key.s, hash);
	return jhash_2words((u32)key.l, (u32)(key.l >> 32), hash);
}

/* strncmp(slot, key, MAXSTRINGLEN - 1) == 0, a word at a time where the kernel reads names
 * so (TAP_STRING_WORDS, values.h); `slot` is a key's slot, MAXSTRINGLEN bytes. */

static bool tap_string_equal(const char *slot, const char *key)
{
#ifdef TAP_STRING_WORDS
	const struct word_at_a_time constants = WORD_AT_A_TIME_CONSTANTS;
	unsigned long a, b, bits;
	size_t i;

	for (i = 0; i + sizeof(long) <= MAXSTRINGLEN - 1; i += sizeof(long)) {
		memcpy(&a, slot + i, sizeof(a));
		b = load_unaligned_zeropad(key + i);
		if (has_zero(b, &bits, &constants)) {
			bits = create_zero_mask(prep_zero_mask(b, bits, &constants));
			/* The bytes before the key's NUL, and the NUL. */
			return !((a ^ b) & ((zero_bytemask(bits) << 8) | 0xff));
		}
		if (a != b)
			return false;
	}
	return strncmp(slot + i, key + i, MAXSTRINGLEN - 1 - i) == 0;
#else
	return strncmp(slot, key, MAXSTRINGLEN - 1) == 0;
#endif
}

/* Whether the key stored at `slot` is `key`. */
static __always_inline bool tap_key_equal(bool is_string, const void *slot, union tap_key key)
{
	if (is_string)
		return tap_string_equal(slot, key.s);
	return *(const int64_t *)slot == key.l;
}

static __always_inline u32 tap_map_hash_desc(const struct tap_map_desc *d,
					     const union tap_key *keys)
{
	u32 hash = 0;
	int i;

	for (i = 0; i < d->nkeys; i++)
		hash = tap_key_hash(d->string_key[i], keys[i], hash);
	return hash;
}

/* Whether the keys of e equal `keys`, but for key i when `wild` has bit i set. */
static __always_inline bool tap_map_keys_match(const struct tap_map_desc *d,
					       const struct tap_map_entry *e,
					       const union tap_key *keys, u32 wild)
{
	const char *slot = e->data;
	int i;

	for (i = 0; i < d->nkeys; slot += tap_slot_size(d->string_key[i]), i++)
		if (!(wild & (1u << i)) && !tap_key_equal(d->string_key[i], slot, keys[i]))
			return false;
	return true;
}

/* The entry of `keys`, whose hash is `hash`, in the array m described by d; NULL if none. */
static __always_inline struct tap_map_entry *
tap_map_find_desc(const struct tap_map *m, const struct tap_map_desc *d, const union tap_key *keys,
		  u32 hash)
{
	struct tap_map_entry *e;

	hlist_for_each_entry(e, &m->buckets[hash & (m->nbuckets - 1)], chain)
		if (e->hash == hash && tap_map_keys_match(d, e, keys, 0))
			return e;
	return NULL;
}

static u32 tap_map_hash(const struct tap_map *m, const union tap_key *keys)
{
	return tap_map_hash_desc(m->desc, keys);
}

static struct tap_map_entry *tap_map_find_hashed(const struct tap_map *m,
						 const union tap_key *keys, u32 hash)
{
	return tap_map_find_desc(m, m->desc, keys, hash);
}

static struct tap_map_entry *tap_map_find(const struct tap_map *m, const union tap_key *keys)
{
	return tap_map_find_hashed(m, keys, tap_map_hash(m, keys));
}

static void tap_map_unlink(struct tap_map *m, struct tap_map_entry *e)
{
	hlist_del(&e->chain);
	list_move(&e->order, &m->free);
	m->count--;
}

static void tap_map_remove(struct tap_map *m, struct tap_map_entry *e)
{
	/* A sharded array's shards keep the keys they know it has: they forget this one. */
	if (unlikely(m->shards))
		m->forget(m, e);
	tap_map_unlink(m, e);
}

/* A new entry for `keys`, whose hash is `hash`, its value zero or ""; NULL and an error
 * when the array is full. */
/* An entry's keys, as a lookup takes them. */
static void tap_map_entry_keys(const struct tap_map *m, struct tap_map_entry *e,
			       union tap_key *keys)
{
	int i;

	for (i = 0; i < m->desc->nkeys; i++) {
		void *slot = tap_map_key_slot(m, e, i);

		if (m->desc->string_key[i])
			keys[i].s = slot;
		else
			keys[i].l = *(int64_t *)slot;
	}
}

/* A new entry for `keys` from the free list, which has one. */
static struct tap_map_entry *tap_map_insert_free(struct tap_map *m, const union tap_key *keys,
						 u32 hash)
{
	struct tap_map_entry *e;
	int i;

	e = list_first_entry(&m->free, struct tap_map_entry, order);
	list_move_tail(&e->order, &m->used);
	memset(e->data, 0, m->entry_size - sizeof(*e));
	for (i = 0; i < m->desc->nkeys; i++) {
		void *slot = tap_map_key_slot(m, e, i);

		if (m->desc->string_key[i])
			strscpy(slot, keys[i].s, MAXSTRINGLEN);
		else
			*(int64_t *)slot = keys[i].l;
	}
	e->hash = hash;
	hlist_add_head(&e->chain, &m->buckets[e->hash & (m->nbuckets - 1)]);
	m->count++;
	return e;
}

static struct tap_map_entry *tap_map_insert(struct tap_context *c, struct tap_map *m,
					    const union tap_key *keys, u32 hash,
					    const char *location)
{
	/* A sharded array's shards hold room of it: they give it back when it is needed. */
	if (unlikely(m->reserved) && m->count + m->reserved >= m->capacity) {
		struct tap_map_entry *e;

		m->reclaim(m);
		/* ... which may have brought the key itself. */
		e = tap_map_find_hashed(m, keys, hash);
		if (e)
			return e;
	}
	if (list_empty(&m->free)) {
		if (!m->desc->wrap) {
			tap_set_error(c, m->desc->overflow, location);
			return NULL;
		}
		tap_map_remove(m, list_first_entry(&m->used, struct tap_map_entry, order));
	}
	return tap_map_insert_free(m, keys, hash);
}

/* The entry of `keys`, made (its value zero or "") when there is none; NULL and an error
 * when the array is full. */
static struct tap_map_entry *tap_map_entry(struct tap_context *c, struct tap_map *m,
					   const union tap_key *keys, const char *location)
{
	u32 hash = tap_map_hash(m, keys);	/* once, for the lookup and the insertion */
	struct tap_map_entry *e = tap_map_find_hashed(m, keys, hash);

	return e ? e : tap_map_insert(c, m, keys, hash, location);
}

/* Where a[keys] is stored, made if need be; NULL after an error. */
static void *tap_map_slot(struct tap_context *c, struct tap_map *m, const union tap_key *keys,
			  const char *location)
{
	struct tap_map_entry *e = tap_map_entry(c, m, keys, location);

	return e ? tap_map_value(m, e) : NULL;
}

static int64_t tap_map_get_long(const struct tap_map *m, const union tap_key *keys)
{
	struct tap_map_entry *e = tap_map_find(m, keys);

	return e ? *(int64_t *)tap_map_value(m, e) : 0;
}

/*
 * The same lookups for the probe's hot path, inlined where the generated code passes the
 * array's description, a constant: the loops over its keys unroll and its offsets fold.
 */
static __always_inline size_t tap_desc_value_offset(const struct tap_map_desc *d)
{
	size_t offset = 0;
	int i;

	for (i = 0; i < d->nkeys; i++)
		offset += tap_slot_size(d->string_key[i]);
	return offset;
}

/* tap_map_slot() of the array m described by d. */
static __always_inline void *tap_map_slot_desc(struct tap_context *c, struct tap_map *m,
					       const struct tap_map_desc *d,
					       const union tap_key *keys, const char *location)
{
	u32 hash = tap_map_hash_desc(d, keys);
	struct tap_map_entry *e = tap_map_find_desc(m, d, keys, hash);

	if (unlikely(!e)) {
		e = tap_map_insert(c, m, keys, hash, location);
		if (!e)
			return NULL;
	}
	return e->data + tap_desc_value_offset(d);
}

/* tap_map_get_long() of the array m described by d. */
static __always_inline int64_t tap_map_get_long_desc(const struct tap_map *m,
						     const struct tap_map_desc *d,
						     const union tap_key *keys)
{
	struct tap_map_entry *e = tap_map_find_desc(m, d, keys, tap_map_hash_desc(d, keys));

	return e ? *(int64_t *)(e->data + tap_desc_value_offset(d)) : 0;
}

static const char *tap_map_get_string(const struct tap_map *m, const union tap_key *keys)
{
	struct tap_map_entry *e = tap_map_find(m, keys);

	return e ? tap_map_value(m, e) : "";
}

/* The aggregate a[keys], an empty one (its extras too) when there is none. */
static const int64_t tap_stat_empty[TAP_STAT_MAX_SIZE / sizeof(int64_t)];

static struct tap_stat *tap_map_get_stat(const struct tap_map *m, const union tap_key *keys)
{
	struct tap_map_entry *e = tap_map_find(m, keys);

	return e ? tap_map_value(m, e) : (struct tap_stat *)tap_stat_empty;
}

static void tap_map_delete(struct tap_map *m, const union tap_key *keys)
{
	struct tap_map_entry *e = tap_map_find(m, keys);

	if (e)
		tap_map_remove(m, e);
}

static void tap_map_clear(struct tap_map *m)
{
	if (unlikely(m->shards)) {
		m->forget(m, NULL);
		while (!list_empty(&m->used))
			tap_map_unlink(m, list_first_entry(&m->used, struct tap_map_entry, order));
		return;
	}
	while (!list_empty(&m->used))
		tap_map_remove(m, list_first_entry(&m->used, struct tap_map_entry, order));
}

/* ---- Slices: a[k1, *] names every entry whose keys equal those given; `wild` has bit i
 * set when key i is a `*`, which matches any. ---- */

static bool tap_map_entry_matches(const struct tap_map *m, struct tap_map_entry *e,
				  const union tap_key *keys, u32 wild)
{
	return tap_map_keys_match(m->desc, e, keys, wild);
}

/* [k1, *] in a */
static bool tap_map_slice_any(const struct tap_map *m, const union tap_key *keys, u32 wild)
{
	struct tap_map_entry *e;

	list_for_each_entry(e, &m->used, order)
		if (tap_map_entry_matches(m, e, keys, wild))
			return true;
	return false;
}

/* delete a[k1, *] */
static void tap_map_slice_delete(struct tap_map *m, const union tap_key *keys, u32 wild)
{
	struct tap_map_entry *e, *next;

	list_for_each_entry_safe(e, next, &m->used, order)
		if (tap_map_entry_matches(m, e, keys, wild))
			tap_map_remove(m, e);
}

/* ---- foreach ---- */

/* What a sort compares: column 0 is the value, 1..n the keys; direction +1 or -1; for an
 * array of aggregates, which number of them ('c', 's', 'n', 'x', 'a', 'v'). */
struct tap_sort {
	const struct tap_map *map;
	int column, direction;
	char aggregate;
};

/* The number an aggregate sorts by (an empty one's @min, @max, @avg sort as 0). */
static int64_t tap_sort_stat(const struct tap_sort *how, struct tap_stat *st)
{
	const struct tap_map_desc *desc = how->map->desc;

	switch (how->aggregate) {
	case 'v':
		if (!st->count || desc->hist || !desc->stat_variance)
			return 0;
		return tap_unscaled_variance(tap_stat_variance_of(st)->variance_s,
					     desc->variance_shift);
	case 's': return st->sum;
	case 'n': return st->count ? st->min : 0;
	case 'x': return st->count ? st->max : 0;
	case 'a': return st->count ? div64_s64(st->sum, st->count) : 0;
	default: return st->count;
	}
}

static int tap_sort_compare(void *priv, const struct list_head *la, const struct list_head *lb)
{
	const struct tap_sort *how = priv;
	struct tap_map_entry *a = list_entry(la, struct tap_map_entry, order);
	struct tap_map_entry *b = list_entry(lb, struct tap_map_entry, order);
	const struct tap_map *m = how->map;
	int column = how->column;
	bool is_string = column ? m->desc->string_key[column - 1] : m->desc->string_value;
	void *x = column ? tap_map_key_slot(m, a, column - 1) : tap_map_value(m, a);
	void *y = column ? tap_map_key_slot(m, b, column - 1) : tap_map_value(m, b);
	int cmp;

	if (!column && m->desc->stat_value) {
		int64_t sx = tap_sort_stat(how, x), sy = tap_sort_stat(how, y);

		cmp = sx < sy ? -1 : sx > sy;
	} else if (is_string) {
		cmp = strncmp(x, y, MAXSTRINGLEN);
	} else {
		cmp = *(int64_t *)x < *(int64_t *)y ? -1 : *(int64_t *)x > *(int64_t *)y;
	}
	return cmp * how->direction;
}

/*
 * Fills `entries` (room for the map's capacity) with the map's entries in the map's order,
 * after sorting them on `column` (0 the value, 1..n a key) when `direction` is not 0; an
 * array of aggregates sorts its values by `aggregate` (@count unless told). As in stap, the
 * sort is stable and stays: the map's own order becomes the sorted one, which a later
 * foreach without a sort walks. Returns how many.
 */
static int tap_map_list(struct tap_map *m, struct tap_map_entry **entries, int column,
			int direction, char aggregate)
{
	struct tap_map_entry *e;
	int n = 0;

	if (direction) {
		struct tap_sort how = { m, column, direction, aggregate };

		list_sort(&how, &m->used, tap_sort_compare);
	}
	list_for_each_entry(e, &m->used, order)
		entries[n++] = e;
	return n;
}

#endif
