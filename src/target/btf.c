// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BTF backend of ktypes.h: the kernel's own description of its types (the format is
 * the kernel's Documentation/bpf/btf.rst), read with a small parser of our own.
 *
 * Where it comes from: the running kernel's /sys/kernel/btf/vmlinux when the target is the
 * host's kernel; for the bundled VM the `.BTF` section of the kit's vmlinuz, taken out once
 * (btf_image.c) and cached in the kit as vmlinux.btf; for another kernel (-r) its vmlinux
 * or vmlinuz.
 */
#include "target/ktypes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "target/btf_image.h"
#include "target/kmodules.h"
#include "target/ktypes_backend.h"
#include "target/name_table.h"
#include "session.h"
#include "util.h"

enum {
	BTF_KIND_INT = 1, BTF_KIND_PTR, BTF_KIND_ARRAY, BTF_KIND_STRUCT, BTF_KIND_UNION,
	BTF_KIND_ENUM, BTF_KIND_FWD, BTF_KIND_TYPEDEF, BTF_KIND_VOLATILE, BTF_KIND_CONST,
	BTF_KIND_RESTRICT, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_VAR, BTF_KIND_DATASEC,
	BTF_KIND_FLOAT, BTF_KIND_DECL_TAG, BTF_KIND_TYPE_TAG, BTF_KIND_ENUM64,
};

struct btf_header {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

struct btf_type {
	uint32_t name_off;
	uint32_t info;		/* vlen: bits 0-15, kind: 24-28, kind_flag: 31 */
	uint32_t size_or_type;
};

struct btf_array { uint32_t type, index_type, nelems; };
struct btf_member { uint32_t name_off, type, offset; };
struct btf_param { uint32_t name_off, type; };
struct btf_enum { uint32_t name_off; int32_t val; };
struct btf_enum64 { uint32_t name_off, val_lo32, val_hi32; };

struct btf {
	struct ktypes kt;	/* first: the passes see this */
	char *data;
	size_t size;
	const char *strings;
	uint32_t strings_len;
	/* A module's split BTF: its own types follow the kernel's (ids from the kernel's
	 * count on, `types` holds both), its strings follow the kernel's strings (offsets
	 * from strings_len on). */
	const char *split_strings;
	uint32_t split_strings_len;
	const struct btf_type **types;	/* by id; [0] is NULL (void) */
	uint32_t ntypes;		/* ids 1 .. ntypes - 1 */
	struct name_table functions;	/* FUNC by name: id */
	struct name_table named;	/* struct, union, enum, typedef, int, float by name: id */
};

static const struct ktypes_ops btf_ops;

static const struct btf *btf_of(const struct ktypes *kt)
{
	return (const struct btf *)kt;
}

/* ---- Parsing ---- */

static unsigned btf_kind(const struct btf_type *t) { return (t->info >> 24) & 0x1f; }
static unsigned btf_vlen(const struct btf_type *t) { return t->info & 0xffff; }
static bool btf_kflag(const struct btf_type *t) { return t->info >> 31; }

/* The bytes after a type's common part. */
static size_t btf_extra(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: return 4;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: return btf_vlen(t) * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return btf_vlen(t) * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64: return btf_vlen(t) * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO: return btf_vlen(t) * sizeof(struct btf_param);
	case BTF_KIND_DATASEC: return btf_vlen(t) * 12;
	default: return 0;
	}
}

static const char *btf_str(const struct btf *b, uint32_t off)
{
	if (off < b->strings_len)
		return b->strings + off;
	off -= b->strings_len;
	return off < b->split_strings_len ? b->split_strings + off : "";
}

/* The first id named `name` for which `accept` holds. */
static uint32_t table_find(const struct btf *b, const struct name_table *table,
			   const char *name, bool (*accept)(const struct btf_type *t, void *arg),
			   void *arg)
{
	const struct name_entry *e = NULL;

	while ((e = name_table_next(table, name, e)))
		if (!accept || accept(b->types[e->value], arg))
			return (uint32_t)e->value;
	return 0;
}

static bool is_named_kind(unsigned kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION || kind == BTF_KIND_ENUM ||
	       kind == BTF_KIND_ENUM64 || kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_INT ||
	       kind == BTF_KIND_FLOAT;
}

/* The table that indexes type `id` by its name, or NULL. */
static struct name_table *table_of(struct btf *b, uint32_t id)
{
	const struct btf_type *t = b->types[id];

	if (!t->name_off)
		return NULL;
	if (btf_kind(t) == BTF_KIND_FUNC)
		return &b->functions;
	return is_named_kind(btf_kind(t)) ? &b->named : NULL;
}

static void index_type(struct btf *b, uint32_t id)
{
	struct name_table *table = table_of(b, id);

	if (table)
		name_table_add(table, btf_str(b, b->types[id]->name_off), 0, id);
}

/* The name tables; a module's own types (ids from `first_own` on) go in first, so that its
 * static function or struct of a name the kernel has too is the one found. */
static void build_tables(struct btf *b, uint32_t first_own)
{
	size_t nfunctions = 0, nnamed = 0;

	for (uint32_t id = 1; id < b->ntypes; id++) {
		struct name_table *table = table_of(b, id);

		nfunctions += table == &b->functions;
		nnamed += table == &b->named;
	}
	name_table_reserve(&b->functions, nfunctions);
	name_table_reserve(&b->named, nnamed);
	for (uint32_t id = first_own; id < b->ntypes; id++)
		index_type(b, id);
	for (uint32_t id = 1; id < first_own; id++)
		index_type(b, id);
}

/* Checks the header and indexes the types, after the kernel's types of `base` for a
 * module's split BTF; false when it is no BTF we can read. */
static bool parse_btf(struct btf *b, const struct btf *base)
{
	struct btf_header h;
	const char *types, *end;
	size_t cap = base ? 2 * (size_t)base->ntypes : 1024;

	if (b->size < sizeof(h))
		return false;
	memcpy(&h, b->data, sizeof(h));
	if (h.magic != 0xeb9f || h.version != 1 || h.hdr_len > b->size ||
	    (uint64_t)h.hdr_len + h.type_off + h.type_len > b->size ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > b->size)
		return false;
	types = b->data + h.hdr_len + h.type_off;
	end = types + h.type_len;
	b->types = xcalloc(cap, sizeof(*b->types));
	b->ntypes = 1;
	if (base) {
		b->strings = base->strings;
		b->strings_len = base->strings_len;
		b->split_strings = b->data + h.hdr_len + h.str_off;
		b->split_strings_len = h.str_len;
		memcpy(b->types, base->types, base->ntypes * sizeof(*b->types));
		b->ntypes = base->ntypes;
	} else {
		b->strings = b->data + h.hdr_len + h.str_off;
		b->strings_len = h.str_len;
	}
	while (types + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const struct btf_type *)types;

		types += sizeof(*t) + btf_extra(t);
		if (types > end)
			return false;
		if (b->ntypes == cap) {
			cap *= 2;
			b->types = xrealloc(b->types, cap * sizeof(*b->types));
		}
		b->types[b->ntypes++] = t;
	}
	build_tables(b, base ? base->ntypes : 1);
	return true;
}

/* ---- Where the BTF comes from ---- */

static bool is_host_kernel(const struct session *s)
{
	struct utsname u;

	return !s->run_in_vm && s->kernel_release && uname(&u) == 0 &&
	       !strcmp(u.release, s->kernel_release);
}

/* The BTF of the kernel image at `image`, through the cache file `cache` when not NULL. */
static char *btf_of_image(const char *image, const char *cache, size_t *size, char **error)
{
	char *data = cache ? read_text_file(cache, size) : NULL;

	if (data)
		return data;
	data = btf_image_extract(image, size, error);
	if (data && cache) {
		char *tmp = xasprintf("%s.%d", cache, (int)getpid());
		FILE *f = fopen(tmp, "wb");

		if (f && fwrite(data, 1, *size, f) == *size && fclose(f) == 0)
			rename(tmp, cache);
		else if (f)
			fclose(f);
		unlink(tmp);
		free(tmp);
	}
	return data;
}

/* The target's BTF and where it came from; NULL with *error set. */
static char *read_target_btf(const struct session *s, size_t *size, char **source,
			     char **error)
{
	if (s->run_in_vm) {
		char *image = xasprintf("%s/vmlinuz", s->vm_kit_dir);
		char *cache = xasprintf("%s/vmlinux.btf", s->vm_kit_dir);
		char *data = btf_of_image(image, cache, size, error);

		*source = image;
		free(cache);
		return data;
	}
	if (is_host_kernel(s) && access("/sys/kernel/btf/vmlinux", R_OK) == 0) {
		*source = xstrdup("/sys/kernel/btf/vmlinux");
		return read_text_file(*source, size);
	}
	const char *candidates[] = { "%s/vmlinux", "/boot/vmlinux-%s", "/boot/vmlinuz-%s" };

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		char *path = xasprintf(candidates[i], i == 0 ? s->kernel_build_dir :
				       s->kernel_release);

		if (access(path, R_OK) == 0) {
			*source = path;
			return btf_of_image(path, NULL, size, error);
		}
		free(path);
	}
	*source = NULL;
	*error = xasprintf("no vmlinux or vmlinuz of kernel %s found", s->kernel_release);
	return NULL;
}

const struct ktypes *ktypes_load_btf(const struct session *s)
{
	static struct btf *loaded;
	static bool tried;
	char *error = NULL, *source = NULL;
	struct btf *b;

	if (tried)
		return loaded ? &loaded->kt : NULL;
	tried = true;
	b = xcalloc(1, sizeof(*b));
	b->kt.ops = &btf_ops;
	b->data = read_target_btf(s, &b->size, &source, &error);
	b->kt.source = source;
	if (b->data && !parse_btf(b, NULL))
		error = xasprintf("%s holds no BTF that tapster can read", source);
	if (!b->data || error) {
		fprintf(stderr, "ERROR: cannot read the kernel's types (BTF): %s\n",
			error ? error : strerror(errno));
		free(error);
		return NULL;
	}
	if (s->verbose > 1)
		fprintf(stderr, "Kernel types from BTF: %s\n", b->kt.source);
	loaded = b;
	return &loaded->kt;
}

/* ---- A module's types ---- */

/* Whether the cache file at `cache` is there and not older than the module's file. */
static bool cache_fresh(const char *cache, const char *ko)
{
	struct stat c, k;

	return stat(cache, &c) == 0 && (!ko || stat(ko, &k) != 0 || c.st_mtime >= k.st_mtime);
}

static void write_cache(const char *cache, const char *data, size_t size)
{
	char *dir = xstrdup(cache);
	char *tmp = xasprintf("%s.%d", cache, (int)getpid());
	FILE *f;

	*strrchr(dir, '/') = '\0';
	make_dirs(dir);
	f = fopen(tmp, "wb");
	if (f && fwrite(data, 1, size, f) == size && fclose(f) == 0)
		rename(tmp, cache);
	else if (f)
		fclose(f);
	unlink(tmp);
	free(tmp);
	free(dir);
}

/* The split BTF of module `name` (or of the module file `name`, a path) and where it came
 * from; NULL with *error set. */
static char *read_module_btf(const struct session *s, const char *name, const char *ko,
			     size_t *size, char **source, char **error)
{
	char *sys = xasprintf("/sys/kernel/btf/%s", name);
	char *root, *cache, *data;

	if (strchr(name, '/')) {
		/* A module's file named as such (@cast's module list): its own BTF, over the
		 * kernel's if it was built for it. */
		char *release = btf_image_module_release(name);

		free(sys);
		*source = xstrdup(name);
		if (release && s->kernel_release && strcmp(release, s->kernel_release)) {
			*error = xasprintf("%s is built for kernel %s, not %s", name, release,
					   s->kernel_release);
			free(release);
			return NULL;
		}
		free(release);
		return btf_image_extract(name, size, error);
	}
	if (is_host_kernel(s) && access(sys, R_OK) == 0) {
		*source = sys;
		return read_text_file(sys, size);
	}
	free(sys);
	if (!ko) {
		*error = xasprintf("kernel %s has no module '%s'", s->kernel_release, name);
		return NULL;
	}
	root = tapster_dir();
	cache = xasprintf("%s/module-btf/%s/%s.btf", root, s->kernel_release, name);
	free(root);
	*source = xstrdup(ko);
	data = cache_fresh(cache, ko) ? read_text_file(cache, size) : NULL;
	if (data && (*size < 2 || (uint8_t)data[0] != 0x9f || (uint8_t)data[1] != 0xeb)) {
		/* Not BTF (a damaged cache file): taken from the module again. */
		free(data);
		data = NULL;
	}
	if (!data) {
		data = btf_image_extract(ko, size, error);
		if (data)
			write_cache(cache, data, *size);
	}
	free(cache);
	return data;
}

const struct ktypes *btf_load_module(const struct session *s, const char *name,
				     const char *modules_dir, char **error)
{
	const struct ktypes *base = ktypes_load_btf(s);
	struct btf *b = xcalloc(1, sizeof(*b));
	char *source = NULL, *ko;

	b->kt.ops = &btf_ops;
	ko = modules_dir && !strchr(name, '/') ? kmodules_file(modules_dir, name) : NULL;
	b->data = read_module_btf(s, name, ko, &b->size, &source, error);
	b->kt.source = source;
	free(ko);
	if (b->data && !parse_btf(b, btf_of(base)))
		*error = xasprintf("%s holds no BTF that tapster can read", source);
	if (!b->data || *error)
		return NULL;
	if (s->verbose > 1)
		fprintf(stderr, "Types of module %s from BTF: %s\n", name, b->kt.source);
	return &b->kt;
}

/* ---- Questions ---- */

static const struct btf_type *type_of(const struct ktypes *kt, ktype_id id)
{
	const struct btf *b = btf_of(kt);

	return id && id < b->ntypes ? b->types[id] : NULL;
}

static enum ktype_kind btf_kind_of(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = type_of(kt, id);

	if (!t)
		return KT_VOID;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: return KT_INT;
	case BTF_KIND_PTR: return KT_PTR;
	case BTF_KIND_ARRAY: return KT_ARRAY;
	case BTF_KIND_STRUCT: return KT_STRUCT;
	case BTF_KIND_UNION: return KT_UNION;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: return KT_ENUM;
	case BTF_KIND_TYPEDEF: return KT_TYPEDEF;
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG: return KT_QUALIFIER;
	case BTF_KIND_FUNC_PROTO: return KT_FUNC_PROTO;
	case BTF_KIND_FWD: return KT_FWD;
	case BTF_KIND_FLOAT: return KT_FLOAT;
	default: return KT_OTHER;
	}
}

static ktype_id btf_target(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = type_of(kt, id);

	if (!t)
		return 0;
	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY: return ((const struct btf_array *)(t + 1))->type;
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG: return t->size_or_type;
	default: return 0;
	}
}

static uint32_t btf_array_len(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = type_of(kt, id);

	return t && btf_kind(t) == BTF_KIND_ARRAY ? ((const struct btf_array *)(t + 1))->nelems
						   : 0;
}

static uint32_t btf_size(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = type_of(kt, id);

	if (!t)
		return 0;
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: return 8;
	case BTF_KIND_ARRAY: return btf_array_len(kt, id) * ktypes_size(kt, btf_target(kt, id));
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: case BTF_KIND_FLOAT: return t->size_or_type;
	default: return 0;
	}
}

static bool btf_is_signed(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = type_of(kt, id);

	if (!t)
		return false;
	if (btf_kind(t) == BTF_KIND_INT)
		return (*(const uint32_t *)(t + 1) >> 24) & 1;
	if (btf_kind(t) == BTF_KIND_ENUM || btf_kind(t) == BTF_KIND_ENUM64)
		return btf_kflag(t);
	return false;
}

static const char *kind_keyword(unsigned kind)
{
	switch (kind) {
	case BTF_KIND_STRUCT: return "struct ";
	case BTF_KIND_UNION: return "union ";
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: return "enum ";
	case BTF_KIND_FWD: return "struct ";
	default: return "";
	}
}

static void add_type_name(const struct ktypes *kt, ktype_id id, struct strbuf *sb, int depth)
{
	const struct btf_type *t = type_of(kt, id);

	if (!t) {
		sb_add(sb, "void");
		return;
	}
	if (depth > 32) {
		sb_add(sb, "?");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		add_type_name(kt, t->size_or_type, sb, depth + 1);
		sb_addc(sb, '*');
		return;
	case BTF_KIND_ARRAY:
		add_type_name(kt, btf_target(kt, id), sb, depth + 1);
		sb_addf(sb, "[%u]", ((const struct btf_array *)(t + 1))->nelems);
		return;
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		/* stap's (DWARF's) order: the qualifier after the type, "char const*". */
		add_type_name(kt, t->size_or_type, sb, depth + 1);
		sb_add(sb, btf_kind(t) == BTF_KIND_CONST ? " const" :
			   btf_kind(t) == BTF_KIND_VOLATILE ? " volatile" : "");
		return;
	case BTF_KIND_FUNC_PROTO:
		sb_add(sb, "func");
		return;
	default:
		sb_add(sb, kind_keyword(btf_kind(t)));
		sb_add(sb, t->name_off ? btf_str(btf_of(kt), t->name_off) : "{...}");
	}
}

static void btf_add_name(const struct ktypes *kt, ktype_id id, struct strbuf *sb)
{
	add_type_name(kt, id, sb, 0);
}

static const struct btf_type *composite(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = type_of(kt, id);

	return t && (btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION) ? t : NULL;
}

static int btf_nmembers(const struct ktypes *kt, ktype_id id)
{
	const struct btf_type *t = composite(kt, id);

	return t ? (int)btf_vlen(t) : 0;
}

static void btf_member_at(const struct ktypes *kt, ktype_id id, int index, struct kmember *m)
{
	const struct btf_type *t = composite(kt, id);
	const struct btf_member *bm = (const struct btf_member *)(t + 1) + index;

	m->name = btf_str(btf_of(kt), bm->name_off);
	m->type = bm->type;
	m->bit_offset = btf_kflag(t) ? bm->offset & 0xffffff : bm->offset;
	m->bit_size = btf_kflag(t) ? bm->offset >> 24 : 0;
}

static const char *btf_enum_name(const struct ktypes *kt, ktype_id id, int64_t value)
{
	const struct btf_type *t = type_of(kt, id);

	if (t && btf_kind(t) == BTF_KIND_ENUM) {
		const struct btf_enum *e = (const struct btf_enum *)(t + 1);

		for (unsigned i = 0; i < btf_vlen(t); i++)
			if (e[i].val == value || (uint32_t)e[i].val == value)
				return btf_str(btf_of(kt), e[i].name_off);
	}
	if (t && btf_kind(t) == BTF_KIND_ENUM64) {
		const struct btf_enum64 *e = (const struct btf_enum64 *)(t + 1);

		for (unsigned i = 0; i < btf_vlen(t); i++)
			if ((int64_t)((uint64_t)e[i].val_hi32 << 32 | e[i].val_lo32) == value)
				return btf_str(btf_of(kt), e[i].name_off);
	}
	return NULL;
}

static ktype_id btf_function(const struct ktypes *kt, const char *name)
{
	const struct btf *b = btf_of(kt);
	uint32_t id = table_find(b, &b->functions, name, NULL, NULL);

	return id ? b->types[id]->size_or_type : 0;
}

static const struct btf_param *proto_params(const struct ktypes *kt, ktype_id proto, int *n)
{
	const struct btf_type *t = type_of(kt, proto);

	if (!t || btf_kind(t) != BTF_KIND_FUNC_PROTO) {
		*n = 0;
		return NULL;
	}
	*n = (int)btf_vlen(t);
	/* A variadic function ends with a nameless void parameter. */
	if (*n > 0 && !((const struct btf_param *)(t + 1))[*n - 1].type)
		(*n)--;
	return (const struct btf_param *)(t + 1);
}

static ktype_id btf_return_type(const struct ktypes *kt, ktype_id proto)
{
	const struct btf_type *t = type_of(kt, proto);

	return t ? t->size_or_type : 0;
}

static int btf_nparams(const struct ktypes *kt, ktype_id proto)
{
	int n;

	proto_params(kt, proto, &n);
	return n;
}

static const char *btf_param_name(const struct ktypes *kt, ktype_id proto, int index)
{
	int n;
	const struct btf_param *p = proto_params(kt, proto, &n);

	return index < n ? btf_str(btf_of(kt), p[index].name_off) : "";
}

static ktype_id btf_param_type(const struct ktypes *kt, ktype_id proto, int index)
{
	int n;
	const struct btf_param *p = proto_params(kt, proto, &n);

	return index < n ? p[index].type : 0;
}

static bool kind_is(const struct btf_type *t, void *kind)
{
	unsigned want = *(unsigned *)kind;

	return btf_kind(t) == want || (want == BTF_KIND_ENUM && btf_kind(t) == BTF_KIND_ENUM64);
}

static ktype_id btf_pointer_to(const struct ktypes *kt, ktype_id id)
{
	const struct btf *b = btf_of(kt);

	for (uint32_t i = 1; i < b->ntypes; i++)
		if (btf_kind(b->types[i]) == BTF_KIND_PTR && b->types[i]->size_or_type == id)
			return i;
	return 0;
}

static ktype_id btf_find_named(const struct ktypes *kt, const char *name)
{
	static const struct { const char *prefix; unsigned kind; } keywords[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	static const unsigned bare_kinds[] = { BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_FLOAT,
					       BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_ENUM };
	const struct btf *b = btf_of(kt);
	ktype_id id = 0;

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		size_t plen = strlen(keywords[i].prefix);
		unsigned kind = keywords[i].kind;

		if (!strncmp(name, keywords[i].prefix, plen))
			return table_find(b, &b->named, name + plen, kind_is, &kind);
	}
	for (size_t i = 0; !id && i < sizeof(bare_kinds) / sizeof(bare_kinds[0]); i++) {
		unsigned kind = bare_kinds[i];

		id = table_find(b, &b->named, name, kind_is, &kind);
	}
	return id;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct names of the types of `kind` that begin with `prefix`, sorted. */
static const char **names_with_prefix(const struct ktypes *kt, unsigned kind,
				      const char *prefix, size_t *count)
{
	const struct btf *b = btf_of(kt);
	size_t len = strlen(prefix), n = 0, kept = 0;
	const char **names = NULL;

	for (uint32_t id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = b->types[id];
		const char *name = btf_str(b, t->name_off);

		if (btf_kind(t) != kind || strncmp(name, prefix, len))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = name;
	}
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	for (size_t i = 0; i < n; i++)
		if (!kept || strcmp(names[kept - 1], names[i]))
			names[kept++] = names[i];
	*count = kept;
	return names;
}

static const char **btf_typedef_names(const struct ktypes *kt, const char *prefix,
				      size_t *count)
{
	return names_with_prefix(kt, BTF_KIND_TYPEDEF, prefix, count);
}

static const char **btf_function_names(const struct ktypes *kt, const char *prefix,
				       size_t *count)
{
	return names_with_prefix(kt, BTF_KIND_FUNC, prefix, count);
}

static const struct ktypes_ops btf_ops = {
	.name = "BTF",
	.kind = btf_kind_of,
	.target = btf_target,
	.size = btf_size,
	.is_signed = btf_is_signed,
	.array_len = btf_array_len,
	.nmembers = btf_nmembers,
	.member_at = btf_member_at,
	.enum_name = btf_enum_name,
	.add_name = btf_add_name,
	.function = btf_function,
	.return_type = btf_return_type,
	.nparams = btf_nparams,
	.param_name = btf_param_name,
	.param_type = btf_param_type,
	.typedef_names = btf_typedef_names,
	.function_names = btf_function_names,
	.find_named = btf_find_named,
	.pointer_to = btf_pointer_to,
};
