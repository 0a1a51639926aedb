// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 of $target expressions and @cast: the access pass 2 worked out (target_vars.h)
 * as fault-safe reads (runtime/kread.h). The address is computed in a temporary, step by
 * step; a fault ends the statement at its error check, as stap's does.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/target_vars.h"
#include "translate/translate.h"

/* The C type of an integer of `size` bytes. */
static const char *int_cast(uint32_t size, bool is_signed)
{
	return size == 1 ? (is_signed ? "s8" : "u8") :
	       size == 2 ? (is_signed ? "s16" : "u16") :
	       size == 4 ? (is_signed ? "s32" : "u32") : "u64";
}

static char *base_value(struct body *b, const struct target_access *a)
{
	const char *cast = int_cast(a->base_size, a->base_signed);

	switch (a->base) {
	case BASE_PARAM:
		return xasprintf("(int64_t)(%s)tap_arg(c, %d, %s)", cast, a->param, a->location);
	case BASE_RETURN:
		return xasprintf("(int64_t)(%s)regs_return_value(c->regs)", cast);
	case BASE_VALUE:
		return gen_expr(b, a->value);
	case BASE_EXPR:
		if (a->lvalue)
			return xasprintf("(int64_t)%s", a->expr);
		return xasprintf("(int64_t)(%s)%s", cast, a->expr);
	case BASE_PER_POINT:
		break;
	}
	return xstrdup("0");
}

static void gen_step(struct body *b, const char *addr, const struct target_step *s,
		     const char *location, bool user)
{
	char *index;

	switch (s->kind) {
	case STEP_LOAD:
		emit(b, "%s = (int64_t)tap_%cread(c, (unsigned long)%s, 8, %s);", addr,
		     user ? 'u' : 'k', addr, location);
		body_check_error(b);
		return;
	case STEP_OFFSET:
		emit(b, "%s = (int64_t)((uint64_t)%s + %" PRId64 "LL);", addr, addr, s->offset);
		return;
	case STEP_INDEX:
		index = gen_expr(b, s->index);
		emit(b, "%s = (int64_t)((uint64_t)%s + (uint64_t)%s * %u);", addr, addr, index,
		     s->scale);
		free(index);
		return;
	}
}

static char *gen_access(struct body *b, const struct target_access *a);

/* One access per point: a switch on the point that fired, each case into one temporary. */
static char *gen_per_point(struct body *b, const struct target_access *a)
{
	char *value = body_temp(b, TYPE_LONG);

	emit(b, "%s = 0;", value);
	emit(b, "switch (c->pp->point) {");
	for (int i = 0; i < a->npoints; i++) {
		char *one;

		emit(b, "case %d: {", i);
		one = gen_access(b, a->per_point[i]);
		emit(b, "%s = %s;", value, one);
		emit(b, "break;");
		emit(b, "}");
		free(one);
	}
	emit(b, "}");
	return value;
}

char *gen_target(struct body *b, struct node *n)
{
	return gen_access(b, n->sym);
}

/* The access's base, then its steps, into a temporary: the address a read or write is at
 * (an lvalue), or the value itself. */
static char *gen_address(struct body *b, const struct target_access *a)
{
	char *addr, *base;

	addr = body_temp(b, TYPE_LONG);
	base = base_value(b, a);

	if (a->base == BASE_EXPR && strstr(a->expr, "tap_dwloc")) {
		/* A DWARF location that reads memory (DW_OP_deref): its faults are reported
		 * at the variable. */
		emit(b, "{");
		emit(b, "const char *tap_dwloc = %s;", a->location);
		emit(b, "%s = %s;", addr, base);
		emit(b, "}");
		body_check_error(b);
	} else {
		emit(b, "%s = %s;", addr, base);
	}
	free(base);
	for (int i = 0; i < a->nsteps; i++)
		gen_step(b, addr, &a->steps[i], a->location, a->user);
	return addr;
}

static char *gen_access(struct body *b, const struct target_access *a)
{
	char kind = a->user ? 'u' : 'k';	/* the process's memory, or the kernel's */
	char *addr, *value;

	if (a->base == BASE_PER_POINT)
		return gen_per_point(b, a);
	addr = gen_address(b, a);
	if (!a->lvalue && a->bit_size) {
		/* A member of a struct held in a register: its bits of the value. */
		emit(b, "%s = tap_bitfield((u64)%s, %u, %u, %s);", addr, addr, a->bit_offset,
		     a->bit_size, a->is_signed ? "true" : "false");
		return addr;
	}
	if (!a->lvalue || a->address_of)
		return addr;
	value = body_temp(b, TYPE_LONG);
	if (a->bit_size)
		emit(b, "%s = tap_%cread_bits(c, (unsigned long)%s, %u, %u, %s, %s);", value,
		     kind, addr, a->bit_offset, a->bit_size, a->is_signed ? "true" : "false",
		     a->location);
	else if (a->is_signed)
		emit(b, "%s = tap_%cread_signed(c, (unsigned long)%s, %u, %s);", value, kind,
		     addr, a->size, a->location);
	else
		emit(b, "%s = (int64_t)tap_%cread(c, (unsigned long)%s, %u, %s);", value, kind,
		     addr, a->size, a->location);
	body_check_error(b);
	free(addr);
	return value;
}

/* ---- Writes (guru mode) ---- */

static void gen_write(struct body *b, const struct target_access *a, const char *value);

static void gen_write_per_point(struct body *b, const struct target_access *a,
				const char *value)
{
	emit(b, "switch (c->pp->point) {");
	for (int i = 0; i < a->npoints; i++) {
		emit(b, "case %d: {", i);
		gen_write(b, a->per_point[i], value);
		emit(b, "break;");
		emit(b, "}");
	}
	emit(b, "}");
}

/* A value held in a register (a parameter at the entry, $return, a DWARF register
 * location): the register the function goes on with, as wide as the type (sign- or
 * zero-extended, as the compiler would pass it); a parameter past the sixth, its stack
 * slot. */
static void gen_write_register(struct body *b, const struct target_access *a,
			       const char *value)
{
	char *narrowed = xasprintf("(u64)(int64_t)(%s)%s",
				   int_cast(a->base_size, a->base_signed), value);

	switch (a->base) {
	case BASE_PARAM:
		emit(b, "tap_set_arg(c, %d, %s, %s);", a->param, narrowed, a->location);
		body_check_error(b);
		break;
	case BASE_RETURN:
		emit(b, "if (c->regs)");
		emit(b, "\tregs_set_return_value(c->regs, (unsigned long)%s);", narrowed);
		break;
	default:
		emit(b, "if (c->regs)");
		emit(b, "\tc->regs->%s = (unsigned long)%s;", a->reg, narrowed);
		break;
	}
	free(narrowed);
}

static void gen_write(struct body *b, const struct target_access *a, const char *value)
{
	char kind = a->user ? 'u' : 'k';	/* the process's memory, or the kernel's */
	char *addr;

	if (a->base == BASE_PER_POINT) {
		gen_write_per_point(b, a, value);
		return;
	}
	if (!a->lvalue && !a->nsteps) {
		gen_write_register(b, a, value);
		return;
	}
	addr = gen_address(b, a);
	if (a->bit_size)
		emit(b, "tap_%cwrite_bits(c, (unsigned long)%s, %u, %u, (u64)%s, %s);", kind,
		     addr, a->bit_offset, a->bit_size, value, a->location);
	else
		emit(b, "tap_%cwrite(c, (unsigned long)%s, %u, (u64)%s, %s);", kind, addr, a->size,
		     value, a->location);
	body_check_error(b);
	free(addr);
}

char *gen_target_write(struct body *b, struct node *n, struct node *value)
{
	char *computed = gen_expr(b, value);
	char *stored = body_temp(b, TYPE_LONG);

	emit(b, "%s = %s;", stored, computed);
	free(computed);
	gen_write(b, n->sym, stored);
	return stored;
}
