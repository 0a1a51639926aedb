/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DWARF backend of ktypes.h (dwtypes.c): the target kernel's types read with libdw
 * from its debuginfo (debuginfo.h). It answers ktypes.h's questions through its table of
 * functions (ktypes_backend.h); this header is the rest: locals, locations, globals.
 * The variables visible at a pc, their locations and the source-position questions
 * (prologue end, inline chains, the statement at a pc) are dwlocations.c's.
 *
 * A type id is the offset of its DIE in .debug_info; ids with a non-zero top nibble are
 * made up for what DWARF has no DIE for: DWT_PTR | id, a pointer to id (@cast's "T*"),
 * and k << 28 | id (k of 1..7), the array id without its first k dimensions. A function's
 * prototype is its DW_TAG_subprogram DIE (a subroutine type's is its own).
 *
 * A function is found through the ELF symbol table and .debug_aranges (dwarf_addrdie),
 * never by reading every CU; the index of named types (@cast, and a struct that a CU only
 * declares) is built on first need from the CUs' top-level DIEs.
 */
#ifndef TAPSTER_DWTYPES_H
#define TAPSTER_DWTYPES_H

#include <elfutils/libdw.h>

#include "target/ktypes.h"

struct debuginfo;
struct dwtypes;

#define DWT_PTR 0x80000000u

/* NULL when the debuginfo's .debug_info is too large for 28-bit offsets. */
struct dwtypes *dwtypes_open(const struct debuginfo *di);
/* A module's debuginfo (a relocatable .ko, relocated by libdwfl as it is read); its
 * functions are found by name in its CUs. NULL when it can't be read. */
struct dwtypes *dwtypes_open_module(const char *path);
/* A user-space ELF file's DWARF (a program or a shared library, its separate debuginfo
 * found as libdwfl finds it): a global's address is its link-time one moved by the load
 * bias (DWX_USER_ADDRESS); NULL when it has no DWARF. */
struct dwtypes *dwtypes_open_user(const char *path);

/* The types as the passes ask about them (ktypes.h). */
const struct ktypes *dwtypes_types(struct dwtypes *dt);

/* For probes inside a function: the DIE of a type id, and the function's DIE (its
 * DW_TAG_subprogram, for the scopes and variables visible at a pc). */
bool dwtypes_die(struct dwtypes *dt, ktype_id id, Dwarf_Die *die);
Dwarf *dwtypes_dwarf(struct dwtypes *dt);

/* A function's probe address as stap reports it: its entry, after the 5-byte __fentry__
 * call (or the nop that replaced it) when it begins with one. */
Dwarf_Addr dwtypes_probe_pc(struct dwtypes *dt, Dwarf_Die *function);

/* A variable or parameter visible at a pc. */
struct dwvar {
	const char *name;
	Dwarf_Die die;
	bool is_param;
};

/*
 * The parameters and variables visible at `pc` in `scope` (a DW_TAG_subprogram or a
 * DW_TAG_inlined_subroutine DIE): its own and those of its lexical blocks that hold `pc`,
 * outer first, each in DIE order, an inner name hiding an outer one. The count; *vars is
 * malloc'd. This is what a probe anywhere in a function or an inlined instance asks.
 */
size_t dwtypes_scope_vars(struct dwtypes *dt, Dwarf_Die *scope, Dwarf_Addr pc,
			  struct dwvar **vars);

/* The type of a variable's or parameter's DIE. */
ktype_id dwtypes_var_type(Dwarf_Die *var);
/* "fs/read_write.c:451:1": the source line of `pc` in the line table; malloc'd, or NULL. */
char *dwtypes_pc_source(struct dwtypes *dt, Dwarf_Addr pc);
/* Where the address `pc` is in the DWARF: the start of its line-table row (stap's
 * "beginning of a statement"), and the innermost function or inlined instance holding it. */
struct dwstatement {
	Dwarf_Addr row;
	uint64_t scope;		/* its DIE's offset */
	const char *function;	/* its name, the DWARF's */
};
/* False when no function of the DWARF holds `pc` (or no row of its line table). */
bool dwtypes_statement_at(struct dwtypes *dt, Dwarf_Addr pc, struct dwstatement *at);

/* " inlined by CALLER at FILE:LINE:COLUMN" for the inlined instance `scope` at `pc` (and
 * on, for each instance it is inlined in), as stap's "not accessible" error says; "" for a
 * function. Malloc'd. */
char *dwtypes_inline_chain(Dwarf_Die *scope, Dwarf_Addr pc);
/* "FILE:LINE": where the function `name` is declared, as stap names a function placed
 * from DWARF (f@FILE:LINE); malloc'd, or NULL when the DWARF has no such function. */
char *dwtypes_function_place(struct dwtypes *dt, const char *name);
/* Where stap probes the function `name` of a user-space file (its -p2 pc): past its
 * prologue, at the second line-table row of its code when that is past its entry (its
 * first statement), in code built without optimisation (no -O level but -O0 in its CU's
 * DW_AT_producer; optimised code's parameters have their locations at the entry), or in
 * any code with `always` (--prologue-searching=always); else 0 (the entry serves). */
Dwarf_Addr dwtypes_post_prologue(struct dwtypes *dt, const char *name, bool always);
/* The same for the out-of-line function whose DIE is at offset `die`. */
Dwarf_Addr dwtypes_prologue_end(struct dwtypes *dt, uint64_t die, bool always);
Elf *dwtypes_elf(struct dwtypes *dt);
/* The link-time address of the ELF symbol `name` (a function's, else a data object's);
 * 0 when there is none. */
Dwarf_Addr dwtypes_symbol(struct dwtypes *dt, const char *name, bool function);
/*
 * Where a variable is, as an expression over the probe's registers; every value is an
 * int64_t. Pass 2 writes it as C (resolve/target_location.c).
 */
enum dwexpr_kind {
	DWX_REGISTER,		/* the register of DWARF number `value` (below DWX_NREGISTERS) */
	DWX_LITERAL,		/* `value`, of DW_OP_lit* */
	DWX_UNSIGNED,		/* `value`, of DW_OP_const*u */
	DWX_SIGNED,		/* (int64_t)`value`, of DW_OP_const*s */
	DWX_OFFSET,		/* a + (int64_t)`value` (DW_OP_breg*, DW_OP_fbreg) */
	DWX_UNSIGNED_OFFSET,	/* a + `value` (DW_OP_plus_uconst) */
	DWX_OPERATION,		/* a OP b, OP the DWARF operation `value`: DW_OP_plus, minus,
				 * and, or, xor, mul, eq ... ne, shl, shr (logical), shra */
	DWX_DEREF,		/* the `value` bytes (1-8) at the address a, read fault-safe */
	DWX_PER_CPU,		/* this CPU's copy of the per-CPU variable at offset `value` */
	DWX_KERNEL_ADDRESS,	/* the kernel's link-time address `value`, moved by KASLR's
				 * offset: `anchor`'s address less its link-time one,
				 * `anchor_value` */
	DWX_USER_ADDRESS,	/* a user-space file's link-time address `value`, moved by
				 * the load bias of the file the probe is in */
};

#define DWX_NREGISTERS 16	/* x86_64's general registers, DWARF 0-15 */

struct dwexpr {
	enum dwexpr_kind kind;
	struct dwexpr *a, *b;
	uint64_t value;
	const char *anchor;	/* DWX_KERNEL_ADDRESS: an exported function the module links */
	uint64_t anchor_value;
};

void dwexpr_free(struct dwexpr *e);

/* The kernel's link-time address `addr` at run time (a per-CPU variable's offset, below
 * the kernel's map, is this CPU's copy). NULL when there is no function to measure KASLR's
 * offset with, or for a module's types (where it is loaded is not known). */
struct dwexpr *dwtypes_address(struct dwtypes *dt, Dwarf_Addr addr);
/* The kernel's global variable `name`, in the CU whose source file matches the glob `file`
 * when not NULL: its DIE and its link-time address (its DW_OP_addr, else its symbol's: a
 * per-CPU variable's is its offset in the per-CPU area); 0 when it has neither. */
bool dwtypes_global(struct dwtypes *dt, const char *name, const char *file, Dwarf_Die *var,
		    Dwarf_Addr *addr);

enum dwloc {
	DWLOC_ADDRESS,		/* *expr: the variable's address */
	DWLOC_VALUE,		/* *expr: its value (a register, DW_OP_stack_value) */
	DWLOC_NONE,		/* no location at pc; *detail: the ranges where it has one
				 * ("[0x..,0x..], ...", "" for none) */
	DWLOC_UNSUPPORTED,	/* *detail: what can't be translated ("DW_OP_entry_value") */
};

/*
 * Where the variable (or parameter) `var` is at `pc`. Location lists are picked by pc; the
 * frame base is the CFA from .debug_frame (DW_OP_call_frame_cfa) of `function`, the
 * DW_TAG_subprogram whose frame holds `var` (for a variable of an inlined instance, the
 * out-of-line function it is inlined into: its DW_AT_frame_base applies). *expr (free it
 * with dwexpr_free) or *detail (malloc'd) is set.
 */
/* Whether the location of `var` at `pc` is relative to the frame base (DW_OP_fbreg). */
bool dwtypes_var_uses_frame_base(Dwarf_Die *var, Dwarf_Addr pc);
enum dwloc dwtypes_var_location(struct dwtypes *dt, Dwarf_Die *function, Dwarf_Die *var,
				Dwarf_Addr pc, struct dwexpr **expr, char **detail);

#endif
