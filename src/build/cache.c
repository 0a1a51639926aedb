// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include "build/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "build/kfeatures.h"
#include "util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

/* Bump when what goes into an entry, or how, changes. */
#define CACHE_FORMAT "2"
#define DEFAULT_LIMIT_MB 256
#define DEFAULT_CLEAN_INTERVAL_S 300

/* ---- SHA-256 (FIPS 180-4) ---- */

struct sha256 {
	uint32_t state[8];
	uint64_t length;	/* bytes hashed */
	unsigned char block[64];
	size_t used;		/* bytes in block */
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_init(struct sha256 *h)
{
	static const uint32_t initial[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(h->state, initial, sizeof(initial));
	h->length = 0;
	h->used = 0;
}

static void sha256_block(struct sha256 *h, const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h->state, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + sha256_k[i] + w[i];
		uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h->state[i] += v[i];
}

static void sha256_add(struct sha256 *h, const void *data, size_t len)
{
	const unsigned char *p = data;

	h->length += len;
	while (len) {
		size_t n = 64 - h->used < len ? 64 - h->used : len;

		memcpy(h->block + h->used, p, n);
		h->used += n;
		p += n;
		len -= n;
		if (h->used == 64) {
			sha256_block(h, h->block);
			h->used = 0;
		}
	}
}

/* The digest in hex: 64 digits and a NUL in OUT. */
static void sha256_hex(struct sha256 *h, char out[65])
{
	uint64_t bits = h->length * 8;
	unsigned char pad = 0x80, len[8];

	sha256_add(h, &pad, 1);
	pad = 0;
	while (h->used != 56)
		sha256_add(h, &pad, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_add(h, len, 8);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h->state[i]);
}

/* A labelled item of the key: "LABEL LENGTH\n" then the bytes, so items can't run into
 * each other. */
static void key_add(struct sha256 *h, const char *label, const char *data, size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "%s %zu\n", label, len);

	sha256_add(h, head, (size_t)n);
	sha256_add(h, data, len);
}

static void key_add_string(struct sha256 *h, const char *label, const char *text)
{
	key_add(h, label, text ? text : "", text ? strlen(text) : 0);
}

static char *cache_dir(void);

/* The generated C, new each run: its contents ("" and a note when it can't be read). */
static void key_add_source(struct sha256 *h, const char *path)
{
	size_t len = 0;
	char *text = read_text_file(path, &len);

	if (text)
		key_add(h, "module source", text, len);
	else
		key_add_string(h, "module source", "(unreadable)");
	free(text);
}

/* A file's contents, unlabelled ("(unreadable)" when it can't be read). */
static void key_add_contents(struct sha256 *h, const char *path)
{
	size_t len = 0;
	char *text = read_text_file(path, &len);

	if (text)
		sha256_add(h, text, len);
	else
		sha256_add(h, "(unreadable)", strlen("(unreadable)"));
	free(text);
}

/*
 * The digests of the files that seldom change (the runtime, the kernel's configuration and
 * API header) are remembered in $TAPSTER_DIR/cache/digests, one line each: the digest in hex,
 * then the file's identity (device, inode, size, modification and change times, path). A
 * file whose identity is unchanged is not read again: hashing them took more time than the
 * rest of a cache hit. Writing a file changes its change time, so a changed file is hashed.
 */
#define MEMO_MAX_LINES 256

static struct {
	char **lines;
	size_t count;
	bool changed;
} memo;

static void memo_add(char *line)
{
	memo.lines = xrealloc(memo.lines, (memo.count + 1) * sizeof(*memo.lines));
	memo.lines[memo.count++] = line;
}

/* NULL: nothing remembered (--poison-cache), every file hashed. */
static void memo_load(const char *file)
{
	char *text = file ? read_text_file(file, NULL) : NULL;

	memo.count = 0;
	memo.changed = false;
	if (!text)
		return;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (strlen(line) > 65 && line[64] == ' ')
			memo_add(xstrdup(line));
	free(text);
}

/* Writes the memo (its newest MEMO_MAX_LINES lines) when it changed, through a temporary
 * file renamed into place; a failure only costs the next run the hashing. */
static void memo_save(const char *dir, const char *file)
{
	size_t first = memo.count > MEMO_MAX_LINES ? memo.count - MEMO_MAX_LINES : 0;
	char *tmp = xasprintf("%s.%ld.tmp", file, (long)getpid());
	FILE *f = NULL;

	if (memo.changed && make_dirs(dir) == 0)
		f = fopen(tmp, "w");
	if (f) {
		for (size_t i = first; i < memo.count; i++)
			fprintf(f, "%s\n", memo.lines[i]);
		if (fclose(f) != 0 || rename(tmp, file) != 0)
			unlink(tmp);
	}
	for (size_t i = 0; i < memo.count; i++)
		free(memo.lines[i]);
	free(memo.lines);
	memo.lines = NULL;
	memo.count = 0;
	free(tmp);
}

/* "DEV INODE SIZE MTIME CTIME PATH", or NULL when the file can't be looked at. */
static char *file_identity(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || strchr(path, '\n'))
		return NULL;
	return xasprintf("%llu %llu %lld %lld.%09ld %lld.%09ld %s", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, path);
}

/* A file, by the digest of its contents: remembered, or computed and remembered. */
static void key_add_file(struct sha256 *h, const char *label, const char *path)
{
	char *identity = file_identity(path);
	char hex[65];
	struct sha256 file_hash;

	for (size_t i = 0; identity && i < memo.count; i++) {
		if (strcmp(memo.lines[i] + 65, identity) != 0)
			continue;
		key_add(h, label, memo.lines[i], 64);
		free(identity);
		return;
	}
	sha256_init(&file_hash);
	key_add_contents(&file_hash, path);
	sha256_hex(&file_hash, hex);
	key_add(h, label, hex, 64);
	if (identity) {
		memo_add(xasprintf("%s %s", hex, identity));
		memo.changed = true;
	}
	free(identity);
}

/* A file's identity without reading it: size and modification time. */
static void key_add_stat(struct sha256 *h, const char *label, const char *path)
{
	struct stat st;
	char *id;

	if (stat(path, &st) == 0)
		id = xasprintf("%lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtime,
			       st.st_mtim.tv_nsec);
	else
		id = xstrdup("(missing)");
	key_add_string(h, label, id);
	free(id);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of the runtime directory, by name and contents, in name order. */
static void key_add_runtime(struct sha256 *h, const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t count = 0;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ARRAY_PUSH(names, count, xstrdup(e->d_name));
	}
	if (d)
		closedir(d);
	qsort(names, count, sizeof(*names), compare_names);
	for (size_t i = 0; i < count; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		key_add_string(h, "runtime file", names[i]);
		key_add_file(h, "runtime text", path);
		free(path);
		free(names[i]);
	}
	free(names);
}

/* The target's build tree: where it is, its release, its configuration, its exports. */
static void key_add_kernel(struct sha256 *h, const struct session *s)
{
	char real[PATH_MAX];
	char *config = xasprintf("%s/.config", s->kernel_build_dir);
	char *symvers = xasprintf("%s/Module.symvers", s->kernel_build_dir);

	if (!realpath(s->kernel_build_dir, real))
		snprintf(real, sizeof(real), "%s", s->kernel_build_dir);
	key_add_string(h, "kernel tree", real);
	key_add_string(h, "kernel release", s->kernel_release);
	key_add_file(h, "kernel config", config);
	key_add_stat(h, "kernel symvers", symvers);
	free(config);
	free(symvers);
}

/* The hash of everything that makes the module of <tmpdir>/<name>.c, in hex. */
static bool module_key(const struct session *s, const char *c_path, char out[65])
{
	struct sha256 h;
	char *features = kernel_features_header(s->kernel_build_dir, NULL, s->poison_cache);
	char *dir = cache_dir();
	char *memo_file = xasprintf("%s/digests", dir);

	if (!features) {
		free(dir);
		free(memo_file);
		return false;
	}
	memo_load(s->poison_cache ? NULL : memo_file);
	sha256_init(&h);
	key_add_string(&h, "tapster", PACKAGE_VERSION " cache " CACHE_FORMAT);
	key_add_stat(&h, "tapster binary", "/proc/self/exe");
	key_add_kernel(&h, s);
	key_add_file(&h, "kernel api", features);
	key_add_runtime(&h, s->runtime_dir);
	for (int i = 0; i < s->ndefines; i++) {
		key_add_string(&h, "define", s->defines[i].name);
		key_add_string(&h, "value", s->defines[i].value ? s->defines[i].value : "(none)");
	}
	for (int i = 0; i < s->make_args.count; i++)
		key_add_string(&h, "make argument", s->make_args.items[i]);
	/* -m NAME: the name is in the .ko (built from NAME.c), not in the C text. */
	key_add_string(&h, "module name", s->module_name ? s->module_name : "(hash)");
	key_add_source(&h, c_path);
	sha256_hex(&h, out);
	memo_save(dir, memo_file);
	free(features);
	free(dir);
	free(memo_file);
	return true;
}

/* ---- Where ---- */

static char *cache_dir(void)
{
	char *root = tapster_dir();
	char *dir = xasprintf("%s/cache", root);

	free(root);
	return dir;
}

/* ---- Lookup and store ---- */

static void cache_check_hit(const struct session *s, struct module_cache *cache)
{
	cache->hit = !s->poison_cache && access(cache->ko_path, R_OK) == 0 &&
		     access(cache->c_path, R_OK) == 0;
	if (cache->hit) {
		/* Used now: the last to go when the cache is trimmed. */
		utimes(cache->ko_path, NULL);
		utimes(cache->c_path, NULL);
	}
}

bool module_cache_open(const struct session *s, struct module_cache *cache, char **name,
		       char **c_path)
{
	char key[65], *dir, *new_name, *new_c_path;

	memset(cache, 0, sizeof(*cache));
	if (s->disable_cache || s->last_pass < 4)
		return true;
	if (!module_key(s, *c_path, key))
		return false;
	if (s->module_name) {
		/* -m NAME keeps its name; the cache holds it as NAME_KEY, taken as NAME.ko. */
		dir = cache_dir();
		cache->enabled = true;
		cache->c_path = xasprintf("%s/%.2s/%s_%.32s.c", dir, key, *name, key);
		cache->ko_path = xasprintf("%s/%.2s/%s_%.32s.ko", dir, key, *name, key);
		free(dir);
		cache_check_hit(s, cache);
		return true;
	}
	new_name = xasprintf("stap_%.32s", key);
	new_c_path = xasprintf("%s/%s.c", s->tmpdir, new_name);
	if (rename(*c_path, new_c_path) != 0) {
		fprintf(stderr, "ERROR: cannot rename %s: %s\n", *c_path, strerror(errno));
		free(new_name);
		free(new_c_path);
		return false;
	}
	free(*name);
	free(*c_path);
	*name = new_name;
	*c_path = new_c_path;
	dir = cache_dir();
	cache->enabled = true;
	cache->c_path = xasprintf("%s/%.2s/%s.c", dir, key, new_name);
	cache->ko_path = xasprintf("%s/%.2s/%s.ko", dir, key, new_name);
	free(dir);
	cache_check_hit(s, cache);
	return true;
}

/* Copies FROM to TO, through a temporary file renamed into place, so that a reader never
 * sees half a file and two writers don't mix theirs. */
static bool copy_atomically(const char *from, const char *to)
{
	char *tmp = xasprintf("%s.tmp%d", to, (int)getpid());
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = in >= 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	bool ok = out >= 0;
	char buf[65536];
	ssize_t n;

	while (ok && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 || write(out, buf, (size_t)n) != n)
			ok = false;
	}
	if (out >= 0 && close(out) != 0)
		ok = false;
	if (in >= 0)
		close(in);
	if (ok && rename(tmp, to) != 0)
		ok = false;
	if (!ok && out >= 0)
		unlink(tmp);
	free(tmp);
	return ok;
}

char *module_cache_take(const struct session *s, const struct module_cache *cache,
			const char *name)
{
	char *ko = xasprintf("%s/%s.ko", s->tmpdir, name);

	/* The tmpdir's own link: a cleaning by another run can't take it away. */
	if (link(cache->ko_path, ko) != 0 && !copy_atomically(cache->ko_path, ko)) {
		fprintf(stderr, "ERROR: cannot copy %s: %s\n", cache->ko_path, strerror(errno));
		free(ko);
		return NULL;
	}
	return ko;
}

static void clean_if_due(const char *dir, const char *keep);

bool module_cache_store(const struct session *s, const struct module_cache *cache,
			const char *ko, const char *c_path)
{
	char *subdir = xstrdup(cache->ko_path);
	bool ok;

	(void)s;
	*strrchr(subdir, '/') = '\0';
	/* The C first: an entry is there when its .ko is. */
	ok = make_dirs(subdir) == 0 && copy_atomically(c_path, cache->c_path) &&
	     copy_atomically(ko, cache->ko_path);
	if (!ok)
		fprintf(stderr, "WARNING: cannot write the module cache %s: %s\n", subdir,
			strerror(errno));
	*strrchr(subdir, '/') = '\0';
	if (ok)
		clean_if_due(subdir, cache->ko_path);
	free(subdir);
	return ok;
}

void module_cache_free(struct module_cache *cache)
{
	free(cache->c_path);
	free(cache->ko_path);
	memset(cache, 0, sizeof(*cache));
}

/* ---- Cleaning ---- */

/* The number in DIR/NAME; when there is no such file, DEFAULT, written there. */
static long read_setting(const char *dir, const char *name, long default_value)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *text = read_text_file(path, NULL);
	long value = default_value;

	if (text) {
		char *end;
		long n = strtol(text, &end, 10);

		if (end != text && n >= 0)
			value = n;
	} else {
		FILE *f = fopen(path, "w");

		if (f) {
			fprintf(f, "%ld\n", default_value);
			fclose(f);
		}
	}
	free(text);
	free(path);
	return value;
}

/* One entry: its files (STEM.c, STEM.ko), their size, and when it was last used. */
struct entry {
	char *stem;
	long long bytes;
	struct timespec used;
};

struct entries {
	struct entry *items;
	size_t count;
	long long bytes;
};

static void add_file(struct entries *all, const char *subdir, const char *file,
		     const struct stat *st)
{
	const char *dot = strrchr(file, '.');
	char *stem;
	struct entry *e = NULL;

	if (!dot || (strcmp(dot, ".ko") && strcmp(dot, ".c")))
		return;
	stem = xasprintf("%s/%.*s", subdir, (int)(dot - file), file);
	for (size_t i = 0; i < all->count && !e; i++)
		if (!strcmp(all->items[i].stem, stem))
			e = &all->items[i];
	if (!e) {
		all->items = xrealloc(all->items, (all->count + 1) * sizeof(*all->items));
		e = &all->items[all->count++];
		*e = (struct entry){ .stem = stem, .used = st->st_mtim };
	} else {
		free(stem);
	}
	e->bytes += (long long)st->st_size;
	all->bytes += (long long)st->st_size;
	if (st->st_mtim.tv_sec > e->used.tv_sec ||
	    (st->st_mtim.tv_sec == e->used.tv_sec && st->st_mtim.tv_nsec > e->used.tv_nsec))
		e->used = st->st_mtim;
}

/* The entries in DIR's two-digit subdirectories. */
static void list_entries(const char *dir, struct entries *all)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *subdir = xasprintf("%s/%s", dir, e->d_name);
		DIR *sd = strlen(e->d_name) == 2 ? opendir(subdir) : NULL;
		struct dirent *f;

		while (sd && (f = readdir(sd))) {
			char *path = xasprintf("%s/%s", subdir, f->d_name);
			struct stat st;

			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
				add_file(all, subdir, f->d_name, &st);
			free(path);
		}
		if (sd)
			closedir(sd);
		free(subdir);
	}
	if (d)
		closedir(d);
}

static int compare_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->stem, y->stem);
}

/* Removes the least recently used entries of DIR until it holds at most its limit; never
 * the one whose .ko is KEEP (the one just made). */
static void trim(const char *dir, const char *keep)
{
	long long limit = read_setting(dir, "cache_mb_limit", DEFAULT_LIMIT_MB) * 1024LL * 1024;
	struct entries all = { 0 };

	list_entries(dir, &all);
	qsort(all.items, all.count, sizeof(*all.items), compare_use);
	for (size_t i = 0; i < all.count; i++) {
		char *ko = xasprintf("%s.ko", all.items[i].stem);
		char *c = xasprintf("%s.c", all.items[i].stem);

		if (all.bytes > limit && (!keep || strcmp(ko, keep))) {
			/* The .ko first: without it the entry is not used. */
			unlink(ko);
			unlink(c);
			all.bytes -= all.items[i].bytes;
		}
		free(ko);
		free(c);
		free(all.items[i].stem);
	}
	free(all.items);
}

/* Trims DIR when cache_clean_interval_s has passed since the last time (the time of the
 * file .last_clean); KEEP as for trim(). */
static void clean_if_due(const char *dir, const char *keep)
{
	long interval = read_setting(dir, "cache_clean_interval_s", DEFAULT_CLEAN_INTERVAL_S);
	char *stamp = xasprintf("%s/.last_clean", dir);
	struct stat st;

	if (stat(stamp, &st) != 0 || time(NULL) - st.st_mtime >= interval) {
		int fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0) {
			futimens(fd, NULL);
			close(fd);
		}
		trim(dir, keep);
	}
	free(stamp);
}

void module_cache_clean_now(void)
{
	char *dir = cache_dir();

	if (access(dir, F_OK) == 0)
		trim(dir, NULL);
	free(dir);
}
