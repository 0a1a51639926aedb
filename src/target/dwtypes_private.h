/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the two halves of the DWARF backend share (dwtypes.h is their interface): dwtypes.c
 * (the types: name tables, DIEs of ids, ktypes.h's questions, globals) and dwlocations.c
 * (variables and their locations as expressions, and the source-position questions).
 * Included by those two files only.
 */
#ifndef TAPSTER_DWTYPES_PRIVATE_H
#define TAPSTER_DWTYPES_PRIVATE_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "target/dwtypes.h"
#include "target/ktypes_backend.h"
#include "target/name_table.h"

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

/* A function's entry: its low pc, or where its first range begins (a function split
 * into hot and cold parts). */
bool dwtypes_entry_of(Dwarf_Die *function, Dwarf_Addr *entry);

#endif
