/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target kernel's types: a function's parameters and return type, a type's fields
 * (offsets, bitfields, arrays, pointers, unions, enums), typedefs. Pass 2 resolves $target
 * expressions through it; pass 3 only reads what pass 2 worked out.
 *
 * Two backends, chosen per target: DWARF (dwtypes.c, libdw) when debuginfo_kernel() finds
 * the target's debuginfo, else BTF (btf.c), from /sys/kernel/btf/vmlinux when the target
 * is the running kernel, else from the `.BTF` section of the target's image (the bundled
 * VM's vmlinuz, decompressed), cached in the VM kit; a module's from its own split BTF over
 * the kernel's BTF (its type ids go on from the kernel's: a kernel type id means the same
 * in both). An id means something only to the `struct ktypes` that gave it. ktypes.c
 * answers through the backend's table of functions (ktypes_backend.h).
 *
 * A type is a number (ktype_id); 0 is void.
 */
#ifndef TAPSTER_KTYPES_H
#define TAPSTER_KTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct ktypes;

typedef uint32_t ktype_id;

enum ktype_kind {
	KT_VOID,
	KT_INT,		/* char, int, long, _Bool ... */
	KT_PTR,
	KT_ARRAY,
	KT_STRUCT,
	KT_UNION,
	KT_ENUM,
	KT_TYPEDEF,
	KT_QUALIFIER,	/* const, volatile, restrict, a type tag */
	KT_FUNC_PROTO,
	KT_FWD,		/* struct foo; declared, never defined */
	KT_FLOAT,
	KT_OTHER,
};

/* A field of a struct or union: its byte offset and, for a bitfield, its bits. */
struct kmember {
	const char *name;	/* "" for an anonymous struct or union member */
	ktype_id type;
	uint32_t bit_offset;	/* from the start of the outer type */
	uint32_t bit_size;	/* 0: not a bitfield */
};

/* The target's types, loaded once (later calls return the same): its DWARF where its
 * debuginfo is found, else its BTF; NULL after printing an "ERROR: ..." line. */
const struct ktypes *ktypes_load(const struct session *s);
/* The target's BTF alone (tracepoints are described by BTF typedefs; modules' split BTF
 * goes on from it). */
const struct ktypes *ktypes_load_btf(const struct session *s);
/* The types of the target's module `name`: its split BTF (the types it adds to the
 * kernel's, which it sees too), from /sys/kernel/btf/NAME when the target is the running
 * kernel and has it loaded, else the `.BTF` section of its file (.ko or .ko.xz) that
 * MODULES_DIR/modules.dep lists, kept in TAPSTER_DIR/module-btf/KVER/NAME.btf; a `name`
 * with a '/' is a module's file, read as it is. Loaded once; NULL with *error set to why. */
const struct ktypes *ktypes_load_module(const struct session *s, const char *name,
					const char *modules_dir, const char **error);
/* The DWARF types of the user-space ELF file `path` (a program or a shared library, as the
 * host sees it), for $target expressions in its process("PATH").function probes and
 * @cast(p, "type", "PATH"). Loaded once a file; NULL when it has no DWARF. */
const struct ktypes *ktypes_load_user(const char *path);
/* The types the headers `headers` ("<linux/fs.h><linux/sched.h>") declare: kernel headers
 * of the target compiled by its kbuild, or (`kernel` false) user headers by the host's gcc
 * (header_types.c); kept in TAPSTER_DIR/header-types. Loaded once a list; NULL (after the
 * compiler's output) when they do not compile. */
const struct ktypes *ktypes_load_headers(const struct session *s, const char *headers,
					 bool kernel);
/* What they were read from: "BTF" or "DWARF", and the file. */
const char *ktypes_backend(const struct ktypes *kt);
const char *ktypes_source(const struct ktypes *kt);
/* The DWARF backend's own view (dwtypes.h: locals, locations), NULL for BTF types. */
struct dwtypes *ktypes_dwarf(const struct ktypes *kt);

enum ktype_kind ktypes_kind(const struct ktypes *kt, ktype_id id);
/* The type without its typedefs and qualifiers. */
ktype_id ktypes_strip(const struct ktypes *kt, ktype_id id);
/* The pointed-to type of a pointer, the element of an array, the type a typedef or
 * qualifier names; 0 otherwise. */
ktype_id ktypes_target(const struct ktypes *kt, ktype_id id);
/* The size in bytes of a (stripped) type; 0 for void, functions, incomplete types. */
uint32_t ktypes_size(const struct ktypes *kt, ktype_id id);
bool ktypes_is_signed(const struct ktypes *kt, ktype_id id);	/* an integer or enum */
uint32_t ktypes_array_len(const struct ktypes *kt, ktype_id id);
/* The type's name as C writes it: "int", "struct file*", "char[16]". Always malloc'd. */
char *ktypes_name(const struct ktypes *kt, ktype_id id);

/* A struct or union's fields, in order (anonymous members not flattened). */
int ktypes_nmembers(const struct ktypes *kt, ktype_id id);
void ktypes_member_at(const struct ktypes *kt, ktype_id id, int index, struct kmember *m);
/* The field `name` of a struct or union, looking through anonymous members (its offset
 * then counts from `id`'s start); false when there is none. */
bool ktypes_member(const struct ktypes *kt, ktype_id id, const char *name, struct kmember *m);
/* An enum's constant of `value`, or NULL. */
const char *ktypes_enum_name(const struct ktypes *kt, ktype_id id, int64_t value);

/* The function `name`: its prototype (KT_FUNC_PROTO); 0 when the types don't know it. */
ktype_id ktypes_function(const struct ktypes *kt, const char *name);
/* A prototype's return type and parameters. */
ktype_id ktypes_return_type(const struct ktypes *kt, ktype_id proto);
int ktypes_nparams(const struct ktypes *kt, ktype_id proto);
const char *ktypes_param_name(const struct ktypes *kt, ktype_id proto, int index);
ktype_id ktypes_param_type(const struct ktypes *kt, ktype_id proto, int index);

/* The names of the typedefs / functions that begin with `prefix`, sorted, each once; the
 * array is malloc'd, the names are the types' own. */
const char **ktypes_typedef_names(const struct ktypes *kt, const char *prefix, size_t *count);
const char **ktypes_function_names(const struct ktypes *kt, const char *prefix, size_t *count);

/* A type named as @cast names it: "struct task_struct", "union x", "enum y", a typedef's
 * or a base type's name (`struct` may be left out when no typedef has the name); 0 when
 * there is none. A trailing "*" makes it a pointer to that (only if the types hold one). */
ktype_id ktypes_find(const struct ktypes *kt, const char *name);

#endif
