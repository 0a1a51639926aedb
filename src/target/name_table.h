/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A table of names (open addressing, FNV-1a): each entry a name, a value and a tag that
 * tells kinds of one name apart. The names are the caller's, kept as long as the table.
 * The BTF and DWARF backends of ktypes.h index their types and symbols with it. An entry
 * is 16 bytes (BTF's index holds one for each of some 100,000 named types); the tags are
 * kept beside the entries, and only once a table has a tag other than 0.
 */
#ifndef TAPSTER_NAME_TABLE_H
#define TAPSTER_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct name_entry {
	const char *name;	/* NULL: a free slot */
	uint64_t value;
};

struct name_table {
	struct name_entry *entries;
	int *tags;		/* each entry's, in the same slot; NULL while all are 0 */
	size_t cap, count;
};

/* Room for `count` entries without growing. */
void name_table_reserve(struct name_table *t, size_t count);
/* Adds an entry, after the ones of the same name already there. */
void name_table_add(struct name_table *t, const char *name, int tag, uint64_t value);
/* The entries named `name` in the order they were added: the first with `after` NULL, then
 * the one after `after`; NULL when there is no more. */
const struct name_entry *name_table_next(const struct name_table *t, const char *name,
					 const struct name_entry *after);
/* The tag of entry `e` of `t`. */
int name_table_tag(const struct name_table *t, const struct name_entry *e);
/* The first entry named `name` with `tag` (any tag when `tag` < 0), or NULL. */
const struct name_entry *name_table_find(const struct name_table *t, const char *name,
					 int tag);

#endif
