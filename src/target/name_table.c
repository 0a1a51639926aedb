// SPDX-License-Identifier: GPL-2.0-or-later
/* A table of names (name_table.h). */
#include "target/name_table.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The free slot where `name` goes: after every entry of its name. */
static size_t free_slot(const struct name_table *t, const char *name)
{
	size_t mask = t->cap - 1, i;

	for (i = hash_name(name) & mask; t->entries[i].name; i = (i + 1) & mask)
		;
	return i;
}

/* Keeps tags for `t`'s entries from now on, all 0 so far. */
static void keep_tags(struct name_table *t)
{
	t->tags = xcalloc(t->cap, sizeof(*t->tags));
}

void name_table_reserve(struct name_table *t, size_t count)
{
	size_t cap = t->cap ? t->cap : 1024;
	struct name_table bigger;

	while (cap < 2 * count)
		cap <<= 1;
	if (cap == t->cap)
		return;
	bigger = (struct name_table){ xcalloc(cap, sizeof(struct name_entry)), NULL, cap,
				      t->count };
	if (t->tags)
		keep_tags(&bigger);
	/* In slot order from a free slot: the entries of a name keep their order. */
	for (size_t n = 0, start = t->cap ? free_slot(t, "") : 0; n < t->cap; n++) {
		size_t from = (start + n) & (t->cap - 1), to;

		if (!t->entries[from].name)
			continue;
		to = free_slot(&bigger, t->entries[from].name);
		bigger.entries[to] = t->entries[from];
		if (t->tags)
			bigger.tags[to] = t->tags[from];
	}
	free(t->entries);
	free(t->tags);
	*t = bigger;
}

void name_table_add(struct name_table *t, const char *name, int tag, uint64_t value)
{
	size_t slot;

	if (2 * (t->count + 1) > t->cap)
		name_table_reserve(t, t->count + 1);
	if (tag && !t->tags)
		keep_tags(t);
	slot = free_slot(t, name);
	t->entries[slot] = (struct name_entry){ name, value };
	if (t->tags)
		t->tags[slot] = tag;
	t->count++;
}

int name_table_tag(const struct name_table *t, const struct name_entry *e)
{
	return t->tags ? t->tags[e - t->entries] : 0;
}

const struct name_entry *name_table_next(const struct name_table *t, const char *name,
					 const struct name_entry *after)
{
	size_t mask = t->cap - 1, i;

	if (!t->cap)
		return NULL;
	i = after ? ((size_t)(after - t->entries) + 1) & mask : hash_name(name) & mask;
	for (; t->entries[i].name; i = (i + 1) & mask)
		if (!strcmp(t->entries[i].name, name))
			return &t->entries[i];
	return NULL;
}

const struct name_entry *name_table_find(const struct name_table *t, const char *name,
					 int tag)
{
	const struct name_entry *e = NULL;

	while ((e = name_table_next(t, name, e)))
		if (tag < 0 || name_table_tag(t, e) == tag)
			return e;
	return NULL;
}
