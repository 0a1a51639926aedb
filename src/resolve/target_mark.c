// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * $target expressions in process("PATH").mark("NAME") probes (providers/process.c): $argN
 * from the marker's operands, as <sys/sdt.h> writes them in its note ("-4@%eax",
 * "8@-16(%rbp)", "4@$5", "8@8(%rax,%rdx,8)", "-4@counter(%rip)": the size, negative when signed, then the
 * assembler's operand), and $$name, $$provider and $$parms. An operand becomes a C
 * expression over the user registers the uprobe handler has (BASE_EXPR); one that reads
 * memory reads the process's, fault-safe (runtime/kread.h's tap_uread()). x86_64 only.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "diag.h"
#include "resolve/target_vars.h"
#include "target/usyms.h"
#include "util.h"

bool on_marks(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_UMARK)
			return false;
	return true;
}

int mark_arg_count(const char *args)
{
	int count = 0;

	while (args && *args) {
		args += strspn(args, " \t");
		if (!*args)
			break;
		count++;
		args += strcspn(args, " \t");
	}
	return count;
}

/* The operand `n` (from 1) of `args`, malloc'd; NULL past the last. */
static char *mark_operand(const char *args, int n)
{
	for (int i = 1; *args; i++) {
		size_t len;

		args += strspn(args, " \t");
		len = strcspn(args, " \t");
		if (!len)
			break;
		if (i == n)
			return xstrndup(args, len);
		args += len;
	}
	return NULL;
}

/* An x86_64 register's name (without '%') as the pt_regs value holding it, "" unknown. */
static const char *register_value(const char *name, size_t len)
{
	static const char *const names[][5] = {
		/* pt_regs field, 64, 32, 16, 8 bits */
		{ "ax", "rax", "eax", "ax", "al" }, { "bx", "rbx", "ebx", "bx", "bl" },
		{ "cx", "rcx", "ecx", "cx", "cl" }, { "dx", "rdx", "edx", "dx", "dl" },
		{ "si", "rsi", "esi", "si", "sil" }, { "di", "rdi", "edi", "di", "dil" },
		{ "bp", "rbp", "ebp", "bp", "bpl" }, { "sp", "rsp", "esp", "sp", "spl" },
		{ "ip", "rip", "eip", "ip", "" },
	};
	static const char *const high[] = { "ah", "bh", "ch", "dh" };
	static char r[16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (int w = 1; w < 5; w++)
			if (strlen(names[i][w]) == len && !strncmp(name, names[i][w], len)) {
				snprintf(r, sizeof(r), "%s", names[i][0]);
				return r;
			}
	for (int i = 0; i < 4; i++)
		if (len == 2 && !strncmp(name, high[i], 2)) {
			snprintf(r, sizeof(r), "%cx>>8", high[i][0]);
			return r;
		}
	/* r8..r15 and their r8d, r8w, r8b */
	if (len >= 2 && name[0] == 'r' && isdigit((unsigned char)name[1])) {
		char *end;
		long n = strtol(name + 1, &end, 10);

		if (n >= 8 && n <= 15 && ((size_t)(end - name) == len ||
					  ((size_t)(end - name) == len - 1 && strchr("dwb", *end)))) {
			snprintf(r, sizeof(r), "r%ld", n);
			return r;
		}
	}
	return "";
}

/* "%reg" at *p (advanced past it) as C: "c->regs->ax"; NULL when it is no register. */
static char *parse_register(const char **p)
{
	const char *start = *p + 1;
	size_t len = 0;
	const char *field;

	if (**p != '%')
		return NULL;
	while (isalnum((unsigned char)start[len]))
		len++;
	field = register_value(start, len);
	if (!*field)
		return NULL;
	*p = start + len;
	if (strstr(field, ">>"))
		return xasprintf("(c->regs->%.2s >> 8)", field);
	return xasprintf("c->regs->%s", field);
}

/* A number at *p (advanced past it): decimal, 0x hex, with a sign; false without one. */
static bool parse_number(const char **p, long long *value)
{
	char *end;

	*value = strtoll(*p, &end, 0);
	if (end == *p)
		return false;
	*p = end;
	return true;
}

/* A symbol's name at *p (advanced past it), with its address in the file plus an offset
 * after it ("sym+8"); false when *p names no symbol of the file. */
static bool parse_symbol(const char **p, const struct derived_point *d,
			 unsigned long long *addr)
{
	size_t len = 0;
	long long offset = 0;
	char *name;
	bool found;

	while (isalnum((unsigned char)(*p)[len]) || (*p)[len] == '_' || (*p)[len] == '.')
		len++;
	if (!len || isdigit((unsigned char)**p))
		return false;
	name = xstrndup(*p, len);
	found = usyms_symbol_address(d->symbol, name, addr);
	free(name);
	if (!found)
		return false;
	*p += len;
	if ((**p == '+' || **p == '-') && !parse_number(p, &offset))
		return false;
	*addr += (unsigned long long)offset;
	return true;
}

/* "DISP(%base,%index,scale)", "(%base)", "DISP(%base)", "sym+OFF(%rip)" as C: the address;
 * NULL when the operand is none of those. A symbol's address is the file's, moved as the
 * marker is (the uprobe's ip against the marker's address: a PIE's load address). */
static char *parse_memory(const char *p, const struct derived_point *d)
{
	long long disp = 0, scale = 1;
	unsigned long long sym = 0;
	bool has_sym = false;
	char *base = NULL, *index = NULL, *addr = NULL;

	if (*p != '(' && *p != '-' && !isdigit((unsigned char)*p))
		has_sym = parse_symbol(&p, d, &sym);
	if (!has_sym && *p != '(' && !parse_number(&p, &disp))
		return NULL;
	if (*p == '\0' && has_sym)	/* an absolute symbol */
		return xasprintf("(unsigned long)(0x%llxULL + (c->regs->ip - 0x%llxULL))", sym,
				 (unsigned long long)d->pc);
	if (*p++ != '(')
		return NULL;
	if (*p != ',' && !(base = parse_register(&p)))
		goto out;
	if (*p == ',') {
		p++;
		if (!(index = parse_register(&p)))
			goto out;
		if (*p == ',' && (p++, !parse_number(&p, &scale)))
			goto out;
	}
	if (strcmp(p, ")") || (base && strstr(base, ">>")) || (index && strstr(index, ">>")))
		goto out;
	if (base && !strcmp(base, "c->regs->ip")) {
		if (!has_sym)	/* relative to the next instruction, which is not known */
			goto out;
		free(base);
		base = NULL;
	}
	addr = xasprintf("(unsigned long)(%s%s%s * %lldLL + %lldLL", base ? base : "",
			 base ? " + " : "", index ? index : "0", scale, disp);
	if (has_sym) {
		char *moved = xasprintf("%s + 0x%llxULL + (c->regs->ip - 0x%llxULL))", addr, sym,
					(unsigned long long)d->pc);

		free(addr);
		addr = moved;
	} else {
		char *closed = xasprintf("%s)", addr);

		free(addr);
		addr = closed;
	}
out:
	free(base);
	free(index);
	return addr;
}

/* The access of operand `op` ("-4@%eax"); NULL when tapster cannot read its form. */
static struct target_access *operand_access(const char *op, const struct derived_point *d)
{
	const char *at = strchr(op, '@'), *p;
	struct target_access *a;
	long long size = 8, value;
	char *expr = NULL, *addr;

	if (at) {
		char *end;

		size = strtoll(op, &end, 10);
		if (end != at)
			return NULL;
		p = at + 1;
	} else {
		p = op;
	}
	if (llabs(size) != 1 && llabs(size) != 2 && llabs(size) != 4 && llabs(size) != 8)
		return NULL;
	if (*p == '%') {
		const char *reg = p;

		expr = parse_register(&reg);
		if (expr && *reg) {
			free(expr);
			expr = NULL;
		}
	} else if (*p == '$') {
		p++;
		if (parse_number(&p, &value) && !*p)
			expr = xasprintf("%lldLL", value);
	} else if ((addr = parse_memory(p, d))) {
		expr = xasprintf("tap_uread(c, %s, %lld, tap_dwloc)", addr, llabs(size));
		free(addr);
	}
	if (!expr)
		return NULL;
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_EXPR;
	a->expr = expr;
	a->base_size = (uint32_t)llabs(size);
	a->base_signed = size < 0;
	return a;
}

static bool no_scope(const struct derived_probe *p, struct node *n, bool quiet)
{
	char *name = n->suffix && !n->comps ? xasprintf("%s%s", n->text, n->suffix) :
					      xstrdup(n->text);
	struct token_desc tok = { "identifier", name };

	/* stap looks for the file's DWARF then (also for @defined), and warns of its lack. */
	if (!usyms_has_dwarf(p->points->symbol))
		diag_warning_once("cannot find module %s debuginfo: No DWARF information found"
				  " [man warning::debuginfo]", p->points->symbol);
	if (!quiet) {
		diag_error_at("semantic error", &tok, n->loc,
			      "debuginfo scope not found for module '%s', cannot resolve context"
			      " variable [man error::dwarf]", p->points->symbol);
		/* stap's sdt varuse pass then asks for DWARF, and types it. */
		diag_error_at("semantic error", &tok, n->loc, "target-symbol requires debuginfo");
		target_report_untyped(&tok, n->loc);
	}
	free(name);
	return false;
}

/* $argN's N, 0 for another name. */
static int arg_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "$arg", 4) || !isdigit((unsigned char)name[4]))
		return 0;
	n = strtol(name + 4, &end, 10);
	return *end || n < 1 || n > 1000 ? 0 : (int)n;
}

static bool same_expr(const struct target_access *a, const struct target_access *b)
{
	return a->base_size == b->base_size && a->base_signed == b->base_signed &&
	       !strcmp(a->expr, b->expr);
}

bool mark_target_resolve(struct derived_probe *p, struct node *n, bool quiet)
{
	int argn = arg_number(n->text), npoints = 0;
	struct target_access **all = NULL, *first;
	bool differ = false;

	/* Without DWARF, stap knows the markers' arguments and nothing else. */
	if (!argn || n->comps || n->address_of)
		return no_scope(p, n, quiet);
	for (const struct derived_point *d = p->points; d; d = d->next) {
		char *op = mark_operand(d->mark_args, argn);
		struct target_access *a = op ? operand_access(op, d) : NULL;

		if (op && !a && !quiet) {
			struct token_desc tok = { "identifier", n->text };

			diag_error_at("semantic error", &tok, n->loc,
				      "tapster cannot read the SDT operand '%s' yet", op);
		}
		free(op);
		if (!a) {
			for (int i = 0; i < npoints; i++) {
				free(all[i]->expr);
				free(all[i]);
			}
			free(all);
			return op ? false : no_scope(p, n, quiet);
		}
		a->location = location_literal(n);
		all = xrealloc(all, (size_t)(npoints + 1) * sizeof(*all));
		all[npoints++] = a;
		differ |= !same_expr(all[0], a);
	}
	if (differ) {
		first = xcalloc(1, sizeof(*first));
		first->base = BASE_PER_POINT;
		first->per_point = all;
		first->npoints = npoints;
		first->location = location_literal(n);
	} else {
		first = all[0];
		for (int i = 1; i < npoints; i++) {
			free(all[i]->expr);
			free(all[i]);
		}
		free(all);
	}
	n->sym = first;
	n->type = TYPE_LONG;
	return true;
}

static void make_string(struct node *n, const char *text)
{
	n->kind = N_STRING;
	free(n->text);
	n->text = xstrdup(text);
	n->raw = xstrdup(text);
}

/* $$parms: sprintf("$arg1=%#x $arg2=%#x", $arg1, $arg2), as stap writes it. */
static void expand_parms(struct node *n, int count)
{
	struct strbuf format = { 0 };

	if (!count) {
		make_string(n, "");
		return;
	}
	n->kind = N_PRINT;
	free(n->text);
	n->text = xstrdup("sprintf");
	for (int i = 1; i <= count; i++)
		sb_addf(&format, "%s$arg%d=%%#x", i > 1 ? " " : "", i);
	node_list_push(&n->args, node_string(format.buf, n->loc));
	for (int i = 1; i <= count; i++) {
		struct node *t = node_new(N_TARGET, n->loc);

		t->text = xasprintf("$arg%d", i);
		node_list_push(&n->args, t);
	}
	free(format.buf);
}

bool mark_expand_vars(struct derived_probe *p, struct node *n)
{
	const struct derived_point *first = p->points;
	bool is_name = !strcmp(n->text, "$$name"), is_provider = !strcmp(n->text, "$$provider");
	struct token_desc tok = { "identifier", n->text };

	if (!is_name && !is_provider && strcmp(n->text, "$$parms") && strcmp(n->text, "$$vars"))
		return no_scope(p, n, false);
	for (const struct derived_point *d = first->next; d; d = d->next) {
		bool same = is_name ? !strcmp(d->function, first->function) :
			    is_provider ? !strcmp(d->module, first->module) :
					  mark_arg_count(d->mark_args) ==
						  mark_arg_count(first->mark_args);

		if (!same) {
			diag_error_at("semantic error", &tok, n->loc,
				      "tapster cannot expand %s over markers where it differs yet",
				      n->text);
			return false;
		}
	}
	if (is_name)
		make_string(n, first->function);
	else if (is_provider)
		make_string(n, first->module);
	else
		expand_parms(n, mark_arg_count(first->mark_args));
	return true;
}

/* ---- process().plt: $$name ---- */

bool on_plt(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (!d->plt)
			return false;
	return true;
}

/* stap's errors of a PLT point's $var: no DWARF scope, then no such plt variable (no DWARF
 * warning: stap gives none there). */
static bool no_plt_var(const struct derived_probe *p, struct node *n, bool quiet)
{
	char *name = n->suffix && !n->comps ? xasprintf("%s%s", n->text, n->suffix) :
					      xstrdup(n->text);
	struct token_desc tok = { "identifier", name };

	if (!quiet) {
		diag_error_at("semantic error", &tok, n->loc,
			      "debuginfo scope not found for module '%s', cannot resolve context"
			      " variable [man error::dwarf]", p->points->symbol);
		diag_error_at("semantic error", &tok, n->loc,
			      "unable to find plt variable '%s' (alternatives: $$name)", name);
		target_report_untyped(&tok, n->loc);
	}
	free(name);
	return false;
}

bool plt_target_resolve(struct derived_probe *p, struct node *n, bool quiet)
{
	return no_plt_var(p, n, quiet);
}

bool plt_expand_vars(struct derived_probe *p, struct node *n)
{
	struct token_desc tok = { "identifier", n->text };

	/* A PLT entry has no parameters or locals without DWARF: stap's are "". */
	if (!strcmp(n->text, "$$parms") || !strcmp(n->text, "$$vars") ||
	    !strcmp(n->text, "$$locals")) {
		make_string(n, "");
		return true;
	}
	if (strcmp(n->text, "$$name"))
		return no_plt_var(p, n, false);
	for (const struct derived_point *d = p->points->next; d; d = d->next)
		if (strcmp(d->function, p->points->function)) {
			diag_error_at("semantic error", &tok, n->loc,
				      "tapster cannot expand $$name over PLT entries where it"
				      " differs yet");
			return false;
		}
	make_string(n, p->points->function);
	return true;
}
