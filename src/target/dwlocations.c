// SPDX-License-Identifier: GPL-2.0-or-later
/* The DWARF backend's variables and their locations (dwtypes.h): the variables visible at a
 * pc, their DWARF locations as expressions over the probe's registers (frame base, CFA),
 * and the source-position questions (prologue end, inline chains, statements at a pc). */
#define _GNU_SOURCE
#include "target/dwtypes.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/dwtypes_private.h"
#include "util.h"

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

	if (!dwtypes_entry_of(function, &entry))
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

bool dwtypes_var_uses_frame_base(Dwarf_Die *var, Dwarf_Addr pc)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1)
		return false;
	for (size_t i = 0; i < nops; i++)
		if (ops[i].atom == DW_OP_fbreg)
			return true;
	return false;
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

/* ---- Source positions ---- */

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
