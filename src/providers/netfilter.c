// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netfilter.hook("HOOK").pf("PF")[.priority("PRIO")], also netfilter.pf("PF").hook("HOOK")
 * [.priority("PRIO")]: a netfilter hook function (struct nf_hook_ops) for protocol family PF
 * at hook HOOK, run in priority order (default 0), in the initial network namespace.
 * Without -g the names are those stapprobes(3stap) lists: NFPROTO_IPV4, _IPV6, _ARP,
 * _BRIDGE; for each the hooks of its header (NF_INET_* and the older NF_IP_* for IPv4,
 * NF_IP6_*, NF_ARP_*, NF_BR_*); a decimal priority or one of the NF_IP_PRI_* (IPv4) and
 * NF_IP6_PRI_* (IPv6) names. stap's guru mode takes any text there, put into its C as
 * written; tapster's -g takes numbers too (a family's and a hook's of that family: the
 * kernel warns of others), but not names it does not know (its C never fails to compile). The context variables ($hooknum, $skb, $in, $out, $okfn, $verdict)
 * are target_netfilter.c's; runtime/netfilter.h registers the hooks.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

struct nf_name {
	const char *name;
	int value;
};

struct nf_family {
	struct nf_name pf;
	const struct nf_name *hooks;	/* {NULL} ended */
	const struct nf_name *priorities;
};

static const struct nf_name ipv4_hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 }, { "NF_INET_FORWARD", 2 },
	{ "NF_INET_LOCAL_OUT", 3 }, { "NF_INET_POST_ROUTING", 4 },
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 }, { "NF_IP_FORWARD", 2 },
	{ "NF_IP_LOCAL_OUT", 3 }, { "NF_IP_POST_ROUTING", 4 }, { NULL, 0 },
};

static const struct nf_name ipv6_hooks[] = {
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 }, { "NF_IP6_FORWARD", 2 },
	{ "NF_IP6_LOCAL_OUT", 3 }, { "NF_IP6_POST_ROUTING", 4 }, { NULL, 0 },
};

static const struct nf_name arp_hooks[] = {
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 }, { NULL, 0 },
};

static const struct nf_name bridge_hooks[] = {
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 }, { "NF_BR_FORWARD", 2 },
	{ "NF_BR_LOCAL_OUT", 3 }, { "NF_BR_POST_ROUTING", 4 }, { NULL, 0 },
};

static const struct nf_name ipv4_priorities[] = {
	{ "NF_IP_PRI_FIRST", INT_MIN }, { "NF_IP_PRI_RAW_BEFORE_DEFRAG", -450 },
	{ "NF_IP_PRI_CONNTRACK_DEFRAG", -400 }, { "NF_IP_PRI_RAW", -300 },
	{ "NF_IP_PRI_SELINUX_FIRST", -225 }, { "NF_IP_PRI_CONNTRACK", -200 },
	{ "NF_IP_PRI_MANGLE", -150 }, { "NF_IP_PRI_NAT_DST", -100 }, { "NF_IP_PRI_FILTER", 0 },
	{ "NF_IP_PRI_SECURITY", 50 }, { "NF_IP_PRI_NAT_SRC", 100 },
	{ "NF_IP_PRI_SELINUX_LAST", 225 }, { "NF_IP_PRI_CONNTRACK_HELPER", 300 },
	{ "NF_IP_PRI_CONNTRACK_CONFIRM", INT_MAX }, { "NF_IP_PRI_LAST", INT_MAX }, { NULL, 0 },
};

static const struct nf_name ipv6_priorities[] = {
	{ "NF_IP6_PRI_FIRST", INT_MIN }, { "NF_IP6_PRI_RAW_BEFORE_DEFRAG", -450 },
	{ "NF_IP6_PRI_CONNTRACK_DEFRAG", -400 }, { "NF_IP6_PRI_RAW", -300 },
	{ "NF_IP6_PRI_SELINUX_FIRST", -225 }, { "NF_IP6_PRI_CONNTRACK", -200 },
	{ "NF_IP6_PRI_MANGLE", -150 }, { "NF_IP6_PRI_NAT_DST", -100 },
	{ "NF_IP6_PRI_FILTER", 0 }, { "NF_IP6_PRI_SECURITY", 50 }, { "NF_IP6_PRI_NAT_SRC", 100 },
	{ "NF_IP6_PRI_SELINUX_LAST", 225 }, { "NF_IP6_PRI_CONNTRACK_HELPER", 300 },
	{ "NF_IP6_PRI_LAST", INT_MAX }, { NULL, 0 },
};

static const struct nf_name no_names[] = { { NULL, 0 } };

static const struct nf_family families[] = {
	{ { "NFPROTO_IPV4", 2 }, ipv4_hooks, ipv4_priorities },
	{ { "NFPROTO_ARP", 3 }, arp_hooks, no_names },
	{ { "NFPROTO_BRIDGE", 7 }, bridge_hooks, no_names },
	{ { "NFPROTO_IPV6", 10 }, ipv6_hooks, ipv6_priorities },
};

static const struct nf_name *find_name(const struct nf_name *names, const char *name)
{
	for (; names->name; names++)
		if (!strcmp(names->name, name))
			return names;
	return NULL;
}

/* A decimal int, with an optional sign, as the whole text. */
static bool int_text(const char *text, int *value)
{
	char *end;
	long long n;

	if (!*text || strchr(" \t\n", *text))
		return false;
	errno = 0;
	n = strtoll(text, &end, 10);
	if (errno || *end || n < INT_MIN || n > INT_MAX)
		return false;
	*value = (int)n;
	return true;
}

static const struct nf_family *family_of(int pf)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].pf.value == pf)
			return &families[i];
	return NULL;
}

/* The point's hook, pf and priority components, in either order. */
struct nf_parts {
	const struct component *hook, *pf, *priority;
};

static bool is_string_comp(const struct component *c, const char *name)
{
	return c && !strcmp(c->name, name) && component_string(c);
}

static bool read_parts(const struct probe_point *point, struct nf_parts *parts)
{
	static const char *const first_names[] = { "hook", "ip", "pf", "arp", "ipv4", NULL };
	const struct component *first = point->components->next, *second;

	if (point->components->arg) {
		provider_mismatch(point, point->components, NULL);
		return false;
	}
	if (!first) {
		provider_truncated(point, point->components,
				   "arp bridge hook(string) ip ipv4 ipv6 pf(string)");
		return false;
	}
	if (!is_string_comp(first, "hook") && !is_string_comp(first, "pf")) {
		provider_mismatch(point, first, first_names);
		return false;
	}
	bool hook_first = !strcmp(first->name, "hook");
	const char *other = hook_first ? "pf" : "hook";

	second = first->next;
	if (!second) {
		provider_truncated(point, first, hook_first ? "pf(string)" : "hook(string)");
		return false;
	}
	if (!is_string_comp(second, other)) {
		const char *const similar[] = { other, NULL };

		provider_mismatch(point, second, similar);
		return false;
	}
	parts->hook = hook_first ? first : second;
	parts->pf = hook_first ? second : first;
	parts->priority = NULL;
	if (is_string_comp(second->next, "priority"))
		parts->priority = second->next;
	else if (second->next) {
		provider_invalid_suffix(point, second->next);
		return false;
	}
	if (parts->priority && parts->priority->next) {
		provider_invalid_suffix(point, parts->priority->next);
		return false;
	}
	return true;
}

/* stap's error for a name it does not take; "; need stap -g" without -g. */
static bool unsupported(const struct probe_point *point, const struct provider_env *env,
			const char *what)
{
	char *reason = xasprintf("%s%s", what, env->guru ? "" : "; need stap -g");

	provider_refuse(point, reason);
	free(reason);
	return false;
}

static bool read_pf(const struct probe_point *point, const struct provider_env *env,
		    const char *text, int *pf)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(families[i].pf.name, text)) {
			*pf = families[i].pf.value;
			return true;
		}
	if (env->guru && int_text(text, pf) && family_of(*pf))
		return true;
	char *what = xasprintf("unsupported netfilter protocol family \"%s\"", text);
	bool ok = unsupported(point, env, what);

	free(what);
	return ok;
}

/* Whether `value` is that of one of `names`. */
static bool has_value(const struct nf_name *names, int value)
{
	for (; names->name; names++)
		if (names->value == value)
			return true;
	return false;
}

/* A name of `names`; or a number: any with `numbers` (priorities), with -g one that is some
 * name's (hooks: the kernel warns of others). */
static bool read_named(const struct probe_point *point, const struct provider_env *env,
		       const char *kind, const char *text, const struct nf_name *names, int pf,
		       bool numbers, int *value)
{
	const struct nf_name *found = find_name(names, text);

	if (found) {
		*value = found->value;
		return true;
	}
	if ((numbers || env->guru) && int_text(text, value) && (numbers || has_value(names, *value)))
		return true;
	char *what = xasprintf("unsupported netfilter %s \"%s\" for protocol family \"%d\"",
			       kind, text, pf);
	bool ok = unsupported(point, env, what);

	free(what);
	return ok;
}

static bool derive_netfilter(const struct probe_point *point, const struct provider_env *env,
			     struct derived_point ***tail)
{
	struct nf_parts parts;
	const struct nf_family *family;
	struct derived_point *d;
	int pf, hook, priority = 0;

	if (!read_parts(point, &parts) ||
	    !read_pf(point, env, component_string(parts.pf), &pf))
		return false;
	family = family_of(pf);
	if (!read_named(point, env, "hook", component_string(parts.hook),
			family ? family->hooks : no_names, pf, false, &hook))
		return false;
	if (parts.priority &&
	    !read_named(point, env, "priority", component_string(parts.priority),
			family ? family->priorities : no_names, pf, true, &priority))
		return false;
	d = derived_point_new(PROVIDER_NETFILTER, point);
	d->nf_pf = pf;
	d->nf_hook = hook;
	d->priority = priority;
	add_derived_point(tail, d);
	return true;
}

static const struct probe_type netfilter_types[] = {
	{ "netfilter.hook(string).pf(string)", false },
	{ "netfilter.hook(string).pf(string).priority(string)", false },
	{ "netfilter.pf(string).hook(string)", false },
	{ "netfilter.pf(string).hook(string).priority(string)", false },
	{ NULL, false },
};

const struct provider provider_netfilter = {
	.name = "netfilter", .derive = derive_netfilter, .types = netfilter_types,
};

/* ---- Pass 3: runtime/netfilter.h's table ---- */

static void netfilter_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			    const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;

	(void)ctx;
	sb_addf(&s->entries, "\t{ .pf = %d, .hook = %d, .priority = %" PRId64 ", .pp = &tap_pp_%d,"
		" .body = probe_%d },\n", d->nf_pf, d->nf_hook, d->priority, pp, p->index);
	s->count++;
}

static const char *netfilter_type_name(const struct derived_point *d)
{
	(void)d;
	return "netfilter";
}

const struct point_emitter emitter_netfilter = {
	.kinds = 1u << PROVIDER_NETFILTER,
	.type_name = netfilter_type_name,
	.state_size = sizeof(struct emit_one_table),
	.runtime_header = "netfilter.h",
	.point = netfilter_point,
	.count_macro = "TAP_NUM_NETFILTER",
	.table_decl = "static struct tap_netfilter tap_netfilters",
};
