/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netfilter.hook("H").pf("P").priority("N"): a netfilter hook function (struct
 * nf_hook_ops) of protocol family P at hook H, registered in the initial network
 * namespace (init_net) with nf_register_net_hook(), as stap registers its hooks. The
 * kernel runs it on each packet that passes, in priority order among the other hooks
 * there; it runs the probe body with the packet (the context's point_data, which the
 * tapset's __netfilter_* functions read) and returns its verdict: NF_ACCEPT unless a
 * guru-mode probe set $verdict. A hit that finds its CPU's context taken accepts the
 * packet. The hook may run in a softirq (received packets) or in a task with preemption
 * on (sent ones): the context is taken with interrupts off.
 *
 * The generated module defines tap_netfilters[TAP_NUM_NETFILTER].
 */
#ifndef TAP_NETFILTER_H
#define TAP_NETFILTER_H

#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

#include "context.h"
#include "kprobes.h"

struct tap_netfilter {
	int pf, hook, priority;
	const struct tap_probe_point *pp;
	void (*body)(struct tap_context *c);
	struct nf_hook_ops ops;
	bool registered;
};

/* What a hit's probe body sees: the point_data of its context. */
struct tap_netfilter_hit {
	struct sk_buff *skb;
	const struct nf_hook_state *state;
	unsigned int verdict;
};

#ifndef TAP_NUM_NETFILTER
#define TAP_NUM_NETFILTER 0
#endif

#if TAP_NUM_NETFILTER > 0
static struct tap_netfilter tap_netfilters[TAP_NUM_NETFILTER];	/* the generated module's */

static unsigned int tap_netfilter_hook(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	struct tap_netfilter *nf = priv;
	struct tap_netfilter_hit hit = { skb, state, NF_ACCEPT };
	unsigned long flags;
	struct tap_context *c = tap_context_enter_irqsave(nf->pp, NULL, TAP_RUNNING, &flags);

	if (c) {
		c->point_data = &hit;
		nf->body(c);
		c->point_data = NULL;
		tap_context_exit_irqrestore(c, flags);
	}
	return hit.verdict;
}
#endif

/* The hit of the running probe (the tapset's functions run only in netfilter probes). */
static inline struct tap_netfilter_hit *tap_netfilter_this_hit(struct tap_context *c)
{
	return c->point_data;
}

/* ---- The provider's parts in the session (providers.h) ---- */

static void tap_netfilter_stop(void)
{
#if TAP_NUM_NETFILTER > 0
	int i;

	for (i = 0; i < TAP_NUM_NETFILTER; i++)
		if (tap_netfilters[i].registered) {
			nf_unregister_net_hook(&init_net, &tap_netfilters[i].ops);
			tap_netfilters[i].registered = false;
		}
#endif
}

/* A hook the kernel refuses is its point's registration error; the caller stops what was
 * started. */
static int tap_netfilter_start(void)
{
#if TAP_NUM_NETFILTER > 0
	int i, rc;

	for (i = 0; i < TAP_NUM_NETFILTER; i++) {
		struct tap_netfilter *nf = &tap_netfilters[i];

		nf->ops.hook = tap_netfilter_hook;
		nf->ops.priv = nf;
		nf->ops.pf = nf->pf;
		nf->ops.hooknum = nf->hook;
		nf->ops.priority = nf->priority;
		rc = nf_register_net_hook(&init_net, &nf->ops);
		if (rc) {
			tap_report_registration_error(nf->pp, rc);
			return rc;
		}
		nf->registered = true;
	}
#endif
	return 0;
}

#endif
