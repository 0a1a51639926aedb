// SPDX-License-Identifier: GPL-2.0-or-later
/* The DWARF backend of ktypes.h (dwtypes.h): the kernel's types read with libdw. */
#define _GNU_SOURCE
#include "target/dwtypes.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/debuginfo.h"
#include "target/dwpoints.h"
#include "target/dwtypes_private.h"
#include "target/ktypes_backend.h"
#include "target/name_table.h"
#include "util.h"

#define OFFSET_MASK 0x0fffffffu
#define SKIP_SHIFT 28

static const struct ktypes_ops dwarf_ops;

/* The DWARF types behind `kt`; their indexes grow as questions need them, under the
 * passes' const view. */
static struct dwtypes *dwarf_of(const struct ktypes *kt)
{
	return (struct dwtypes *)kt;
}

struct dwtypes *ktypes_dwarf(const struct ktypes *kt)
{
	return kt->ops == &dwarf_ops ? dwarf_of(kt) : NULL;
}

const struct ktypes *dwtypes_types(struct dwtypes *dt)
{
	return &dt->kt;
}

/* ---- Name tables ---- */

/* Adds `name` unless it is there with `tag` already (the first one stays). */
static void index_add(struct name_table *ix, const char *name, int tag, uint64_t value)
{
	if (!name_table_find(ix, name, tag))
		name_table_add(ix, name, tag, value);
}

/* The FUNC symbols of the debuginfo's symbol table. */
static void build_functions(struct dwtypes *dt)
{
	Elf_Scn *scn = NULL;

	dt->functions_built = true;
	while ((scn = elf_nextscn(dt->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_value ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_OBJECT))
				continue;
			name = elf_strptr(dt->elf, shdr.sh_link, sym.st_name);
			if (name && *name)
				index_add(&dt->functions, name,
					  GELF_ST_TYPE(sym.st_info) == STT_FUNC ? 0 : 1, sym.st_value);
		}
	}
}

static bool is_indexed_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef ||
	       tag == DW_TAG_base_type;
}

/* A variable DIE's tag in the index: a declaration (extern) is kept apart. */
#define DECLARED_VARIABLE (DW_TAG_variable | 0x10000)

/* Indexes the named types (not declarations) and variables at the top level of the next
 * CU, the first of each name and tag; false when every CU is in. The index grows CU by
 * CU, as far as a question needs (the common types are in the first CUs). */
static bool index_next_cu(struct dwtypes *dt)
{
	Dwarf_Off offset = dt->next_cu, next;
	size_t header_size;

	if (dt->types_built)
		return false;
	if (dwarf_next_unit(dt->dwarf, offset, &next, &header_size, NULL, NULL, NULL, NULL,
			    NULL, NULL) != 0) {
		dt->types_built = true;
		return false;
	}
	dt->next_cu = next;
	{
		Dwarf_Die cu, child;

		if (dwarf_offdie(dt->dwarf, offset + header_size, &cu) &&
		    dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				const char *name;

				if (tag == DW_TAG_variable && (name = dwarf_diename(&child))) {
					index_add(&dt->types, name,
						  dwarf_hasattr(&child, DW_AT_location) ?
						  tag : DECLARED_VARIABLE, dwarf_dieoffset(&child));
					continue;
				}
				if (!is_indexed_tag(tag) || dwarf_hasattr(&child, DW_AT_declaration) ||
				    !(name = dwarf_diename(&child)))
					continue;
				index_add(&dt->types, name, tag, dwarf_dieoffset(&child));
			} while (dwarf_siblingof(&child, &child) == 0);
		}
	}
	return true;
}

static void build_types(struct dwtypes *dt)
{
	while (index_next_cu(dt))
		;
}

/* The first of `tags` (in their order) that `name` has in the CUs indexed when one of
 * them is first found. */
static const struct name_entry *find_type_of(struct dwtypes *dt, const char *name,
					     const int *tags, size_t ntags)
{
	do {
		for (size_t i = 0; i < ntags; i++) {
			const struct name_entry *e = name_table_find(&dt->types, name, tags[i]);

			if (e)
				return e;
		}
	} while (index_next_cu(dt));
	return NULL;
}

static const struct name_entry *find_type(struct dwtypes *dt, const char *name, int tag)
{
	return find_type_of(dt, name, &tag, 1);
}

/* ---- DIEs of ids ---- */

struct dwtypes *dwtypes_open(const struct debuginfo *di)
{
	struct dwtypes *dt;
	Elf_Scn *scn = NULL;

	/* The ids keep four bits for made-up types: .debug_info must be under 256 MiB. */
	while ((scn = elf_nextscn(debuginfo_elf(di), scn))) {
		GElf_Shdr shdr;
		size_t shstrndx;
		const char *name;

		if (gelf_getshdr(scn, &shdr) && elf_getshdrstrndx(debuginfo_elf(di), &shstrndx) == 0 &&
		    (name = elf_strptr(debuginfo_elf(di), shstrndx, shdr.sh_name)) &&
		    !strcmp(name, ".debug_info") && shdr.sh_size > OFFSET_MASK)
			return NULL;
	}
	dt = xcalloc(1, sizeof(*dt));
	dt->kt.ops = &dwarf_ops;
	dt->kt.source = xstrdup(debuginfo_path(di));
	dt->dwarf = debuginfo_dwarf(di);
	dt->elf = debuginfo_elf(di);
	dt->di = di;
	return dt;
}

struct dwtypes *dwtypes_open_module(const char *path)
{
	static const Dwfl_Callbacks offline = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&offline);
	Dwfl_Module *module;
	Dwarf_Addr bias;
	struct dwtypes *dt;
	Dwarf *dwarf;
	Elf *elf;

	if (!dwfl)
		return NULL;
	module = dwfl_report_offline(dwfl, "module", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!module || !(dwarf = dwfl_module_getdwarf(module, &bias)) ||
	    !(elf = dwfl_module_getelf(module, &bias))) {
		dwfl_end(dwfl);
		return NULL;
	}
	dt = xcalloc(1, sizeof(*dt));
	dt->kt.ops = &dwarf_ops;
	dt->kt.source = xstrdup(path);
	dt->dwarf = dwarf;
	dt->elf = elf;
	dt->relocatable = true;
	return dt;	/* the Dwfl lives as long as the types */
}

struct dwtypes *dwtypes_open_user(const char *path)
{
	struct dwtypes *dt = dwtypes_open_module(path);

	if (dt)
		dt->user = true;
	return dt;
}

/* A module's functions: the subprograms with code at its CUs' top level, by name (the
 * first of a name). Made once: a lookup walked every CU (module tracepoints look up each of
 * a module's __bpf_trace_ functions for each of its tracepoints). */
static void build_cu_functions(struct dwtypes *dt)
{
	Dwarf_Off offset = 0, next;
	size_t header_size;

	dt->cu_functions_built = true;
	while (dwarf_next_unit(dt->dwarf, offset, &next, &header_size, NULL, NULL, NULL, NULL,
			       NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dt->dwarf, offset + header_size, &cu) &&
		    dwarf_child(&cu, &child) == 0) {
			do {
				const char *fn_name;
				Dwarf_Attribute name;
				Dwarf_Addr entry, base, end;

				/* A concrete copy names its function through its
				 * abstract origin. One without code (tag 1) serves
				 * for its types when there is none with code: the
				 * DWARF of a module's __bpf_trace_ functions has
				 * their prototypes only. */
				if (dwarf_tag(&child) != DW_TAG_subprogram ||
				    dwarf_hasattr(&child, DW_AT_declaration) ||
				    !(fn_name = dwarf_formstring(dwarf_attr_integrate(
					    &child, DW_AT_name, &name))))
					continue;
				index_add(&dt->cu_functions, fn_name,
					  dwarf_lowpc(&child, &entry) == 0 ||
					  dwarf_ranges(&child, 0, &base, &entry, &end) > 0 ?
					  0 : 1, dwarf_dieoffset(&child));
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		offset = next;
	}
}

/* A module's function `name`: the subprogram with code of that name in its CUs. */
static ktype_id function_in_cus(struct dwtypes *dt, const char *name)
{
	const struct name_entry *fn;

	if (!dt->cu_functions_built)
		build_cu_functions(dt);
	fn = name_table_find(&dt->cu_functions, name, 0);
	if (!fn)
		fn = name_table_find(&dt->cu_functions, name, 1);
	return fn ? (ktype_id)fn->value : 0;
}

Dwarf *dwtypes_dwarf(struct dwtypes *dt)
{
	return dt->dwarf;
}

Elf *dwtypes_elf(struct dwtypes *dt)
{
	return dt->elf;
}

static bool is_declared_only(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type || tag == DW_TAG_class_type;
}

/* The DIE of a plain id; a struct, union or enum that its CU only declares is its
 * definition from another CU where there is one. */
bool dwtypes_die(struct dwtypes *dt, ktype_id id, Dwarf_Die *die)
{
	const struct name_entry *def;
	const char *name;
	int tag;

	if (!id || id > OFFSET_MASK || !dwarf_offdie(dt->dwarf, id, die))
		return false;
	tag = dwarf_tag(die);
	if (is_declared_only(tag) && dwarf_hasattr(die, DW_AT_declaration) &&
	    (name = dwarf_diename(die)) &&
	    (def = find_type(dt, name, tag == DW_TAG_class_type ? DW_TAG_structure_type : tag)))
		return dwarf_offdie(dt->dwarf, def->value, die) != NULL;
	return true;
}

/* The id of the type that `die`'s DW_AT_type names; 0 (void) without one. */
static ktype_id type_attr(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &type))
		return 0;
	return (ktype_id)dwarf_dieoffset(&type);
}

static uint64_t udata_attr(Dwarf_Die *die, int name, uint64_t otherwise)
{
	Dwarf_Attribute attr;
	Dwarf_Word value;

	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &value))
		return otherwise;
	return value;
}

static unsigned skipped_dims(ktype_id id)
{
	return id & DWT_PTR ? 0 : id >> SKIP_SHIFT;
}

/* The `index`th subrange of an array DIE. */
static bool subrange(Dwarf_Die *array, unsigned index, Dwarf_Die *range)
{
	if (dwarf_child(array, range))
		return false;
	do {
		if (dwarf_tag(range) == DW_TAG_subrange_type && index-- == 0)
			return true;
	} while (dwarf_siblingof(range, range) == 0);
	return false;
}

/* ---- Questions ---- */

static enum ktype_kind kind_of_die(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		return udata_attr(die, DW_AT_encoding, 0) == DW_ATE_float ? KT_FLOAT : KT_INT;
	case DW_TAG_pointer_type: case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: return KT_PTR;
	case DW_TAG_array_type: return KT_ARRAY;
	/* One a CU only declares too: its definition elsewhere answers the rest (BTF has the
	 * one definition), and looking it up is left to the questions that need it. */
	case DW_TAG_structure_type: case DW_TAG_class_type: return KT_STRUCT;
	case DW_TAG_union_type: return KT_UNION;
	case DW_TAG_enumeration_type: return KT_ENUM;
	case DW_TAG_typedef: return KT_TYPEDEF;
	case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: return KT_QUALIFIER;
	case DW_TAG_subroutine_type: case DW_TAG_subprogram: return KT_FUNC_PROTO;
	default: return KT_OTHER;
	}
}

static enum ktype_kind dw_kind(const struct ktypes *kt, ktype_id id)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die;

	if (id & DWT_PTR)
		return KT_PTR;
	if (skipped_dims(id))
		return KT_ARRAY;
	return id && dwarf_offdie(dt->dwarf, id, &die) ? kind_of_die(&die) : KT_VOID;
}

static ktype_id dw_target(const struct ktypes *kt, ktype_id id)
{
	struct dwtypes *dt = dwarf_of(kt);
	unsigned skip = skipped_dims(id);
	Dwarf_Die die, range;

	if (id & DWT_PTR)
		return id & OFFSET_MASK;
	if (!dwtypes_die(dt, id & OFFSET_MASK, &die))
		return 0;
	switch (kind_of_die(&die)) {
	case KT_ARRAY:
		if (skip < 7 && subrange(&die, skip + 1, &range))
			return (ktype_id)(skip + 1) << SKIP_SHIFT | (id & OFFSET_MASK);
		return type_attr(&die);
	case KT_PTR: case KT_TYPEDEF: case KT_QUALIFIER:
		return type_attr(&die);
	default:
		return 0;
	}
}

static uint32_t dw_array_len(const struct ktypes *kt, ktype_id id)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die, range;
	uint64_t count;

	if (dw_kind(kt, id) != KT_ARRAY || !dwtypes_die(dt, id & OFFSET_MASK, &die) ||
	    !subrange(&die, skipped_dims(id), &range))
		return 0;
	count = udata_attr(&range, DW_AT_count, UINT64_MAX);
	if (count == UINT64_MAX) {
		Dwarf_Attribute attr;
		Dwarf_Sword upper;

		if (!dwarf_attr(&range, DW_AT_upper_bound, &attr) || dwarf_formsdata(&attr, &upper) ||
		    upper < 0)
			return 0;
		count = (uint64_t)upper + 1;
	}
	return count > UINT32_MAX ? 0 : (uint32_t)count;
}

static uint32_t dw_size(const struct ktypes *kt, ktype_id id)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die;

	switch (dw_kind(kt, id)) {
	case KT_PTR:
		return 8;
	case KT_ARRAY: {
		ktype_id elem = dw_target(kt, id);

		while (dw_kind(kt, elem) == KT_TYPEDEF || dw_kind(kt, elem) == KT_QUALIFIER)
			elem = dw_target(kt, elem);
		return dw_array_len(kt, id) * dw_size(kt, elem);
	}
	case KT_INT: case KT_FLOAT: case KT_STRUCT: case KT_UNION: case KT_ENUM:
		if (!dwtypes_die(dt, id, &die))
			return 0;
		return (uint32_t)udata_attr(&die, DW_AT_byte_size, 0);
	default:
		return 0;
	}
}

static bool signed_encoding(uint64_t encoding)
{
	return encoding == DW_ATE_signed || encoding == DW_ATE_signed_char;
}

static bool dw_is_signed(const struct ktypes *kt, ktype_id id)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die, child;
	ktype_id base;

	if (id & ~OFFSET_MASK || !dwtypes_die(dt, id, &die))
		return false;
	if (dwarf_tag(&die) == DW_TAG_base_type)
		return signed_encoding(udata_attr(&die, DW_AT_encoding, 0));
	if (dwarf_tag(&die) != DW_TAG_enumeration_type)
		return false;
	base = type_attr(&die);
	while (base && (dw_kind(kt, base) == KT_TYPEDEF ||
			dw_kind(kt, base) == KT_QUALIFIER))
		base = dw_target(kt, base);
	if (base)
		return dw_is_signed(kt, base);
	/* No underlying type: signed when a constant is negative. */
	if (dwarf_child(&die, &child))
		return false;
	do {
		Dwarf_Attribute attr;
		Dwarf_Sword value;

		if (dwarf_attr(&child, DW_AT_const_value, &attr) &&
		    !dwarf_formsdata(&attr, &value) && value < 0)
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static const char *keyword_of(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type: case DW_TAG_class_type: return "struct ";
	case DW_TAG_union_type: return "union ";
	case DW_TAG_enumeration_type: return "enum ";
	default: return "";
	}
}

static const char *qualifier_of(int tag)
{
	switch (tag) {
	case DW_TAG_const_type: return " const";
	case DW_TAG_volatile_type: return " volatile";
	default: return "";
	}
}

static int dw_nparams(const struct ktypes *kt, ktype_id proto);
static ktype_id dw_return_type(const struct ktypes *kt, ktype_id proto);
static ktype_id dw_param_type(const struct ktypes *kt, ktype_id proto, int index);
static void add_type_name(const struct ktypes *kt, ktype_id id, struct strbuf *sb, int depth);

/* A pointer to a function as stap names it: "int (*) (struct dentry*, void*)". */
static void add_function_pointer_name(const struct ktypes *kt, ktype_id proto,
				      struct strbuf *sb, int depth)
{
	int count = dw_nparams(kt, proto);

	add_type_name(kt, dw_return_type(kt, proto), sb, depth + 1);
	sb_add(sb, " (*) (");
	for (int i = 0; i < count; i++) {
		if (i)
			sb_add(sb, ", ");
		add_type_name(kt, dw_param_type(kt, proto, i), sb, depth + 1);
	}
	sb_addc(sb, ')');
}

/* As btf.c names its types, so that both backends print the same (but a function
 * pointer, which stap spells out from DWARF). */
static void add_type_name(const struct ktypes *kt, ktype_id id, struct strbuf *sb, int depth)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die;
	const char *name;

	if (depth > 32) {
		sb_add(sb, "?");
		return;
	}
	switch (dw_kind(kt, id)) {
	case KT_VOID:
		sb_add(sb, "void");
		return;
	case KT_PTR:
		if (dw_kind(kt, dw_target(kt, id)) == KT_FUNC_PROTO) {
			add_function_pointer_name(kt, dw_target(kt, id), sb, depth);
			return;
		}
		add_type_name(kt, dw_target(kt, id), sb, depth + 1);
		sb_addc(sb, '*');
		return;
	case KT_ARRAY:
		add_type_name(kt, dw_target(kt, id), sb, depth + 1);
		sb_addf(sb, "[%u]", dw_array_len(kt, id));
		return;
	case KT_FUNC_PROTO:
		sb_add(sb, "func");
		return;
	default:
		break;
	}
	dwarf_offdie(dt->dwarf, id, &die);	/* a declaration has its definition's name */
	if (kind_of_die(&die) == KT_QUALIFIER) {
		add_type_name(kt, type_attr(&die), sb, depth + 1);
		sb_add(sb, qualifier_of(dwarf_tag(&die)));
		return;
	}
	name = dwarf_diename(&die);
	sb_add(sb, keyword_of(dwarf_tag(&die)));
	sb_add(sb, name ? name : "{...}");
}

/* The children of `die` tagged `tag`: with index >= 0, the index-th of them in *child and
 * its number from 1 (0: none); with index < 0, how many there are. */
static int nth_child(Dwarf_Die *die, int tag, int index, Dwarf_Die *child)
{
	int count = 0;

	if (dwarf_child(die, child))
		return 0;
	do {
		if (dwarf_tag(child) != tag)
			continue;
		if (count++ == index)
			return count;
	} while (dwarf_siblingof(child, child) == 0);
	return index < 0 ? count : 0;
}
/* The `index`th DW_TAG_member of a struct or union (index -1: counts them). */
static int member_die(const struct ktypes *kt, ktype_id id, int index, Dwarf_Die *member)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die;
	enum ktype_kind kind = dw_kind(kt, id);

	if ((kind != KT_STRUCT && kind != KT_UNION) || !dwtypes_die(dt, id, &die))
		return 0;
	return nth_child(&die, DW_TAG_member, index, member);
}

static int dw_nmembers(const struct ktypes *kt, ktype_id id)
{
	Dwarf_Die member;

	return member_die(kt, id, -1, &member);
}

/* A member's offset in bits from the start of its struct. */
static uint32_t member_bit_offset(Dwarf_Die *member, uint32_t bit_size)
{
	Dwarf_Attribute attr;
	Dwarf_Word bytes = 0;
	uint64_t bits = udata_attr(member, DW_AT_data_bit_offset, UINT64_MAX);

	if (bits != UINT64_MAX)
		return (uint32_t)bits;
	if (dwarf_attr(member, DW_AT_data_member_location, &attr) &&
	    dwarf_formudata(&attr, &bytes))
		bytes = 0;
	bits = bytes * 8;
	if (bit_size && dwarf_hasattr(member, DW_AT_bit_offset)) {
		/* DWARF 2's big-endian view: from the top of the storage unit. */
		uint64_t unit = udata_attr(member, DW_AT_byte_size, 0) * 8;

		bits += unit - udata_attr(member, DW_AT_bit_offset, 0) - bit_size;
	}
	return (uint32_t)bits;
}

static void dw_member_at(const struct ktypes *kt, ktype_id id, int index, struct kmember *m)
{
	Dwarf_Die member;
	const char *name;

	if (!member_die(kt, id, index, &member)) {
		*m = (struct kmember){ "", 0, 0, 0 };
		return;
	}
	name = dwarf_diename(&member);
	m->name = name ? name : "";
	m->type = type_attr(&member);
	m->bit_size = (uint32_t)udata_attr(&member, DW_AT_bit_size, 0);
	m->bit_offset = member_bit_offset(&member, m->bit_size);
}

static const char *dw_enum_name(const struct ktypes *kt, ktype_id id, int64_t value)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die, child;

	if (dw_kind(kt, id) != KT_ENUM || !dwtypes_die(dt, id, &die) ||
	    dwarf_child(&die, &child))
		return NULL;
	do {
		Dwarf_Attribute attr;
		Dwarf_Sword sval;
		Dwarf_Word uval;

		if (dwarf_tag(&child) != DW_TAG_enumerator ||
		    !dwarf_attr(&child, DW_AT_const_value, &attr))
			continue;
		if ((!dwarf_formsdata(&attr, &sval) && sval == value) ||
		    (!dwarf_formudata(&attr, &uval) && (int64_t)uval == value))
			return dwarf_diename(&child);
	} while (dwarf_siblingof(&child, &child) == 0);
	return NULL;
}

bool dwtypes_entry_of(Dwarf_Die *function, Dwarf_Addr *entry)
{
	Dwarf_Addr base, end;

	return dwarf_lowpc(function, entry) == 0 ||
	       dwarf_ranges(function, 0, &base, entry, &end) > 0;
}

/* The subprogram DIE of the CU `cu` whose code starts at `addr`. */
static bool subprogram_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(cu, &child))
		return false;
	do {
		Dwarf_Addr low;

		if (dwarf_tag(&child) == DW_TAG_subprogram && dwtypes_entry_of(&child, &low) &&
		    low == addr) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static ktype_id dw_function(const struct ktypes *kt, const char *name)
{
	struct dwtypes *dt = dwarf_of(kt);
	const struct dwpoints *dp = dt->di ? dwpoints_cached(dt->di) : NULL;
	const struct name_entry *sym;
	Dwarf_Die cu, fn;
	uint64_t die;

	if (dt->relocatable)
		return function_in_cus(dt, name);
	/* The function index, when it is at hand, saves reading the whole symbol table. */
	if (dp)
		return dwpoints_function_die(dp, name, &die) ? (ktype_id)die : 0;
	if (!dt->functions_built)
		build_functions(dt);
	sym = name_table_find(&dt->functions, name, 0);
	if (!sym || !dwarf_addrdie(dt->dwarf, sym->value, &cu) ||
	    !subprogram_at(&cu, sym->value, &fn))
		return 0;
	return (ktype_id)dwarf_dieoffset(&fn);
}

static ktype_id dw_return_type(const struct ktypes *kt, ktype_id proto)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die;

	return dw_kind(kt, proto) == KT_FUNC_PROTO && dwtypes_die(dt, proto, &die) ?
	       type_attr(&die) : 0;
}

/* The `index`th formal parameter of a prototype (index -1: counts them). */
static int param_die(const struct ktypes *kt, ktype_id proto, int index, Dwarf_Die *param)
{
	struct dwtypes *dt = dwarf_of(kt);
	Dwarf_Die die;

	if (dw_kind(kt, proto) != KT_FUNC_PROTO || !dwtypes_die(dt, proto, &die))
		return 0;
	return nth_child(&die, DW_TAG_formal_parameter, index, param);
}

static int dw_nparams(const struct ktypes *kt, ktype_id proto)
{
	Dwarf_Die param;

	return param_die(kt, proto, -1, &param);
}

static const char *dw_param_name(const struct ktypes *kt, ktype_id proto, int index)
{
	Dwarf_Die param;
	const char *name;

	if (!param_die(kt, proto, index, &param))
		return "";
	name = dwarf_diename(&param);
	return name ? name : "";
}

static ktype_id dw_param_type(const struct ktypes *kt, ktype_id proto, int index)
{
	Dwarf_Die param;

	return param_die(kt, proto, index, &param) ? type_attr(&param) : 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **names_in(const struct name_table *ix, int tag, const char *prefix,
			     size_t *count)
{
	size_t len = strlen(prefix), n = 0;
	const char **names = NULL;

	for (size_t i = 0; i < ix->cap; i++) {
		const struct name_entry *e = &ix->entries[i];

		if (!e->name || name_table_tag(ix, e) != tag || strncmp(e->name, prefix, len))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = e->name;
	}
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	*count = n;
	return names;
}

static const char **dw_typedef_names(const struct ktypes *kt, const char *prefix,
				     size_t *count)
{
	struct dwtypes *dt = dwarf_of(kt);

	if (!dt->types_built)
		build_types(dt);
	return names_in(&dt->types, DW_TAG_typedef, prefix, count);
}

static const char **dw_function_names(const struct ktypes *kt, const char *prefix,
				      size_t *count)
{
	struct dwtypes *dt = dwarf_of(kt);

	if (!dt->functions_built)
		build_functions(dt);
	return names_in(&dt->functions, 0, prefix, count);
}

static ktype_id dw_find_named(const struct ktypes *kt, const char *name)
{
	static const struct { const char *prefix; int tag; } keywords[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
	};
	static const int bare_tags[] = { DW_TAG_typedef, DW_TAG_base_type, DW_TAG_structure_type,
					 DW_TAG_union_type, DW_TAG_enumeration_type };
	struct dwtypes *dt = dwarf_of(kt);
	const struct name_entry *e = NULL;

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		size_t plen = strlen(keywords[i].prefix);

		if (!strncmp(name, keywords[i].prefix, plen)) {
			e = find_type(dt, name + plen, keywords[i].tag);
			return e ? (ktype_id)e->value : 0;
		}
	}
	e = find_type_of(dt, name, bare_tags, sizeof(bare_tags) / sizeof(bare_tags[0]));
	return e ? (ktype_id)e->value : 0;
}

static void dw_add_name(const struct ktypes *kt, ktype_id id, struct strbuf *sb)
{
	add_type_name(kt, id, sb, 0);
}

static ktype_id dw_pointer_to(const struct ktypes *kt, ktype_id id)
{
	(void)kt;
	return id & DWT_PTR ? 0 : DWT_PTR | id;
}

static const struct ktypes_ops dwarf_ops = {
	.name = "DWARF",
	.kind = dw_kind,
	.target = dw_target,
	.size = dw_size,
	.is_signed = dw_is_signed,
	.array_len = dw_array_len,
	.nmembers = dw_nmembers,
	.member_at = dw_member_at,
	.enum_name = dw_enum_name,
	.add_name = dw_add_name,
	.function = dw_function,
	.return_type = dw_return_type,
	.nparams = dw_nparams,
	.param_name = dw_param_name,
	.param_type = dw_param_type,
	.typedef_names = dw_typedef_names,
	.function_names = dw_function_names,
	.find_named = dw_find_named,
	.pointer_to = dw_pointer_to,
};

/* ---- Variables' types, functions' places ---- */

ktype_id dwtypes_var_type(Dwarf_Die *var)
{
	return type_attr(var);
}

char *dwtypes_function_place(struct dwtypes *dt, const char *name)
{
	ktype_id id = ktypes_function(&dt->kt, name);
	Dwarf_Die die;
	const char *file;
	int line = 0;

	if (!id || !dwtypes_die(dt, id, &die) || !(file = dwarf_decl_file(&die)) ||
	    dwarf_decl_line(&die, &line))
		return NULL;
	return xasprintf("%s:%d", file, line);
}

/* ---- Globals ---- */

Dwarf_Addr dwtypes_symbol(struct dwtypes *dt, const char *name, bool function)
{
	const struct name_entry *sym;

	if (!dt->functions_built)
		build_functions(dt);
	sym = name_table_find(&dt->functions, name, function ? 0 : 1);
	return sym ? sym->value : 0;
}

/* Whether the CU name `cu` is the file `file` names: a glob over the whole name or over
 * its end after a '/'. */
static bool file_matches(const char *file, const char *cu)
{
	const char *slash;

	if (!fnmatch(file, cu, 0))
		return true;
	for (slash = strchr(cu, '/'); slash; slash = strchr(slash + 1, '/'))
		if (!fnmatch(file, slash + 1, 0))
			return true;
	return false;
}

/* The variable `name` at the top level of a CU whose name matches `file`, one with a
 * location first. */
static bool global_in_file(struct dwtypes *dt, const char *name, const char *file,
			   Dwarf_Die *var)
{
	Dwarf_Off offset = 0, next;
	size_t header_size;
	bool found = false;

	while (dwarf_next_unit(dt->dwarf, offset, &next, &header_size, NULL, NULL, NULL, NULL,
			       NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		const char *cu_name;

		if (dwarf_offdie(dt->dwarf, offset + header_size, &cu) &&
		    (cu_name = dwarf_diename(&cu)) && file_matches(file, cu_name) &&
		    dwarf_child(&cu, &child) == 0) {
			do {
				const char *var_name;

				if (dwarf_tag(&child) != DW_TAG_variable ||
				    !(var_name = dwarf_diename(&child)) || strcmp(var_name, name))
					continue;
				if (dwarf_hasattr(&child, DW_AT_location)) {
					*var = child;
					return true;
				}
				if (!found)
					*var = child;
				found = true;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		offset = next;
	}
	return found;
}

bool dwtypes_global(struct dwtypes *dt, const char *name, const char *file, Dwarf_Die *var,
		    Dwarf_Addr *addr)
{
	const struct name_entry *e;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (file) {
		if (!global_in_file(dt, name, file, var))
			return false;
	} else {
		static const int tags[] = { DW_TAG_variable, DECLARED_VARIABLE };

		if (!(e = find_type_of(dt, name, tags, 2)))
			return false;
		if (!dwarf_offdie(dt->dwarf, e->value, var))
			return false;
	}
	*addr = 0;
	if (dwarf_attr_integrate(var, DW_AT_location, &attr) &&
	    dwarf_getlocation(&attr, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_addr)
		*addr = ops[0].number;
	else
		*addr = dwtypes_symbol(dt, name, false);	/* extern, or linker-defined */
	return true;
}
