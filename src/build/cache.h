/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The module cache, as stap's: a built module is kept in TAPSTER_DIR/cache under a hash of
 * everything that makes it (pass 3's C, the runtime's headers, the kernel API header, the
 * -D options, the kernel build tree, tapster itself), and a later run whose hash is the
 * same takes it instead of running kbuild. The module is then named stap_HASH (32 hex
 * digits), its file KK/stap_HASH.ko with KK the hash's first two digits, next to its C.
 * Without -m and --disable-cache only. The cache's size is bounded by cache_mb_limit
 * (MiB, default 256), enforced at most every cache_clean_interval_s seconds (default 300):
 * the least recently used modules go first.
 */
#ifndef TAPSTER_CACHE_H
#define TAPSTER_CACHE_H

#include <stdbool.h>

#include "session.h"
#include "util.h"

struct module_cache {
	bool enabled;	/* neither -m nor --disable-cache, pass 4 or 5 */
	bool hit;	/* the module is in the cache */
	char *c_path;	/* the entry's files */
	char *ko_path;
};

/*
 * After pass 3 wrote <tmpdir>/<*name>.c: with the cache enabled, renames the module (and
 * its C file, *c_path) to stap_HASH and looks it up (not with --poison-cache); a name given
 * with -m stays, its entry in the cache NAME_HASH. False after printing why it could not.
 */
bool module_cache_open(const struct session *s, struct module_cache *cache, char **name,
		       char **c_path);

/* A hit: the cached module hard-linked (or copied) into the tmpdir, whose path this
 * returns (malloc'd), or NULL after printing why. */
char *module_cache_take(const struct session *s, const struct module_cache *cache,
			const char *name);

/* A miss: keeps the built module KO and its C in the cache; cleans the cache when its
 * interval has passed. False (with a warning) when it could not. */
bool module_cache_store(const struct session *s, const struct module_cache *cache,
			const char *ko, const char *c_path);

/* --clean-cache: trims the cache to its limit now. */
void module_cache_clean_now(void);

void module_cache_free(struct module_cache *cache);

#endif
