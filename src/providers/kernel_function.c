// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.function("f") [.call] and kernel.function("f").return [.maxactive(N)]: a kprobe or a
 * kretprobe on the kernel function f, resolved by symbol name when it is registered.
 */
#include "providers.h"

#include <stdlib.h>
#include <string.h>

#include "../diag.h"
#include "../util.h"

/* Function names are C identifiers; wildcards and @file:line forms come with symbol lists. */
static bool plain_symbol(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

static bool derive_kernel(const struct probe_point *point, struct derived_point ***tail)
{
	const struct component *kernel = point->components;
	const struct component *func = kernel->next;
	const struct component *comp;
	enum provider_kind kind = PROVIDER_KPROBE;
	int64_t maxactive = -1;
	const char *symbol;
	struct derived_point *d;

	if (kernel->arg || !func || strcmp(func->name, "function") || !component_string(func)) {
		provider_mismatch(point, func ? func : kernel);
		return false;
	}
	symbol = component_string(func);
	if (!plain_symbol(symbol)) {
		struct token_desc tok = { "string", symbol };

		diag_error_at("semantic error", &tok, func->loc,
			      "tapster cannot resolve this function pattern yet");
		return false;
	}
	comp = func->next;
	if (comp && !comp->arg && !strcmp(comp->name, "call")) {
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "return")) {
		kind = PROVIDER_KRETPROBE;
		comp = comp->next;
		if (comp && !strcmp(comp->name, "maxactive") &&
		    component_number(comp, &maxactive) && maxactive > 0 && maxactive < 1000000)
			comp = comp->next;
		else if (comp)
			maxactive = -1;
	}
	if (comp) {
		struct token_desc first = { "identifier", kernel->name };
		struct token_desc bad = { "identifier", comp->name };

		diag_error_at("semantic error", &first, kernel->loc, "while resolving probe point");
		diag_error_at("semantic error", &bad, comp->loc, "invalid suffix for probe");
		return false;
	}
	d = derived_point_new(kind, point);
	free(d->function);
	d->function = xstrdup(symbol);
	d->maxactive = (int)maxactive;
	**tail = d;
	*tail = &d->next;
	return true;
}

const struct provider provider_kernel = { "kernel", derive_kernel };
