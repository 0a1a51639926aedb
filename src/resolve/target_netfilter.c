// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The context variables of netfilter probes (src/providers/netfilter.c): $hooknum, $skb,
 * $in, $out and $okfn, numbers read from the hook's arguments, and $verdict, what the
 * hook returns (NF_ACCEPT unless the probe sets it), which guru mode alone may use, read
 * or written, as in stap. Each becomes a call of the library's __netfilter_* functions
 * (tapsets/netfilter.stp, runtime/netfilter.h), which pass 2 then resolves as any call:
 * `$verdict = v` __netfilter_verdict_set(v), `$verdict OP= v` the same of
 * __netfilter_verdict_get() OP v, ++ and -- __netfilter_verdict_add(±1) (pre) and
 * __netfilter_verdict_post_add(±1).
 */
#include "resolve/target_vars.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

static const char *const read_only_vars[] = { "hooknum", "skb", "in", "out", "okfn" };

bool on_netfilter(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_NETFILTER)
			return false;
	return true;
}

static bool is_read_only_var(const char *name)
{
	for (size_t i = 0; i < sizeof(read_only_vars) / sizeof(read_only_vars[0]); i++)
		if (name[0] == '$' && !strcmp(name + 1, read_only_vars[i]))
			return true;
	return false;
}

/* A known variable, plain; false after stap's error. */
static bool plain_var(struct node *n, bool quiet)
{
	if ((strcmp(n->text, "$verdict") && !is_read_only_var(n->text)) || n->comps || n->suffix)
		return target_refuse(n, quiet, true, "unsupported context variable");
	if (n->address_of)
		return target_refuse(n, quiet, true,
				     "cannot take address of netfilter hook context variable");
	return true;
}

static struct node *verdict_get(struct loc loc)
{
	struct node *call = node_new(N_TARGET, loc);

	call->text = xstrdup("$verdict");
	target_become_call(call, "$verdict", "__netfilter_verdict_get", NULL);
	return call;
}

bool netfilter_var_read(const struct provider_env *env, struct derived_probe *p, struct node *n,
			bool quiet)
{
	char *function;

	(void)p;
	if (!plain_var(n, quiet))
		return false;
	if (!strcmp(n->text, "$verdict")) {
		if (!env || !env->guru)
			return target_refuse(n, quiet, true,
				     "write to netfilter verdict requires guru mode; need stap -g");
		target_become_call(n, n->text, "__netfilter_verdict_get", NULL);
		return true;
	}
	function = xasprintf("__netfilter_%s", n->text + 1);
	target_become_call(n, n->text, function, NULL);
	free(function);
	return true;
}

bool netfilter_var_assign(const struct provider_env *env, struct derived_probe *p,
			  struct node *n)
{
	struct node *target = n->lhs;
	struct loc loc = target->loc;

	(void)p;
	if (!plain_var(target, false))
		return false;
	if (strcmp(target->text, "$verdict"))
		return target_refuse(target, false, false,
				     "write to netfilter parameter not permitted");
	if (!env || !env->guru)
		return target_refuse(target, false, false,
				     "write to netfilter verdict requires guru mode; need stap -g");
	if (n->kind == N_PREINC || n->kind == N_POSTINC) {
		int64_t delta = n->op == OP_INC ? 1 : -1;

		target_become_call(n, "$verdict",
				   n->kind == N_PREINC ? "__netfilter_verdict_add"
						       : "__netfilter_verdict_post_add",
				   node_number(delta, delta > 0 ? "1" : "-1", loc));
	} else if (n->kind == N_ASSIGN && n->op == '=') {
		target_become_call(n, "$verdict", "__netfilter_verdict_set", n->rhs);
	} else if (n->kind == N_ASSIGN && n->op > OP_ASSIGN_BASE) {
		struct node *value = node_binary(n->op - OP_ASSIGN_BASE, verdict_get(loc), n->rhs,
						 n->loc);

		target_become_call(n, "$verdict", "__netfilter_verdict_set", value);
	} else {
		return target_refuse(target, false, false, "unsupported context variable");
	}
	n->loc = loc;
	return true;
}
