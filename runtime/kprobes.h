/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kprobes and kretprobes: kernel.function("f") and its return, resolved by symbol name when
 * registered; kernel.statement(ADDR).absolute, at an address; module("m").function("f") and
 * its return, on a function of a loadable module, as symbol "m:f".
 *
 * A probe on a module is armed whenever the module is there: at the start of the session if
 * it is loaded then, else when it loads (a module notifier, at MODULE_STATE_COMING, before its
 * init function runs); it is disarmed when the module goes away, and armed again if it comes
 * back.
 *
 * The generated module defines, for each probe point, its own small handlers that enter the
 * context and call the probe body directly (no indirect call on the hot path), and the arrays
 * tap_kprobes[TAP_NUM_KPROBES] and tap_kretprobes[TAP_NUM_KRETPROBES] that
 * tap_register_kernel_probes() registers.
 */
#ifndef TAP_KPROBES_H
#define TAP_KPROBES_H

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#ifdef TAP_USE_FPROBE
#include <linux/fprobe.h>
#include <linux/sort.h>
#endif

#include "context.h"
#include "print.h"

struct tap_kprobe {
	struct kprobe kp;
	const struct tap_probe_point *pp;
	const char *module;	/* the module of the function, NULL for the kernel */
	int cond;		/* its probe's condition (1..TAP_NUM_CONDITIONS), or 0 */
	bool registered;
	bool fprobed;		/* its probe's fprobe, or the shared one, serves it (below) */
	bool shared;		/* the only entry of its probe that an fprobe could serve */
	bool dispatched;	/* the syscall dispatch serves it (sysdispatch.h) */
};

struct tap_kretprobe {
	struct kretprobe rp;
	const struct tap_probe_point *pp;
	const char *module;
	int cond;
	bool registered;
	bool fprobed;
	bool shared;		/* the only return of its probe that an fprobe could serve */
	bool dispatched;
	int missed;		/* instances missed while registered before */
};

#ifndef TAP_NUM_KPROBES
#define TAP_NUM_KPROBES 0
#endif
#ifndef TAP_NUM_KRETPROBES
#define TAP_NUM_KRETPROBES 0
#endif
#ifndef TAP_NUM_FPROBES
#define TAP_NUM_FPROBES 0
#endif

/* The generated module's tables, defined after its probe bodies. */
#if TAP_NUM_KPROBES > 0
static struct tap_kprobe tap_kprobes[TAP_NUM_KPROBES];
#else
static struct tap_kprobe *const tap_kprobes __maybe_unused;
#endif
#if TAP_NUM_KRETPROBES > 0
static struct tap_kretprobe tap_kretprobes[TAP_NUM_KRETPROBES];
#else
static struct tap_kretprobe *const tap_kretprobes __maybe_unused;
#endif

/* The probes, for the module notifier; changed under tap_kprobes_mutex. */
static struct tap_kprobe *tap_kprobe_table;
static int tap_kprobe_count;
static struct tap_kretprobe *tap_kretprobe_table;
static int tap_kretprobe_count;
static bool tap_kprobes_live;
static __maybe_unused DEFINE_MUTEX(tap_kprobes_mutex);
/* Entries of both tables gone through at the start of the session, armed or refused (an
 * fprobe's all at once): the loader reads it from ctl while the start goes on (thousands of
 * kprobes take a while under emulation) and tapster shows it. */
static int tap_kprobes_started;

static void tap_kprobes_started_add(int n)
{
	WRITE_ONCE(tap_kprobes_started, READ_ONCE(tap_kprobes_started) + n);
}

/*
 * A kprobe and a kretprobe keep the same fields beside their kernel probe. Entry i of
 * either table (`ret`: tap_kretprobe_table's): a field of it, as an lvalue, and its kprobe.
 */
#define TAP_KPROBE_FIELD(ret, i, field) \
	(*((ret) ? &tap_kretprobe_table[i].field : &tap_kprobe_table[i].field))

static struct kprobe *tap_kprobe_of(bool ret, int i)
{
	return ret ? &tap_kretprobe_table[i].rp.kp : &tap_kprobe_table[i].kp;
}

static int tap_kprobe_table_count(bool ret)
{
	return ret ? tap_kretprobe_count : tap_kprobe_count;
}

/* Reports a failed registration that ends the session on the stderr channel, as stap
 * words it (a tracepoint's: tracepoints.h). */
static void tap_report_registration_error(const struct tap_probe_point *pp, int rc)
{
	struct tap_context *c = tap_context_enter_process(NULL, tap_session_state());

	if (!c)
		return;
	tap_channel_stderr(c, "ERROR: probe %s registration error [man warning::pass5] (rc %d)\n",
			   pp->pp, rc);
	tap_context_exit_process(c);
}

/*
 * Reports a kprobe the kernel refused, in stap's words: a warning, for the session goes on
 * without it (stap tolerates a failed kprobe registration). At the start, or later when a
 * module that has probes loads.
 */
static void tap_report_kprobe_refused(const struct tap_probe_point *pp,
				      const struct kprobe *kp, int rc)
{
	struct tap_context *c = tap_context_enter_process(NULL, tap_session_state());

	if (!c)
		return;
	if (kp->symbol_name)
		tap_channel_stderr(c, "WARNING: probe %s (%s+%u) registration error [man warning::pass5] (rc %d)\n",
				   pp->pp, kp->symbol_name, kp->offset, rc);
	else
		tap_channel_stderr(c, "WARNING: probe %s (address 0x%lx) registration error [man warning::pass5] (rc %d)\n",
				   pp->pp, (unsigned long)kp->addr, rc);
	tap_context_exit_process(c);
}

/*
 * A kprobe keeps what registration found (its address, flags, list links): before it is
 * registered again, after its module came back, only what the generated table set is kept.
 */
static void tap_kprobe_reset(struct kprobe *kp)
{
	struct kprobe fresh = {
		.symbol_name = kp->symbol_name,
		.addr = kp->symbol_name ? NULL : kp->addr,
		.offset = kp->offset,
		.pre_handler = kp->pre_handler,
		.post_handler = kp->post_handler,
	};

	*kp = fresh;
}

static void tap_kretprobe_reset(struct kretprobe *rp)
{
	struct kretprobe fresh = {
		.kp.symbol_name = rp->kp.symbol_name,
		.handler = rp->handler,
		.entry_handler = rp->entry_handler,
		.maxactive = rp->maxactive,
		.data_size = rp->data_size,
	};

	*rp = fresh;
}

/* Whether a probe belongs to the module `name` (NULL: any module). */
static bool tap_on_module(const char *module, const char *name)
{
	return module && (!name || !strcmp(module, name));
}

/*
 * What registering one probe gave. A probe on a module that is not loaded is left for the
 * module notifier (-ENOENT: no such symbol now); so is one on its init function once that
 * is gone. Any other refusal is reported and the probe stays unarmed.
 */
static void tap_registered(int rc, bool ret, int i)
{
	if (!rc)
		TAP_KPROBE_FIELD(ret, i, registered) = true;
	else if (rc != -ENOENT || !TAP_KPROBE_FIELD(ret, i, module))
		tap_report_kprobe_refused(TAP_KPROBE_FIELD(ret, i, pp), tap_kprobe_of(ret, i), rc);
}

static void tap_kretprobe_prepare(struct kretprobe *rp)
{
	tap_kretprobe_reset(rp);
	if (rp->maxactive <= 0)
		rp->maxactive = KRETACTIVE;
}

static void tap_arm_kprobe(bool ret, int i)
{
	int rc;

	if (ret) {
		tap_kretprobe_prepare(&tap_kretprobe_table[i].rp);
		rc = register_kretprobe(&tap_kretprobe_table[i].rp);
	} else {
		tap_kprobe_reset(&tap_kprobe_table[i].kp);
		rc = register_kprobe(&tap_kprobe_table[i].kp);
	}
	tap_registered(rc, ret, i);
}

/* What an unregistered probe missed counts as skipped: a kprobe's hits, a kretprobe's
 * instances (kept for the report too). */
static void tap_kprobe_missed(bool ret, int i)
{
	if (ret) {
		struct tap_kretprobe *p = &tap_kretprobe_table[i];

		p->missed += p->rp.nmissed;
		atomic_add(p->rp.nmissed, &tap_skipped_count);
	} else if (tap_kprobe_table[i].kp.nmissed) {
		atomic_add(tap_kprobe_table[i].kp.nmissed, &tap_skipped_count);
	}
}

/* Unregisters; may sleep, so no context is held. */
static void tap_disarm_kprobe(bool ret, int i)
{
	if (!TAP_KPROBE_FIELD(ret, i, registered))
		return;
	if (ret)
		unregister_kretprobe(&tap_kretprobe_table[i].rp);
	else
		unregister_kprobe(&tap_kprobe_table[i].kp);
	TAP_KPROBE_FIELD(ret, i, registered) = false;
	tap_kprobe_missed(ret, i);
}

/*
 * fprobe (compat.h: TAP_USE_FPROBE): the kernel functions of one probe, entries or returns,
 * under one fprobe, registered with one ftrace update rather than one a function (357
 * tcp_* functions: one update, not 357). Its functions are those of the probe's table
 * entries [first, first + count) that a kprobe would put on ftrace (found by registering
 * disabled kprobes on them and looking at their flags, which also makes the kernel check
 * them as it does kprobes: its blacklist, its errors); the others, and all of them when
 * the fprobe cannot be registered, stay kprobes. The generated handlers find the hit's
 * probe point by its address: tap_fprobe_pp().
 *
 * The probes of one function each (syscall.*'s aliases, one probe each) share two fprobes, the
 * module's last: one for their entries, one for their returns (the table entries the
 * translator marked `shared`). Their handlers are here: they find the hit's table entry by
 * its address and call the kprobe's or kretprobe's own handlers, so a probe runs as it does
 * under its kprobe. A function with two such probes (or one under a probe's own fprobe)
 * keeps its kprobes, which run them in the order they always did.
 */
#ifdef TAP_USE_FPROBE
#ifndef TAP_FPROBE_MIN
#define TAP_FPROBE_MIN 2	/* fewer functions in a probe: kprobes */
#endif

struct tap_fprobe {
	struct fprobe fp;
	bool ret;		/* on returns: tap_kretprobes' entries, else tap_kprobes' */
	bool shared;		/* the shared one: the entries marked shared among them */
	int first, count;	/* its probe's entries in that table */
	int n;			/* the functions under the fprobe */
	unsigned long *addrs;	/* their ftrace addresses, ascending */
	const struct tap_probe_point **pps;	/* their probe points, in that order */
	int *entries;		/* the shared one: their table entries, in that order */
	bool registered;
};

struct tap_fprobe_site {
	unsigned long addr;
	int index;		/* its entry, from first */
};

static struct tap_fprobe *tap_fprobe_table;
static int tap_fprobe_count;
#if TAP_NUM_FPROBES > 0
static struct tap_fprobe tap_fprobes[TAP_NUM_FPROBES];	/* the generated module's */
#endif

/* The place among the fprobe's functions of a hit at `ip`, one of them. */
static __always_inline int tap_fprobe_site_at(const struct tap_fprobe *g, unsigned long ip)
{
	int lo = 0, hi = g->n - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (g->addrs[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The probe point of a hit at `ip`. */
static __always_inline const struct tap_probe_point *tap_fprobe_pp(struct fprobe *fp,
								   unsigned long ip)
{
	struct tap_fprobe *g = container_of(fp, struct tap_fprobe, fp);

	return g->pps[tap_fprobe_site_at(g, ip)];
}

/* The shared fprobe's table entry of a hit at `ip`. */
static __always_inline int tap_fprobe_entry_at(struct fprobe *fp, unsigned long ip)
{
	struct tap_fprobe *g = container_of(fp, struct tap_fprobe, fp);

	return g->entries[tap_fprobe_site_at(g, ip)];
}

/* A kprobe's handler sees the address after its breakpoint byte (addr(), the backtrace):
 * so does an entry's fprobe handler; ftrace's is put back before it returns. */
static __always_inline unsigned long tap_fprobe_regs_enter(struct pt_regs *regs,
							   unsigned long ip)
{
	unsigned long at = instruction_pointer(regs);

	instruction_pointer_set(regs, ip + sizeof(kprobe_opcode_t));
	return at;
}

/* The shared fprobe's handlers: the entry's kprobe's handler. */
static int tap_fprobe_shared_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
				   struct pt_regs *regs, void *data)
{
	struct kprobe *kp = &tap_kprobe_table[tap_fprobe_entry_at(fp, ip)].kp;
	unsigned long at = tap_fprobe_regs_enter(regs, ip);

	kp->pre_handler(kp, regs);
	instruction_pointer_set(regs, at);
	return 0;
}

/* A kretprobe's handlers read nothing of their instance but its data: the fprobe's entry
 * data stands for it (NULL when no return probe has data). */
static __always_inline struct kretprobe_instance *tap_fprobe_instance(void *data)
{
	return data ? (struct kretprobe_instance *)((char *)data -
		offsetof(struct kretprobe_instance, data)) : NULL;
}

/* The kretprobe's entry handler; non-zero: no return handler for this call. */
static int tap_fprobe_shared_call(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
				  struct pt_regs *regs, void *data)
{
	struct kretprobe *rp = &tap_kretprobe_table[tap_fprobe_entry_at(fp, ip)].rp;
	unsigned long at;
	int rc;

	if (!rp->entry_handler)
		return 0;
	at = tap_fprobe_regs_enter(regs, ip);
	rc = rp->entry_handler(tap_fprobe_instance(data), regs);
	instruction_pointer_set(regs, at);
	return rc;
}

static void tap_fprobe_shared_return(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
				     struct pt_regs *regs, void *data)
{
	struct kretprobe *rp = &tap_kretprobe_table[tap_fprobe_entry_at(fp, ip)].rp;

	rp->handler(tap_fprobe_instance(data), regs);
}

static struct kprobe *tap_fprobe_kprobe(const struct tap_fprobe *g, int i)
{
	return tap_kprobe_of(g->ret, g->first + i);
}

static const struct tap_probe_point *tap_fprobe_entry_pp(const struct tap_fprobe *g, int i)
{
	return TAP_KPROBE_FIELD(g->ret, g->first + i, pp);
}

static void tap_fprobe_mark(const struct tap_fprobe *g, int i, bool fprobed)
{
	TAP_KPROBE_FIELD(g->ret, g->first + i, fprobed) = fprobed;
}

/* An entry of a function of the kernel, by name, at its start, not armed. */
static bool tap_fprobe_eligible(const struct tap_fprobe *g, int i)
{
	const struct kprobe *kp = tap_fprobe_kprobe(g, i);
	int j = g->first + i;

	return !TAP_KPROBE_FIELD(g->ret, j, module) && !TAP_KPROBE_FIELD(g->ret, j, registered) &&
	       !TAP_KPROBE_FIELD(g->ret, j, dispatched) && kp->symbol_name && (g->ret || !kp->offset) &&
	       (!g->shared || TAP_KPROBE_FIELD(g->ret, j, shared));
}

static int tap_fprobe_site_cmp(const void *a, const void *b)
{
	const struct tap_fprobe_site *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Whether an fprobe other than g, registered, serves the function at `addr`. */
static bool tap_fprobe_elsewhere(const struct tap_fprobe *g, unsigned long addr)
{
	int i;

	for (i = 0; i < tap_fprobe_count; i++) {
		const struct tap_fprobe *other = &tap_fprobe_table[i];

		if (other != g && other->registered && other->ret == g->ret &&
		    other->addrs[tap_fprobe_site_at(other, addr)] == addr)
			return true;
	}
	return false;
}

/*
 * Of the sites, sorted, those the fprobe takes, moved to the front; how many. A probe's own
 * fprobe takes the first of its points on a function, the others stay kprobes; the shared
 * one takes none of a function that has two of its points, or that another fprobe serves:
 * their kprobes run them in the order they always did.
 */
static int tap_fprobe_keep(const struct tap_fprobe *g, struct tap_fprobe_site *sites, int found)
{
	int i, kept = 0;

	for (i = 0; i < found; i++) {
		bool after = i > 0 && sites[i - 1].addr == sites[i].addr;
		bool before = i + 1 < found && sites[i + 1].addr == sites[i].addr;

		if (g->shared ? after || before || tap_fprobe_elsewhere(g, sites[i].addr) : after)
			continue;
		sites[kept++] = sites[i];
	}
	return kept;
}

/*
 * The group's functions that ftrace traces, into sites (room for g->count): their ftrace
 * addresses, ascending, one site an address (tap_fprobe_keep()). How many; 0 when there are
 * too few or a kprobe could not be registered (the kprobes' own registration then reports
 * it).
 */
static int tap_fprobe_sites(const struct tap_fprobe *g, struct tap_fprobe_site *sites)
{
	struct kprobe *kps = kcalloc(g->count, sizeof(*kps), GFP_KERNEL);
	struct kprobe **batch = kcalloc(g->count, sizeof(*batch), GFP_KERNEL);
	int *index = kcalloc(g->count, sizeof(*index), GFP_KERNEL);
	int i, n = 0, found = 0, kept = 0;

	if (!kps || !batch || !index)
		goto out;
	for (i = 0; i < g->count; i++) {
		if (!tap_fprobe_eligible(g, i))
			continue;
		kps[n].symbol_name = tap_fprobe_kprobe(g, i)->symbol_name;
		kps[n].flags = KPROBE_FLAG_DISABLED;
		batch[n] = &kps[n];
		index[n++] = i;
	}
	if (n < TAP_FPROBE_MIN || register_kprobes(batch, n))
		goto out;
	for (i = 0; i < n; i++)
		if (kprobe_ftrace(&kps[i]))
			sites[found++] = (struct tap_fprobe_site){
				.addr = (unsigned long)kps[i].addr, .index = index[i] };
	unregister_kprobes(batch, n);
	sort(sites, found, sizeof(*sites), tap_fprobe_site_cmp, NULL);
	kept = tap_fprobe_keep(g, sites, found);
out:
	kfree(index);
	kfree(batch);
	kfree(kps);
	return kept >= TAP_FPROBE_MIN ? kept : 0;
}

/* The instances of its return probes: those of their kretprobes together. */
static int tap_fprobe_maxactive(const struct tap_fprobe *g, const struct tap_fprobe_site *sites)
{
	int i, total = 0;

	for (i = 0; i < g->n; i++) {
		int one = tap_kretprobe_table[g->first + sites[i].index].rp.maxactive;

		total += one > 0 ? one : KRETACTIVE;
	}
	return total;
}

/* The shared fprobe's handlers, and its entry data: room for the largest of its return
 * probes' @entry data, if any has some. */
static void tap_fprobe_set_shared(struct tap_fprobe *g, const struct tap_fprobe_site *sites)
{
	int i;

	if (!g->ret) {
		g->fp.entry_handler = tap_fprobe_shared_entry;
		return;
	}
	g->fp.exit_handler = tap_fprobe_shared_return;
	g->fp.entry_handler = NULL;
	g->fp.entry_data_size = 0;
	for (i = 0; i < g->n; i++) {
		const struct kretprobe *rp = &tap_kretprobe_table[g->first + sites[i].index].rp;

		if (rp->entry_handler)
			g->fp.entry_handler = tap_fprobe_shared_call;
		g->fp.entry_data_size = max_t(size_t, g->fp.entry_data_size, rp->data_size);
	}
}

static void tap_arm_fprobe(struct tap_fprobe *g)
{
	struct tap_fprobe_site *sites = kcalloc(g->count, sizeof(*sites), GFP_KERNEL);
	int i, n = sites ? tap_fprobe_sites(g, sites) : 0;

	g->addrs = n ? kcalloc(n, sizeof(*g->addrs), GFP_KERNEL) : NULL;
	g->pps = n ? kcalloc(n, sizeof(*g->pps), GFP_KERNEL) : NULL;
	g->entries = n && g->shared ? kcalloc(n, sizeof(*g->entries), GFP_KERNEL) : NULL;
	if (g->addrs && g->pps && (g->entries || !g->shared)) {
		for (i = 0; i < n; i++) {
			g->addrs[i] = sites[i].addr;
			g->pps[i] = tap_fprobe_entry_pp(g, sites[i].index);
			if (g->shared)
				g->entries[i] = g->first + sites[i].index;
		}
		g->n = n;
		if (g->shared)
			tap_fprobe_set_shared(g, sites);
		g->fp.flags = 0;
		g->fp.nmissed = 0;
		if (g->ret)
			g->fp.nr_maxactive = tap_fprobe_maxactive(g, sites);
		g->registered = !register_fprobe_ips(&g->fp, g->addrs, n);
	}
	if (g->registered) {
		for (i = 0; i < n; i++)
			tap_fprobe_mark(g, sites[i].index, true);
		tap_kprobes_started_add(n);
	} else {
		kfree(g->addrs);
		kfree(g->pps);
		kfree(g->entries);
		g->addrs = NULL;
		g->pps = NULL;
		g->entries = NULL;
		g->n = 0;
	}
	kfree(sites);
}

static void tap_arm_fprobes(void)
{
	int i;

	for (i = 0; i < tap_fprobe_count; i++)
		if (!tap_fprobe_table[i].registered)
			tap_arm_fprobe(&tap_fprobe_table[i]);
}

/* Unregisters them; their return handlers may still run until a grace period has passed. */
static void tap_disarm_fprobes(void)
{
	int i, j;
	bool any = false;

	for (i = 0; i < tap_fprobe_count; i++) {
		struct tap_fprobe *g = &tap_fprobe_table[i];
		unsigned long missed;

		if (!g->registered)
			continue;
		/* Taken before: while it is unregistered, a call that comes in finds the
		 * returns' rethook stopped and counts as missed, which no hit of the
		 * session was (a kretprobe is disabled first and misses none so). */
		missed = READ_ONCE(g->fp.nmissed);
		unregister_fprobe(&g->fp);
		g->registered = false;
		any = true;
		if (missed)
			atomic_add(missed, &tap_skipped_count);
		for (j = 0; j < g->count; j++)
			tap_fprobe_mark(g, j, false);
	}
	if (any)
		synchronize_rcu();
	for (i = 0; i < tap_fprobe_count; i++) {
		kfree(tap_fprobe_table[i].addrs);
		kfree(tap_fprobe_table[i].pps);
		kfree(tap_fprobe_table[i].entries);
		tap_fprobe_table[i].addrs = NULL;
		tap_fprobe_table[i].pps = NULL;
		tap_fprobe_table[i].entries = NULL;
		tap_fprobe_table[i].n = 0;
	}
}

/* The condition of its probe; the shared one's probes each look at their own. */
static int tap_fprobe_cond(const struct tap_fprobe *g)
{
	return g->shared ? 0 : TAP_KPROBE_FIELD(g->ret, g->first, cond);
}
#else
static void tap_arm_fprobes(void)
{
}

static void tap_disarm_fprobes(void)
{
}
#endif

/*
 * Arms the probes on the module `name` that are not armed (all of them when NULL); a probe
 * the kernel refuses is reported and left unarmed, as stap does. One by one: on 6.1 a
 * register_kprobes() batch is the same loop inside the kernel (it armed tcp_*'s 378 probes
 * no faster), and one refused probe makes the kernel undo the whole batch. With DWARF,
 * kernel.function("tcp_*") has 1,931 points, 33 of them refused (inlined instances on
 * static-key sites): arming them took 41.8 s of virtual time one by one, 48.8 s as a batch
 * redone one by one, 113.9 s as a batch redone in halves (make bench, 6.1).
 * Called with tap_kprobes_mutex held.
 */
static void tap_arm_probes(const char *name)
{
	int ret, i;

	if (!name)
		tap_arm_fprobes();
	for (ret = 0; ret < 2; ret++)
		for (i = 0; i < tap_kprobe_table_count(ret); i++) {
			if (TAP_KPROBE_FIELD(ret, i, fprobed))
				continue;
			if (TAP_KPROBE_FIELD(ret, i, dispatched)) {
				if (!name)
					tap_kprobes_started_add(1);
				continue;
			}
			if (!TAP_KPROBE_FIELD(ret, i, registered) &&
			    (!name || tap_on_module(TAP_KPROBE_FIELD(ret, i, module), name)))
				tap_arm_kprobe(ret, i);
			if (!name)
				tap_kprobes_started_add(1);
		}
}

static bool tap_kprobe_matches(bool ret, int i, const char *name)
{
	return TAP_KPROBE_FIELD(ret, i, registered) &&
	       (!name || tap_on_module(TAP_KPROBE_FIELD(ret, i, module), name));
}

/*
 * Unregisters the registered kprobes (`ret`: kretprobes) on the module `name` (all when
 * NULL) in one batch: the kernel waits once for the handlers that may still run (an RCU
 * grace period), not once a probe, which makes stopping a script of many probes take
 * milliseconds rather than seconds. False when there is no memory for the batch.
 */
static bool tap_disarm_kprobe_batch(bool ret, const char *name)
{
	int count = tap_kprobe_table_count(ret);
	/* struct kprobe * or struct kretprobe *, as unregister_k(ret)probes() takes them */
	void **batch = kmalloc_array(max(count, 1), sizeof(*batch), GFP_KERNEL);
	int i, n = 0;

	if (!batch)
		return false;
	for (i = 0; i < count; i++)
		if (tap_kprobe_matches(ret, i, name))
			batch[n++] = ret ? (void *)&tap_kretprobe_table[i].rp :
					   (void *)&tap_kprobe_table[i].kp;
	if (n && ret)
		unregister_kretprobes((struct kretprobe **)batch, n);
	else if (n)
		unregister_kprobes((struct kprobe **)batch, n);
	kfree(batch);
	for (i = 0; i < count; i++) {
		if (!tap_kprobe_matches(ret, i, name))
			continue;
		TAP_KPROBE_FIELD(ret, i, registered) = false;
		tap_kprobe_missed(ret, i);
	}
	return true;
}

/* Disarms the probes on the module `name`, or all of them when NULL: in batches, else (no
 * memory) one by one. */
static void tap_disarm_probes(const char *name)
{
	int ret, i;

	if (!name)
		tap_disarm_fprobes();
	for (ret = 0; ret < 2; ret++)
		if (!tap_disarm_kprobe_batch(ret, name))
			for (i = 0; i < tap_kprobe_table_count(ret); i++)
				if (!name || tap_on_module(TAP_KPROBE_FIELD(ret, i, module), name))
					tap_disarm_kprobe(ret, i);
}

/* A module comes (its probes are armed before its init function runs) or goes. */
static int tap_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	mutex_lock(&tap_kprobes_mutex);
	if (tap_kprobes_live && state == MODULE_STATE_COMING)
		tap_arm_probes(mod->name);
	else if (tap_kprobes_live && state == MODULE_STATE_GOING)
		tap_disarm_probes(mod->name);
	mutex_unlock(&tap_kprobes_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block tap_module_nb = {
	.notifier_call = tap_module_notify,
};
static bool tap_module_nb_registered;

static bool tap_any_module_probe(void)
{
	int ret, i;

	for (ret = 0; ret < 2; ret++)
		for (i = 0; i < tap_kprobe_table_count(ret); i++)
			if (TAP_KPROBE_FIELD(ret, i, module))
				return true;
	return false;
}

/* Arms every probe (those on modules that are not loaded wait for them); may sleep. On an
 * error, what was armed is disarmed again by tap_unregister_kernel_probes(). */
static __maybe_unused int tap_register_kernel_probes(struct tap_kprobe *kprobes, int nkprobes,
						     struct tap_kretprobe *kretprobes,
						     int nkretprobes)
{
	int rc;

	tap_kprobe_table = kprobes;
	tap_kprobe_count = nkprobes;
	tap_kretprobe_table = kretprobes;
	tap_kretprobe_count = nkretprobes;
	if (tap_any_module_probe()) {
		rc = register_module_notifier(&tap_module_nb);
		if (rc)
			return rc;
		tap_module_nb_registered = true;
	}
	mutex_lock(&tap_kprobes_mutex);
	tap_kprobes_live = true;
	tap_arm_probes(NULL);
	mutex_unlock(&tap_kprobes_mutex);
	return 0;
}

/*
 * Conditional probes (probe P if (cond)). A hit that finds its condition false asks for the
 * probe's kprobes to be disabled; a probe that may have changed a global of a condition asks
 * for them all to be enabled again, and the next hit looks at its condition again. Disabling
 * may sleep: a work item carries the requests out, under tap_kprobes_mutex. Probe context
 * never queues that work itself (queue_work() takes the workqueue pool's lock, which the probed
 * code may hold on this CPU): it sets tap_conditions_pending and kicks the session's poll
 * (an irq_work, session.h), which queues the work.
 */
#ifndef TAP_NUM_CONDITIONS
#define TAP_NUM_CONDITIONS 0
#endif

static unsigned long tap_conditions_off[BITS_TO_LONGS(TAP_NUM_CONDITIONS + 1)];

static void tap_kprobe_set_enabled(struct kprobe *kp, bool enabled)
{
	if (enabled && kprobe_disabled(kp))
		enable_kprobe(kp);
	else if (!enabled && !kprobe_disabled(kp))
		disable_kprobe(kp);
}

/* The same for the fprobes: a flag their handlers' caller looks at. */
static void tap_fprobes_set_enabled(void)
{
#ifdef TAP_USE_FPROBE
	int i;

	for (i = 0; tap_kprobes_live && i < tap_fprobe_count; i++) {
		struct tap_fprobe *g = &tap_fprobe_table[i];
		int cond = tap_fprobe_cond(g);

		if (!cond || !g->registered)
			continue;
		if (test_bit(cond, tap_conditions_off))
			disable_fprobe(&g->fp);
		else
			enable_fprobe(&g->fp);
	}
#endif
}

static void tap_conditions_apply(struct work_struct *work)
{
	int ret, i;

	mutex_lock(&tap_kprobes_mutex);
	for (ret = 0; ret < 2; ret++)
		for (i = 0; tap_kprobes_live && i < tap_kprobe_table_count(ret); i++) {
			int cond = TAP_KPROBE_FIELD(ret, i, cond);

			if (cond && TAP_KPROBE_FIELD(ret, i, registered))
				tap_kprobe_set_enabled(tap_kprobe_of(ret, i),
						       !test_bit(cond, tap_conditions_off));
		}
	tap_fprobes_set_enabled();
	mutex_unlock(&tap_kprobes_mutex);
}

static __maybe_unused DECLARE_WORK(tap_conditions_work, tap_conditions_apply);
static int tap_conditions_pending;

/* From the session's poll, never probe context: carries out what probes asked for; true
 * when there was something to do. */
static __maybe_unused bool tap_conditions_poll(void)
{
	if (READ_ONCE(tap_conditions_pending) && xchg(&tap_conditions_pending, 0) &&
	    READ_ONCE(tap_kprobes_live)) {
		queue_work(system_wq, &tap_conditions_work);
		return true;
	}
	return false;
}

/* From probe context: condition `cond` is false. */
static __maybe_unused void tap_condition_false(int cond)
{
	if (!test_and_set_bit(cond, tap_conditions_off)) {
		WRITE_ONCE(tap_conditions_pending, 1);
		tap_kick();
	}
}

/* From probe context: a global that a condition reads may have changed. */
static __maybe_unused void tap_conditions_changed(void)
{
	bool any = false;
	int i;

	for (i = 1; i <= TAP_NUM_CONDITIONS; i++)
		any |= test_and_clear_bit(i, tap_conditions_off);
	if (any) {
		WRITE_ONCE(tap_conditions_pending, 1);
		tap_kick();
	}
}

static __maybe_unused void tap_unregister_kernel_probes(void)
{
	if (tap_module_nb_registered) {
		unregister_module_notifier(&tap_module_nb);
		tap_module_nb_registered = false;
	}
	mutex_lock(&tap_kprobes_mutex);
	WRITE_ONCE(tap_kprobes_live, false);
	tap_disarm_probes(NULL);
	mutex_unlock(&tap_kprobes_mutex);
	/* No handler runs any more, and no later probe queues the work (not live). */
	if (TAP_NUM_CONDITIONS)
		cancel_work_sync(&tap_conditions_work);
}

/*
 * Instances missed for want of a free kretprobe instance, per probe point, as stap reports
 * them: only in a timing build (-DSTP_TIMING, stap -t); they always count as skipped probes.
 */
static __maybe_unused void tap_report_missed_kretprobes(struct tap_context *c)
{
#ifdef STP_TIMING
	int i;

	for (i = 0; i < tap_kretprobe_count; i++)
		if (tap_kretprobe_table[i].missed)
			tap_channel_stderr(c,
				"WARNING: Skipped due to missed kretprobe/1 on '%s': %d\n",
				tap_kretprobe_table[i].pp->pp, tap_kretprobe_table[i].missed);
#endif
}


/* ---- The provider's part in the session (providers.h) ---- */

/* Arms every kprobe, kretprobe and fprobe; may sleep. */
static int tap_kernel_probes_start(void)
{
#if defined(TAP_USE_FPROBE) && TAP_NUM_FPROBES > 0
	tap_fprobe_table = tap_fprobes;
	tap_fprobe_count = TAP_NUM_FPROBES;
#endif
	if (!TAP_NUM_KPROBES && !TAP_NUM_KRETPROBES)
		return 0;
	return tap_register_kernel_probes(tap_kprobes, TAP_NUM_KPROBES, tap_kretprobes,
					  TAP_NUM_KRETPROBES);
}

static void tap_kernel_probes_stop(void)
{
	if (TAP_NUM_KPROBES || TAP_NUM_KRETPROBES)
		tap_unregister_kernel_probes();
}

/* How far the start is: entries gone through of all of them (providers.h). */
static void tap_kernel_probes_progress(int *done, int *total)
{
	*done += READ_ONCE(tap_kprobes_started);
	*total += TAP_NUM_KPROBES + TAP_NUM_KRETPROBES;
}

static void tap_kernel_probes_report(struct tap_context *c)
{
	if (TAP_NUM_KRETPROBES)
		tap_report_missed_kretprobes(c);
}

/* Once the session's poll can no longer queue the conditions' work: waits for it. */
static void tap_kernel_probes_quiesce(void)
{
	cancel_work_sync(&tap_conditions_work);
}

#include "sysdispatch.h"

#endif
