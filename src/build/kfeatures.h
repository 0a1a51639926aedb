/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 4: the kernel API a module is built against, read from the target's headers rather
 * than guessed from its version (distributions backport API changes into old versions:
 * Debian's 6.1.103 took 6.11's task_work_cancel change, which is what breaks stap 4.8's
 * runtime there). Each feature is a word looked for in a header; the answers are written as
 * `#define TAP_HAVE_...` lines to a header that every module includes (runtime/compat.h
 * uses them), kept in the cache per kernel tree, so that the headers are read once.
 */
#ifndef TAPSTER_KFEATURES_H
#define TAPSTER_KFEATURES_H

#include <stdbool.h>

/*
 * The path of the features header for the kbuild tree BUILD_DIR (malloc'd), made on first
 * use, or NULL with a message on stderr. It is kept in IN_DIR, or when that is NULL in
 * tapster's directory of caches (cache.h: TAPSTER_DIR/kfeatures); REFRESH makes it anew
 * (--poison-cache).
 */
char *kernel_features_header(const char *build_dir, const char *in_dir, bool refresh);

/* The cache's name for a kbuild tree (malloc'd): a hash of its path and its .config's time
 * and size. */
char *kernel_tree_key(const char *build_dir);

#endif
