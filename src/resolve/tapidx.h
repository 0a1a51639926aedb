/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The index of the tapset library: what each tapset file defines (functions, globals, the
 * first component of its probe aliases) and which other files its words may name, read from
 * its text without parsing it. Pass 1 parses the script and then only the files it needs.
 */
#ifndef TAPSTER_TAPIDX_H
#define TAPSTER_TAPIDX_H

#include <stdbool.h>

struct tapidx;

/* The index cached for these files (in their order) under `key`, or NULL when there is none
 * or it was made for other files (another key). */
struct tapidx *tapidx_load(const char *path, const char *key);

/* The index of `paths` (their texts read again), in memory; `clean` as below. */
struct tapidx *tapidx_build(char *const *paths, int npaths, bool clean);

/* Builds the index of `paths` (their texts read again) and writes it to `path` (through a
 * temporary file); `clean`: the full parse of the library reported nothing. */
void tapidx_build_and_save(const char *path, const char *key, char *const *paths, int npaths,
			   bool clean);

/*
 * Marks in `needed` (npaths entries, the files the index was built of) the files that the
 * script `text` and the words of `macro_texts` (the macro files, the script's arguments)
 * need, transitively. False when the index can't tell (it was not clean, the script calls
 * a function no file defines, a probe point's first component has a wildcard, ...): then
 * every file is needed.
 */
bool tapidx_select(const struct tapidx *idx, const char *text, const char *const *macro_texts,
		   int nmacro_texts, bool *needed, int npaths);

void tapidx_free(struct tapidx *idx);

#endif
