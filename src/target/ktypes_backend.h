/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a source of types gives ktypes.c, which answers ktypes.h's questions through it: a
 * table of functions. btf.c (BTF) and dwtypes.c (DWARF) each fill one; a backend's own
 * struct begins with the `struct ktypes` that the passes are handed.
 */
#ifndef TAPSTER_KTYPES_BACKEND_H
#define TAPSTER_KTYPES_BACKEND_H

#include "target/ktypes.h"

struct strbuf;

struct ktypes_ops {
	const char *name;	/* "BTF", "DWARF" */
	enum ktype_kind (*kind)(const struct ktypes *kt, ktype_id id);
	ktype_id (*target)(const struct ktypes *kt, ktype_id id);
	/* These are asked of a type without its typedefs and qualifiers (ktypes_strip). */
	uint32_t (*size)(const struct ktypes *kt, ktype_id id);
	bool (*is_signed)(const struct ktypes *kt, ktype_id id);
	uint32_t (*array_len)(const struct ktypes *kt, ktype_id id);
	int (*nmembers)(const struct ktypes *kt, ktype_id id);
	void (*member_at)(const struct ktypes *kt, ktype_id id, int index, struct kmember *m);
	const char *(*enum_name)(const struct ktypes *kt, ktype_id id, int64_t value);
	/* As ktypes.h's functions of the same names. */
	void (*add_name)(const struct ktypes *kt, ktype_id id, struct strbuf *sb);
	ktype_id (*function)(const struct ktypes *kt, const char *name);
	ktype_id (*return_type)(const struct ktypes *kt, ktype_id proto);
	int (*nparams)(const struct ktypes *kt, ktype_id proto);
	const char *(*param_name)(const struct ktypes *kt, ktype_id proto, int index);
	ktype_id (*param_type)(const struct ktypes *kt, ktype_id proto, int index);
	const char **(*typedef_names)(const struct ktypes *kt, const char *prefix, size_t *count);
	const char **(*function_names)(const struct ktypes *kt, const char *prefix,
				       size_t *count);
	/* A type named as ktypes_find names it, without a trailing '*'; 0 when none. */
	ktype_id (*find_named)(const struct ktypes *kt, const char *name);
	/* A pointer type to `id` (not 0), or 0 when the types hold none. */
	ktype_id (*pointer_to)(const struct ktypes *kt, ktype_id id);
};

struct ktypes {
	const struct ktypes_ops *ops;
	char *source;		/* the file they were read from */
};

/* The split BTF of the target's module `name` over the kernel's BTF (ktypes_load_module
 * when its DWARF is not at hand); NULL with *error set to why (malloc'd). */
const struct ktypes *btf_load_module(const struct session *s, const char *name,
				     const char *modules_dir, char **error);

#endif
