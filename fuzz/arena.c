// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The allocation arena of fuzz/translate_fuzz: the translator's malloc, calloc, realloc,
 * strdup, strndup and free, wrapped at link time (-Wl,--wrap=NAME), so that what passes 2
 * and 3 allocate for one input can be released after it. The translator is a program that
 * runs once and exits; its program tree (struct program) has no destructor, by design. The
 * arena stands in for that exit.
 *
 * Between arena_begin() and arena_end() every block the translator allocates is noted in a
 * set of pointers; free() and realloc() take them out again. arena_end() frees what is left
 * and returns how many blocks that was. A block that existed before arena_begin() (the
 * kernel info and tapset macros loaded once, at the start) stays untracked, also when it is
 * reallocated during an input, so that the caches of the process stay valid.
 *
 * What the translator allocates through other calls (open_memstream, scandir, realpath)
 * is not in the arena: LeakSanitizer still sees those leaks.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
void __wrap_free(void *ptr);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* An open-addressing set of the live blocks: a power of two of slots, at most half full. */
static void **slots;
static size_t nslots, nused;
static bool active;

static size_t slot_of(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (nslots - 1);
}

static void set_insert(void *p);

static void set_grow(void)
{
	void **old = slots;
	size_t nold = nslots;

	nslots = nslots ? nslots * 2 : 4096;
	slots = __real_calloc(nslots, sizeof(*slots));
	if (!slots)
		abort();
	nused = 0;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			set_insert(old[i]);
	__real_free(old);
}

static void set_insert(void *p)
{
	size_t i;

	if ((nused + 1) * 2 > nslots)
		set_grow();
	for (i = slot_of(p); slots[i]; i = (i + 1) & (nslots - 1))
		if (slots[i] == p)
			return;
	slots[i] = p;
	nused++;
}

/* Takes `p` out; whether it was there. The entries after it move back (no tombstones). */
static bool set_remove(const void *p)
{
	size_t i, j;

	if (!nused)
		return false;
	for (i = slot_of(p); slots[i] != p; i = (i + 1) & (nslots - 1))
		if (!slots[i])
			return false;
	slots[i] = NULL;
	nused--;
	for (j = (i + 1) & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1)) {
		size_t home = slot_of(slots[j]);

		/* slots[j] may move to the hole at i when its home is not within (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			slots[i] = slots[j];
			slots[j] = NULL;
			i = j;
		}
	}
	return true;
}

static void *noted(void *p)
{
	if (p && active)
		set_insert(p);
	return p;
}

void *__wrap_malloc(size_t size)
{
	return noted(__real_malloc(size));
}

void *__wrap_calloc(size_t count, size_t size)
{
	return noted(__real_calloc(count, size));
}

void *__wrap_realloc(void *ptr, size_t size)
{
	bool tracked = ptr ? set_remove(ptr) : active;
	void *p = __real_realloc(ptr, size);

	if (!p && ptr && size && tracked)
		set_insert(ptr);	/* failed: the old block is still there */
	else if (p && tracked)
		set_insert(p);
	return p;
}

void __wrap_free(void *ptr)
{
	if (ptr)
		set_remove(ptr);
	__real_free(ptr);
}

char *__wrap_strdup(const char *s)
{
	return noted(__real_strdup(s));
}

char *__wrap_strndup(const char *s, size_t n)
{
	return noted(__real_strndup(s, n));
}

void arena_begin(void)
{
	active = true;
}

size_t arena_end(void)
{
	size_t freed = 0;

	active = false;
	for (size_t i = 0; i < nslots; i++) {
		if (slots[i]) {
			__real_free(slots[i]);
			slots[i] = NULL;
			freed++;
		}
	}
	nused = 0;
	return freed;
}
