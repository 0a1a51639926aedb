// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A DWARF location (dwtypes.h's struct dwexpr) as the C expression of type int64_t that
 * pass 3 puts in the probe handler: over the probe context's registers (`c->regs`, a
 * `struct pt_regs *`), a dereference a fault-safe tap_kread() whose fault the code around
 * it checks (translate_target.c names the variable's location tap_dwloc for it); in a
 * process("PATH").function probe, the process's registers and a fault-safe tap_uread(), a
 * global's address moved by the load bias the uprobe handler found (`c->ubias`).
 */
#include <dwarf.h>
#include <stdlib.h>

#include "resolve/target_vars.h"
#include "target/dwtypes.h"
#include "util.h"

/* pt_regs' member of a DWARF register number (x86_64). */
static const char *register_name(uint64_t reg)
{
	static const char *const names[DWX_NREGISTERS] = {
		"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"
	};

	return names[reg];
}

/* The C of DW_OP_plus ... DW_OP_shra over the C of its operands. */
static char *operation_c(unsigned atom, const char *a, const char *b)
{
	static const char *const relations[] = { "==", ">=", ">", "<=", "<", "!=" };

	switch (atom) {
	case DW_OP_plus: return xasprintf("(%s + %s)", a, b);
	case DW_OP_minus: return xasprintf("(%s - %s)", a, b);
	case DW_OP_and: return xasprintf("(%s & %s)", a, b);
	case DW_OP_or: return xasprintf("(%s | %s)", a, b);
	case DW_OP_xor: return xasprintf("(%s ^ %s)", a, b);
	case DW_OP_mul: return xasprintf("(%s * %s)", a, b);
	/* DW_OP_shr is a logical shift: of the value as unsigned. */
	case DW_OP_shl: return xasprintf("((int64_t)((uint64_t)%s << (%s & 63)))", a, b);
	case DW_OP_shr: return xasprintf("((int64_t)((uint64_t)%s >> (%s & 63)))", a, b);
	case DW_OP_shra: return xasprintf("(%s >> (%s & 63))", a, b);
	default: return xasprintf("((int64_t)(%s %s %s))", a, relations[atom - DW_OP_eq], b);
	}
}

/* The C of a node whose operands' C is `a` and `b` (NULL without); `user`: in a
 * process's registers and memory. */
static char *node_c(const struct dwexpr *e, const char *a, const char *b, bool user)
{
	switch (e->kind) {
	case DWX_REGISTER:
		if (e->value == 7)
			return xstrdup("((int64_t)kernel_stack_pointer(c->regs))");
		return xasprintf("((int64_t)c->regs->%s)", register_name(e->value));
	case DWX_LITERAL: return xasprintf("%lluLL", (unsigned long long)e->value);
	case DWX_UNSIGNED: return xasprintf("((int64_t)%lluULL)", (unsigned long long)e->value);
	case DWX_SIGNED: return xasprintf("(%lldLL)", (long long)(int64_t)e->value);
	case DWX_OFFSET: return xasprintf("(%s + %lldLL)", a, (long long)(int64_t)e->value);
	case DWX_UNSIGNED_OFFSET:
		return xasprintf("(%s + %lluLL)", a, (unsigned long long)e->value);
	case DWX_OPERATION: return operation_c((unsigned)e->value, a, b);
	case DWX_DEREF:
		return xasprintf("((int64_t)tap_%cread(c, (unsigned long)%s, %u, tap_dwloc))",
				 user ? 'u' : 'k', a, (unsigned)e->value);
	case DWX_PER_CPU:
		return xasprintf("((int64_t)(unsigned long)raw_cpu_ptr((void __percpu *)%#llxUL))",
				 (unsigned long long)e->value);
	case DWX_KERNEL_ADDRESS:
		return xasprintf("((int64_t)(%#llxUL + ((unsigned long)&%s - %#llxUL)))",
				 (unsigned long long)e->value, e->anchor,
				 (unsigned long long)e->anchor_value);
	case DWX_USER_ADDRESS:
		return xasprintf("((int64_t)(c->ubias + %#llxUL))", (unsigned long long)e->value);
	}
	return xstrdup("0");
}

char *target_location_c(const struct dwexpr *e, bool user)
{
	char *a = e->a ? target_location_c(e->a, user) : NULL;
	char *b = e->b ? target_location_c(e->b, user) : NULL;
	char *c = node_c(e, a, b, user);

	free(a);
	free(b);
	return c;
}

const char *target_location_register(const struct dwexpr *e)
{
	if (e->kind != DWX_REGISTER || e->value == 7)
		return NULL;
	return register_name(e->value);
}
