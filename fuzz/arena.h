/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocation arena of fuzz/translate_fuzz (see arena.c). */
#ifndef TAPSTER_FUZZ_ARENA_H
#define TAPSTER_FUZZ_ARENA_H

#include <stddef.h>

/* From now on, the blocks the translator allocates are noted. */
void arena_begin(void);
/* Frees the noted blocks still allocated, stops noting; returns how many it freed. */
size_t arena_end(void);

#endif
