// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktypes.h's questions, answered by the backend that read the types (ktypes_backend.h:
 * btf.c or dwtypes.c), and the choice of that backend for the kernel and its modules.
 */
#include "target/ktypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/debuginfo.h"
#include "target/dwtypes.h"
#include "target/ktypes_backend.h"
#include "session.h"
#include "util.h"

/* ---- Which backend ---- */

/* The kernel's DWARF types, or NULL when its debuginfo is not there. */
static const struct ktypes *load_dwarf(const struct session *s)
{
	const struct debuginfo *di = debuginfo_kernel(s);
	struct dwtypes *dw = di ? dwtypes_open(di) : NULL;

	if (!dw)
		return NULL;
	if (s->verbose > 1)
		fprintf(stderr, "Kernel types from DWARF: %s\n", debuginfo_path(di));
	return dwtypes_types(dw);
}

const struct ktypes *ktypes_load(const struct session *s)
{
	static const struct ktypes *loaded;
	static bool tried;

	if (!tried) {
		tried = true;
		loaded = load_dwarf(s);
		if (!loaded)
			loaded = ktypes_load_btf(s);
	}
	return loaded;
}

/* Module `name`'s DWARF types where the kernel's are DWARF and its debuginfo is found;
 * else NULL (its split BTF serves). */
static const struct ktypes *load_module_dwarf(const struct session *s, const char *name)
{
	const struct ktypes *kernel = ktypes_load(s);
	char *path = !strchr(name, '/') && kernel && ktypes_dwarf(kernel) ?
		     debuginfo_module_path(s, name) : NULL;
	struct dwtypes *dw = path ? dwtypes_open_module(path) : NULL;

	if (dw && s->verbose > 1)
		fprintf(stderr, "Types of module %s from DWARF: %s\n", name, path);
	free(path);
	return dw ? dwtypes_types(dw) : NULL;
}

struct loaded_module {
	char *name;
	const struct ktypes *types;	/* NULL: it has none */
	char *error;
};

const struct ktypes *ktypes_load_module(const struct session *s, const char *name,
					const char *modules_dir, const char **error)
{
	static struct loaded_module *loaded;
	static size_t nloaded;
	const struct ktypes *kt;
	struct loaded_module *m;

	for (size_t i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].name, name)) {
			*error = loaded[i].error;
			return loaded[i].types;
		}
	kt = load_module_dwarf(s, name);
	if (!kt && !ktypes_load_btf(s)) {
		*error = "the kernel's types are not known";
		return NULL;
	}
	loaded = xrealloc(loaded, (nloaded + 1) * sizeof(*loaded));
	m = &loaded[nloaded++];
	*m = (struct loaded_module){ .name = xstrdup(name), .types = kt };
	if (!kt) {
		m->types = btf_load_module(s, name, modules_dir, &m->error);
		if (!m->types)
			*error = m->error;
	}
	return m->types;
}

const struct ktypes *ktypes_load_user(const char *path)
{
	static struct loaded_module *loaded;
	static size_t nloaded;
	struct dwtypes *dw;

	for (size_t i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].name, path))
			return loaded[i].types;
	dw = dwtypes_open_user(path);
	loaded = xrealloc(loaded, (nloaded + 1) * sizeof(*loaded));
	loaded[nloaded++] = (struct loaded_module){ .name = xstrdup(path),
						    .types = dw ? dwtypes_types(dw) : NULL };
	return loaded[nloaded - 1].types;
}

const char *ktypes_backend(const struct ktypes *kt)
{
	return kt->ops->name;
}

const char *ktypes_source(const struct ktypes *kt)
{
	return kt->source;
}

/* ---- Questions ---- */

enum ktype_kind ktypes_kind(const struct ktypes *kt, ktype_id id)
{
	return kt->ops->kind(kt, id);
}

ktype_id ktypes_target(const struct ktypes *kt, ktype_id id)
{
	return kt->ops->target(kt, id);
}

ktype_id ktypes_strip(const struct ktypes *kt, ktype_id id)
{
	for (int depth = 0; depth < 64; depth++) {
		enum ktype_kind kind = ktypes_kind(kt, id);

		if (kind != KT_TYPEDEF && kind != KT_QUALIFIER)
			return id;
		id = ktypes_target(kt, id);
	}
	return 0;
}

uint32_t ktypes_array_len(const struct ktypes *kt, ktype_id id)
{
	return kt->ops->array_len(kt, ktypes_strip(kt, id));
}

uint32_t ktypes_size(const struct ktypes *kt, ktype_id id)
{
	return kt->ops->size(kt, ktypes_strip(kt, id));
}

bool ktypes_is_signed(const struct ktypes *kt, ktype_id id)
{
	return kt->ops->is_signed(kt, ktypes_strip(kt, id));
}

char *ktypes_name(const struct ktypes *kt, ktype_id id)
{
	struct strbuf sb = { 0 };

	kt->ops->add_name(kt, id, &sb);
	return sb_steal(&sb);
}

int ktypes_nmembers(const struct ktypes *kt, ktype_id id)
{
	return kt->ops->nmembers(kt, ktypes_strip(kt, id));
}

void ktypes_member_at(const struct ktypes *kt, ktype_id id, int index, struct kmember *m)
{
	kt->ops->member_at(kt, ktypes_strip(kt, id), index, m);
}

static bool find_member(const struct ktypes *kt, ktype_id id, const char *name,
			struct kmember *m, int depth)
{
	int n = ktypes_nmembers(kt, id);

	if (depth > 16)
		return false;
	for (int i = 0; i < n; i++) {
		ktypes_member_at(kt, id, i, m);
		if (!strcmp(m->name, name))
			return true;
	}
	for (int i = 0; i < n; i++) {
		struct kmember outer;

		ktypes_member_at(kt, id, i, &outer);
		if (*outer.name || !find_member(kt, outer.type, name, m, depth + 1))
			continue;
		m->bit_offset += outer.bit_offset;
		return true;
	}
	return false;
}

bool ktypes_member(const struct ktypes *kt, ktype_id id, const char *name, struct kmember *m)
{
	return *name && find_member(kt, id, name, m, 0);
}

const char *ktypes_enum_name(const struct ktypes *kt, ktype_id id, int64_t value)
{
	return kt->ops->enum_name(kt, ktypes_strip(kt, id), value);
}

ktype_id ktypes_function(const struct ktypes *kt, const char *name)
{
	return kt->ops->function(kt, name);
}

ktype_id ktypes_return_type(const struct ktypes *kt, ktype_id proto)
{
	return kt->ops->return_type(kt, proto);
}

int ktypes_nparams(const struct ktypes *kt, ktype_id proto)
{
	return kt->ops->nparams(kt, proto);
}

const char *ktypes_param_name(const struct ktypes *kt, ktype_id proto, int index)
{
	return kt->ops->param_name(kt, proto, index);
}

ktype_id ktypes_param_type(const struct ktypes *kt, ktype_id proto, int index)
{
	return kt->ops->param_type(kt, proto, index);
}

const char **ktypes_typedef_names(const struct ktypes *kt, const char *prefix, size_t *count)
{
	return kt->ops->typedef_names(kt, prefix, count);
}

const char **ktypes_function_names(const struct ktypes *kt, const char *prefix, size_t *count)
{
	return kt->ops->function_names(kt, prefix, count);
}

ktype_id ktypes_find(const struct ktypes *kt, const char *name)
{
	size_t len = strlen(name);
	char *bare;
	ktype_id id;

	while (len && name[len - 1] == ' ')
		len--;
	bare = xstrndup(name, len && name[len - 1] == '*' ? len - 1 : len);
	if (len && name[len - 1] == '*') {
		id = ktypes_find(kt, bare);
		id = id ? kt->ops->pointer_to(kt, id) : 0;
	} else {
		id = kt->ops->find_named(kt, bare);
	}
	free(bare);
	return id;
}
