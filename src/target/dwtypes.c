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
#include "target/ktypes_backend.h"
#include "target/name_table.h"
#include "util.h"

#define OFFSET_MASK 0x0fffffffu
#define SKIP_SHIFT 28

struct dwtypes {
	struct ktypes kt;	/* first: the passes see this */
	Dwarf *dwarf;
	Elf *elf;
	const struct debuginfo *di;	/* the kernel's; NULL for a module */
	struct name_table functions;	/* FUNC (tag 0) and OBJECT (tag 1) symbols: name ->
					 * address */
	bool functions_built;
	struct name_table types;	/* named types of the CUs' top level: name -> DIE */
	bool types_built;		/* every CU is in `types` */
	Dwarf_Off next_cu;		/* the first CU not yet in `types` */
	bool relocatable;	/* a module: its functions are found in its CUs by name */
	bool user;		/* a user-space ELF file's: its addresses move by the load
				 * bias of the process that maps it */
	struct name_table cu_functions;	/* a module's: name -> the DIE of its code */
	bool cu_functions_built;
};

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

/* A function's entry: its low pc, or where its first range begins (a function split
 * into hot and cold parts). */
static bool entry_of(Dwarf_Die *function, Dwarf_Addr *entry)
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

		if (dwarf_tag(&child) == DW_TAG_subprogram && entry_of(&child, &low) &&
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

/* ---- Variables and their locations ---- */

static bool text_bytes(struct dwtypes *dt, Dwarf_Addr addr, unsigned char *out, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(dt->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
		    !(shdr.sh_flags & SHF_EXECINSTR) || addr < shdr.sh_addr ||
		    addr + len > shdr.sh_addr + shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || addr - shdr.sh_addr + len > data->d_size)
			return false;
		memcpy(out, (const char *)data->d_buf + (addr - shdr.sh_addr), len);
		return true;
	}
	return false;
}

Dwarf_Addr dwtypes_probe_pc(struct dwtypes *dt, Dwarf_Die *function)
{
	static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned char code[5];
	Dwarf_Addr entry;

	if (!entry_of(function, &entry))
		return 0;
	if (text_bytes(dt, entry, code, sizeof(code)) &&
	    (code[0] == 0xe8 || !memcmp(code, nop5, sizeof(nop5))))
		return entry + 5;
	return entry;
}

static bool holds_pc(Dwarf_Die *die, Dwarf_Addr pc)
{
	return dwarf_haspc(die, pc) == 1;
}

static void add_var(struct dwvar **vars, size_t *count, Dwarf_Die *die, bool is_param)
{
	Dwarf_Attribute attr;
	/* An inlined instance's variables have their names in their abstract origins. */
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));

	if (!name)
		return;
	for (size_t i = 0; i < *count; i++)
		if (!strcmp((*vars)[i].name, name)) {
			/* An inner declaration hides the outer one. */
			(*vars)[i] = (struct dwvar){ name, *die, is_param };
			return;
		}
	*vars = xrealloc(*vars, (*count + 1) * sizeof(**vars));
	(*vars)[(*count)++] = (struct dwvar){ name, *die, is_param };
}

static void scope_vars(Dwarf_Die *scope, Dwarf_Addr pc, struct dwvar **vars, size_t *count,
		       int depth)
{
	Dwarf_Die child;

	if (depth > 32 || dwarf_child(scope, &child))
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_formal_parameter:
			add_var(vars, count, &child, true);
			break;
		case DW_TAG_variable:
			add_var(vars, count, &child, false);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	/* Then the blocks that hold pc: their names hide these. */
	dwarf_child(scope, &child);
	do {
		if (dwarf_tag(&child) == DW_TAG_lexical_block && holds_pc(&child, pc))
			scope_vars(&child, pc, vars, count, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

size_t dwtypes_scope_vars(struct dwtypes *dt, Dwarf_Die *scope, Dwarf_Addr pc,
			  struct dwvar **vars)
{
	size_t count = 0;

	(void)dt;
	*vars = NULL;
	scope_vars(scope, pc, vars, &count, 0);
	return count;
}

static struct dwexpr *new_expr(enum dwexpr_kind kind, struct dwexpr *a, struct dwexpr *b,
			       uint64_t value)
{
	struct dwexpr *e = xcalloc(1, sizeof(*e));

	*e = (struct dwexpr){ .kind = kind, .a = a, .b = b, .value = value };
	return e;
}

void dwexpr_free(struct dwexpr *e)
{
	if (!e)
		return;
	dwexpr_free(e->a);
	dwexpr_free(e->b);
	free(e);
}

static const char *op_name(unsigned atom)
{
	switch (atom) {
	case DW_OP_deref: return "DW_OP_deref";
	case DW_OP_entry_value: case DW_OP_GNU_entry_value: return "DW_OP_entry_value";
	case DW_OP_implicit_value: return "DW_OP_implicit_value";
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		return "DW_OP_implicit_pointer";
	case DW_OP_piece: return "DW_OP_piece";
	case DW_OP_bit_piece: return "DW_OP_bit_piece";
	case DW_OP_GNU_parameter_ref: return "DW_OP_GNU_parameter_ref";
	case DW_OP_addr: return "DW_OP_addr";
	default: return NULL;
	}
}

struct loc_stack {
	struct dwexpr *items[8];
	int depth;
	bool is_value;		/* the result is a value, not an address */
	char *error;
};

static void loc_push(struct loc_stack *st, struct dwexpr *expr)
{
	if (st->depth == 8) {
		dwexpr_free(expr);
		if (!st->error)
			st->error = xstrdup("a location expression this deep");
		return;
	}
	st->items[st->depth++] = expr;
}

static struct dwexpr *loc_pop(struct loc_stack *st)
{
	if (!st->depth) {
		if (!st->error)
			st->error = xstrdup("a location expression that pops an empty stack");
		return new_expr(DWX_LITERAL, NULL, NULL, 0);
	}
	return st->items[--st->depth];
}

static bool frame_cfa(struct dwtypes *dt, Dwarf_Addr pc, struct loc_stack *st);

struct dwexpr *dwtypes_address(struct dwtypes *dt, Dwarf_Addr addr)
{
	const char *anchor_name = "_printk";
	Dwarf_Addr anchor;
	struct dwexpr *e;

	if (dt->user)
		return new_expr(DWX_USER_ADDRESS, NULL, NULL, addr);
	if (dt->relocatable)
		return NULL;	/* a module's: where it is loaded is not known here */
	anchor = dwtypes_symbol(dt, anchor_name, true);
	if (addr < 0xffffffff80000000ULL)
		return new_expr(DWX_PER_CPU, NULL, NULL, addr);
	if (!anchor) {
		anchor_name = "printk";
		anchor = dwtypes_symbol(dt, anchor_name, true);
	}
	if (!anchor)
		return NULL;
	e = new_expr(DWX_KERNEL_ADDRESS, NULL, NULL, addr);
	e->anchor = anchor_name;
	e->anchor_value = anchor;
	return e;
}

/* One operation of a location expression, on the stack `st` (st->error: it cannot). */
static void loc_op(struct dwtypes *dt, const Dwarf_Op *op, Dwarf_Die *function, Dwarf_Addr pc,
		   struct loc_stack *st);

static void frame_base(struct dwtypes *dt, Dwarf_Die *function, Dwarf_Addr pc,
		       struct loc_stack *st)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(function, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1) {
		st->error = xstrdup("a frame base that tapster cannot find");
		return;
	}
	for (size_t i = 0; i < nops && !st->error; i++) {
		if (ops[i].atom == DW_OP_call_frame_cfa)
			frame_cfa(dt, pc, st);
		else
			loc_op(dt, &ops[i], function, pc, st);
	}
	st->is_value = false;
}

/* The frame at `pc` from .debug_frame, else (a user program's) .eh_frame; NULL without. */
static Dwarf_Frame *frame_at(struct dwtypes *dt, Dwarf_Addr pc)
{
	Dwarf_CFI *cfi = dwarf_getcfi(dt->dwarf);
	Dwarf_Frame *frame;

	if (cfi && !dwarf_cfi_addrframe(cfi, pc, &frame))
		return frame;
	cfi = dt->elf ? dwarf_getcfi_elf(dt->elf) : NULL;
	if (cfi && !dwarf_cfi_addrframe(cfi, pc, &frame))
		return frame;
	return NULL;
}

static bool frame_cfa(struct dwtypes *dt, Dwarf_Addr pc, struct loc_stack *st)
{
	Dwarf_Frame *frame = frame_at(dt, pc);
	Dwarf_Op *ops;
	size_t nops;

	if (!frame || dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 || (ops[0].atom != DW_OP_bregx &&
			  (ops[0].atom < DW_OP_breg0 || ops[0].atom > DW_OP_breg31))) {
		st->error = xstrdup("DW_OP_call_frame_cfa");
		return false;
	}
	loc_op(dt, &ops[0], NULL, pc, st);
	return true;
}

/* DW_OP_plus ... DW_OP_shra: of the two values on the stack. */
static void loc_binary(struct loc_stack *st, unsigned atom)
{
	struct dwexpr *b = loc_pop(st), *a = loc_pop(st);

	loc_push(st, new_expr(DWX_OPERATION, a, b, atom));
}

static void loc_register(struct loc_stack *st, unsigned reg, int64_t offset, bool is_value)
{
	if (reg >= DWX_NREGISTERS) {
		if (!st->error)
			st->error = xasprintf("DWARF register %u", reg);
		return;
	}
	struct dwexpr *value = new_expr(DWX_REGISTER, NULL, NULL, reg);

	if (is_value) {
		loc_push(st, value);
		st->is_value = true;
		return;
	}
	loc_push(st, new_expr(DWX_OFFSET, value, NULL, (uint64_t)offset));
}

static bool is_binary(unsigned atom)
{
	return atom == DW_OP_plus || atom == DW_OP_minus || atom == DW_OP_and ||
	       atom == DW_OP_or || (atom >= DW_OP_eq && atom <= DW_OP_ne) || atom == DW_OP_xor ||
	       atom == DW_OP_mul || atom == DW_OP_shl || atom == DW_OP_shr || atom == DW_OP_shra;
}

static void loc_op(struct dwtypes *dt, const Dwarf_Op *op, Dwarf_Die *function, Dwarf_Addr pc,
		   struct loc_stack *st)
{
	unsigned atom = op->atom;

	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
		loc_register(st, atom - DW_OP_reg0, 0, true);
	else if (atom == DW_OP_regx)
		loc_register(st, (unsigned)op->number, 0, true);
	else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
		loc_register(st, atom - DW_OP_breg0, (int64_t)op->number, false);
	else if (atom == DW_OP_bregx)
		loc_register(st, (unsigned)op->number, (int64_t)op->number2, false);
	else if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31)
		loc_push(st, new_expr(DWX_LITERAL, NULL, NULL, atom - DW_OP_lit0));
	else if (atom == DW_OP_const1u || atom == DW_OP_const2u || atom == DW_OP_const4u ||
		 atom == DW_OP_const8u || atom == DW_OP_constu)
		loc_push(st, new_expr(DWX_UNSIGNED, NULL, NULL, op->number));
	else if (atom == DW_OP_const1s || atom == DW_OP_const2s || atom == DW_OP_const4s ||
		 atom == DW_OP_const8s || atom == DW_OP_consts)
		loc_push(st, new_expr(DWX_SIGNED, NULL, NULL, op->number));
	else if (atom == DW_OP_plus_uconst) {
		loc_push(st, new_expr(DWX_UNSIGNED_OFFSET, loc_pop(st), NULL, op->number));
	} else if (atom == DW_OP_fbreg && function) {
		frame_base(dt, function, pc, st);
		if (!st->error)
			loc_push(st, new_expr(DWX_OFFSET, loc_pop(st), NULL, op->number));
	} else if (atom == DW_OP_call_frame_cfa) {
		frame_cfa(dt, pc, st);
	} else if (is_binary(atom)) {
		loc_binary(st, atom);
	} else if (atom == DW_OP_deref || atom == DW_OP_deref_size) {
		/* A fault-safe read (translate_target.c checks for the fault). */
		struct dwexpr *a = loc_pop(st);
		unsigned size = atom == DW_OP_deref ? 8 : (unsigned)op->number;

		if (size < 1 || size > 8) {
			if (!st->error)
				st->error = xasprintf("DW_OP_deref_size %u", size);
			dwexpr_free(a);
		} else {
			loc_push(st, new_expr(DWX_DEREF, a, NULL, size));
		}
	} else if (atom == DW_OP_addr) {
		struct dwexpr *expr = dwtypes_address(dt, op->number);

		if (expr)
			loc_push(st, expr);
		else if (!st->error)
			st->error = xstrdup("DW_OP_addr");
	} else if (atom == DW_OP_stack_value) {
		st->is_value = true;
	} else if (!st->error) {
		const char *name = op_name(atom);

		st->error = name ? xstrdup(name) : xasprintf("DWARF operation %#x", atom);
	}
}

/* "[0x..,0x..], [...]": where the variable has a location. */
static char *location_ranges(Dwarf_Attribute *attr)
{
	struct strbuf sb = { 0 };
	ptrdiff_t offset = 0;
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr;
	size_t len;

	sb_add(&sb, "");
	while ((offset = dwarf_getlocations(attr, offset, &base, &start, &end, &expr, &len)) > 0)
		sb_addf(&sb, "%s[%#llx,%#llx]", sb.len ? ", " : "", (unsigned long long)start,
			(unsigned long long)end);
	return sb_steal(&sb);
}

enum dwloc dwtypes_var_location(struct dwtypes *dt, Dwarf_Die *function, Dwarf_Die *var,
				Dwarf_Addr pc, struct dwexpr **expr, char **detail)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	struct loc_stack st = { 0 };

	*expr = NULL;
	*detail = NULL;
	if (!dwarf_attr(var, DW_AT_location, &attr) &&
	    dwarf_attr(var, DW_AT_const_value, &attr)) {
		/* A value the compiler knew there (a parameter of an inlined instance called
		 * with a constant): the value itself. */
		Dwarf_Sword value;

		if (dwarf_formsdata(&attr, &value) == 0) {
			*expr = new_expr(DWX_SIGNED, NULL, NULL, (uint64_t)value);
			return DWLOC_VALUE;
		}
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		*detail = xstrdup("");
		return DWLOC_NONE;
	}
	if (dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1 || !nops) {
		*detail = location_ranges(&attr);
		return DWLOC_NONE;
	}
	for (size_t i = 0; i < nops && !st.error; i++) {
		if (ops[i].atom == DW_OP_piece && i == nops - 1 && i > 0)
			break;	/* one piece: the whole variable */
		loc_op(dt, &ops[i], function, pc, &st);
	}
	if (!st.error && st.depth != 1)
		st.error = xstrdup("a location expression that leaves no single result");
	if (st.error) {
		while (st.depth)
			dwexpr_free(st.items[--st.depth]);
		*detail = st.error;
		return DWLOC_UNSUPPORTED;
	}
	*expr = st.items[0];
	return st.is_value ? DWLOC_VALUE : DWLOC_ADDRESS;
}

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

/* Whether the CU was compiled without optimisation: no -O option in its producer but -O0. */
static bool cu_unoptimised(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &attr));

	if (!producer)
		return false;
	for (const char *o = strstr(producer, " -O"); o; o = strstr(o + 3, " -O"))
		if (o[3] != '0')
			return false;
	return true;
}

Dwarf_Addr dwtypes_prologue_end(struct dwtypes *dt, uint64_t die, bool always)
{
	Dwarf_Addr entry, high, addr;
	Dwarf_Die fn, cu;
	Dwarf_Lines *lines;
	size_t nlines, rows = 0;

	if (!dwarf_offdie(dt->dwarf, die, &fn) || dwarf_lowpc(&fn, &entry) ||
	    dwarf_highpc(&fn, &high) || !dwarf_diecu(&fn, &cu, NULL, NULL) ||
	    (!always && !cu_unoptimised(&cu)) || dwarf_getsrclines(&cu, &lines, &nlines))
		return 0;
	/* The function's second row: past the entry's when the prologue has code, else at
	 * the entry too (optimised code's several rows there: no prologue). */
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &addr) || addr < entry || addr >= high || ++rows < 2)
			continue;
		return addr > entry ? addr : 0;
	}
	return 0;
}

Dwarf_Addr dwtypes_post_prologue(struct dwtypes *dt, const char *name, bool always)
{
	ktype_id id = ktypes_function(&dt->kt, name);

	return id ? dwtypes_prologue_end(dt, id, always) : 0;
}

Elf *dwtypes_elf(struct dwtypes *dt)
{
	return dt->elf;
}

/* The name of the function or inlined instance `die` (through its abstract origin). */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* Where the inlined instance `die` was called: "FILE:LINE:COLUMN" of its DW_AT_call_*. */
static char *call_site(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word file = 0, line = 0, column = 0;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nfiles;
	const char *name = NULL;

	dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file);
	dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line);
	dwarf_formudata(dwarf_attr(die, DW_AT_call_column, &attr), &column);
	if (dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 &&
	    file < nfiles)
		name = dwarf_filesrc(files, file, NULL, NULL);
	return xasprintf("%s:%llu:%llu", name ? name : "?", (unsigned long long)line,
			 (unsigned long long)column);
}

/* The abstract origin of an inlined instance, or 0. */
static Dwarf_Off origin_of(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	return dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attr), &origin) ?
	       dwarf_dieoffset(&origin) : 0;
}

/* The scopes out from the instance of `scope`'s function that holds `pc` (two instances
 * of one call site may share an entry, the first without code: stap names the one with
 * code there), else out from `scope`; their count, *scopes malloc'd. */
static int instance_scopes(Dwarf_Die *scope, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	Dwarf_Off origin = origin_of(scope);
	Dwarf_Die cu, instance = *scope, *at = NULL;
	int n;

	/* libdw's scopes at a pc go on from an instance to its abstract definition's: the
	 * instance found there, its own scopes then. */
	if (dwarf_diecu(scope, &cu, NULL, NULL) && (n = dwarf_getscopes(&cu, pc, &at)) > 0)
		for (int i = 0; i < n; i++)
			if (dwarf_tag(&at[i]) == DW_TAG_inlined_subroutine &&
			    origin_of(&at[i]) == origin) {
				instance = at[i];
				break;
			}
	free(at);
	*scopes = NULL;
	return dwarf_getscopes_die(&instance, scopes);
}

char *dwtypes_inline_chain(Dwarf_Die *scope, Dwarf_Addr pc)
{
	struct strbuf sb = { 0 };
	Dwarf_Die *scopes = NULL;
	int n = dwarf_tag(scope) == DW_TAG_inlined_subroutine ?
		instance_scopes(scope, pc, &scopes) : 0;

	/* scopes[0] is the instance; each instance's caller is the next function or
	 * instance out. */
	for (int i = 0; i < n && dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine;) {
		int caller = i + 1;
		char *site;

		while (caller < n && dwarf_tag(&scopes[caller]) != DW_TAG_subprogram &&
		       dwarf_tag(&scopes[caller]) != DW_TAG_inlined_subroutine)
			caller++;
		if (caller == n || !scope_name(&scopes[caller]))
			break;
		site = call_site(&scopes[i]);
		sb_addf(&sb, " inlined by %s at %s", scope_name(&scopes[caller]), site);
		free(site);
		i = caller;
	}
	free(scopes);
	return sb.buf ? sb_steal(&sb) : xstrdup("");
}

char *dwtypes_pc_source(struct dwtypes *dt, Dwarf_Addr pc)
{
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *file;
	int lineno = 0, column = 0;

	if (!dwarf_addrdie(dt->dwarf, pc, &cu) || !(line = dwarf_getsrc_die(&cu, pc)) ||
	    !(file = dwarf_linesrc(line, NULL, NULL)))
		return NULL;
	dwarf_lineno(line, &lineno);
	dwarf_linecol(line, &column);
	return xasprintf("%s:%d:%d", file, lineno, column);
}

bool dwtypes_statement_at(struct dwtypes *dt, Dwarf_Addr pc, struct dwstatement *at)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *line;
	int n;

	*at = (struct dwstatement){ 0 };
	if (!dwarf_addrdie(dt->dwarf, pc, &cu) || !(line = dwarf_getsrc_die(&cu, pc)) ||
	    dwarf_lineaddr(line, &at->row))
		return false;
	n = dwarf_getscopes(&cu, pc, &scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			at->scope = dwarf_dieoffset(&scopes[i]);
			at->function = dwarf_diename(&scopes[i]);
			break;
		}
	}
	free(scopes);
	return at->scope != 0;
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
