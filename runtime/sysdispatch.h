/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syscall dispatch: many probes on system calls' entry functions (syscall.*'s
 * __x64_sys_read, __ia32_compat_sys_open, ...) run from the raw tracepoints sys_enter and
 * sys_exit, by the call's number and ABI, rather than from a kprobe each. On 6.1 a kprobe
 * on ftrace takes some 8 ms of virtual time to arm and 7 to take off: syscall.* and its
 * returns, 850 of them, took seconds; two tracepoints take a few ms.
 *
 * The translator (src/providers/kprobe_emit.c) chooses the points and writes
 * tap_sysd_keys[TAP_NUM_SYSD_KEYS]: for each, the call's number and ABI, its entry of
 * tap_kprobes[] or (`ret`) tap_kretprobes[], and its function's address in the kernel's
 * symbol listing; sorted by ABI, number, entries before returns, then table order. A
 * function of no table, which nothing calls, has one key of number -1; the invalid numbers'
 * function (sys_ni_syscall's wrappers) has the numbers its tables lack and, as -2, those
 * past them (TAP_SYSD_TABLE_X64, _IA32: the tables' sizes). The dispatch calls
 * the kprobe's or kretprobe's own handlers, so a probe runs as under its kprobe:
 *  - with registers as its kprobe would give: a kernel frame whose ip is just after the
 *    function's first instruction (addr(), probefunc(), probemod()), di the user registers
 *    (the function's argument); a return's ip is where the function returns to (a 32-bit
 *    task's: int $0x80's handler, or the fast path's when it came by sysenter/syscall), its
 *    ax the call's result ($return, retval);
 *  - an entry after every other sys_enter handler (a kprobe runs inside the call), a return
 *    before every other sys_exit handler;
 *  - a return only for a call whose entry it saw, as a kretprobe's instance (a slot of the
 *    point's per-task table, task_slots.h: up to KRETACTIVE's power of two tasks in the
 *    function at once; the next ones' returns are missed and count as skipped; a task that
 *    exits inside the call frees its slot): a call that started before the session, a
 *    fork's child or a call that seccomp or ptrace turned away has none;
 *  - the points of one call in the order their kprobes run them: at the entry the
 *    returns' entry handlers, then the entries, each in the reverse of table order; the
 *    returns in table order (their instances were pushed in the reverse one);
 *  - a successful exec's return whichever exec call it was: the kernel shows its sys_exit
 *    as the new program's ABI's execve.
 * The kernel's placement of its text is found from sprint_symbol, whose address the module
 * knows, and the listing's (TAP_SYSD_ANCHOR); a placement sprint_symbol does not confirm,
 * missing tracepoints, or -DTAP_SYSCALL_DISPATCH=0 leave the points to their kprobes.
 */
#ifndef TAP_SYSDISPATCH_H
#define TAP_SYSDISPATCH_H

#include <linux/compat.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#ifdef CONFIG_IA32_EMULATION
#include <asm/unistd_32_ia32.h>
#include <asm/vdso.h>
#endif

#include "kprobes.h"
#include "task_slots.h"
#include "tracepoint_lookup.h"

struct tap_sysd_key {
	unsigned long addr;	/* the function's address in the listing */
	int nr;			/* the call's number; -1: never called */
	bool ia32;		/* of a 32-bit task, else of a 64-bit one */
	bool ret;		/* tap_kretprobes' entry, else tap_kprobes' */
	int index;
};

#ifndef TAP_NUM_SYSD_KEYS
#define TAP_NUM_SYSD_KEYS 0
#endif
#ifndef TAP_SYSCALL_DISPATCH
#define TAP_SYSCALL_DISPATCH 1
#endif

#if TAP_NUM_SYSD_KEYS > 0
static const struct tap_sysd_key tap_sysd_keys[TAP_NUM_SYSD_KEYS];	/* the module's */

/* The keys of one number: entries [first, first + nent), then nret returns. */
struct tap_sysd_slot {
	u16 first, nent, nret;
};

/* A return's instance: the task in the call (task_slots.h, key 0), where the call returns
 * to (as its entry saw it), then the @entry data. */
struct tap_sysd_instance {
	struct tap_task_slot slot;
	unsigned long return_ip;
	u64 data[];
};

static struct tap_sysd_state {
	struct tap_sysd_slot *slots[2];	/* by ABI (ia32), by number */
	int nslots[2];
	struct tap_sysd_slot beyond[2];	/* by ABI: the numbers past its table (key -2) */
	unsigned long *ips;		/* by key: the kernel's address of its function */
	unsigned long return_ip[2];	/* by ABI: where the functions return to (a 32-bit
					 * task's: from int $0x80) */
	unsigned long return_fast32;	/* a 32-bit task's from sysenter/syscall; 0: unknown */
	/* By tap_kretprobes entry: its instances (records NULL: not dispatched), their reach. */
	struct tap_task_slots *pools;
	atomic_t *reaches;
	struct tap_task_slots_watch watch;	/* of the pools: their tasks' exits */
	struct tracepoint *enter, *exit;
	bool live;
} tap_sysd;

static atomic_t tap_sysd_missed = ATOMIC_INIT(0);

static const int tap_sysd_table[2] = { TAP_SYSD_TABLE_X64, TAP_SYSD_TABLE_IA32 };

/* The keys of call `nr`: its own, or for a number past its table (but -1, which calls
 * nothing) those of the invalid numbers' function; NULL for none. */
static __always_inline const struct tap_sysd_slot *tap_sysd_slot_of(long nr, bool ia32)
{
	if (nr >= 0 && nr < tap_sysd.nslots[ia32])
		return &tap_sysd.slots[ia32][nr];
	if (nr == -1 || (nr >= 0 && nr < tap_sysd_table[ia32]))
		return NULL;
	return &tap_sysd.beyond[ia32];
}

/* A kernel frame at `ip`, with the user registers `uregs` as the function's argument. */
static __always_inline void tap_sysd_frame(struct pt_regs *frame, struct pt_regs *uregs,
					   unsigned long ip)
{
	memset(frame, 0, sizeof(*frame));
	frame->ip = ip;
	frame->cs = __KERNEL_CS;
	frame->ss = __KERNEL_DS;
	frame->flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF;
	frame->sp = current_stack_pointer;
	frame->di = (unsigned long)uregs;
}

/* An instance of return entry `index` for the current task: the one it kept (its call
 * never came back), else a free one; NULL when all are taken. */
static __always_inline struct tap_sysd_instance *tap_sysd_claim(int index)
{
	struct tap_task_slot *s = tap_task_slot_claim(&tap_sysd.pools[index], 0);

	return s ? container_of(s, struct tap_sysd_instance, slot) : NULL;
}

/* The current task's instance of return entry `index`, or NULL. */
static __always_inline struct tap_sysd_instance *tap_sysd_take(int index)
{
	struct tap_task_slot *s = tap_task_slot_take(&tap_sysd.pools[index], 0);

	return s ? container_of(s, struct tap_sysd_instance, slot) : NULL;
}

static __always_inline void tap_sysd_release(struct tap_sysd_instance *in)
{
	tap_task_slot_release(&in->slot);
}

/* A kretprobe's handlers read nothing of their instance but its data. */
static __always_inline struct kretprobe_instance *tap_sysd_ri(struct tap_sysd_instance *in)
{
	return (struct kretprobe_instance *)((char *)in->data -
					     offsetof(struct kretprobe_instance, data));
}

/*
 * Where the current task's call returns to, as a kretprobe sees it: a 32-bit task's fast path
 * (sysenter, syscall: through the vDSO, __do_fast_syscall_32) has set its user ip to the
 * vDSO's int $0x80 landing pad before the call; int $0x80 returns to its own handler.
 */
static unsigned long tap_sysd_return_ip(bool ia32, struct pt_regs *uregs)
{
#ifdef CONFIG_IA32_EMULATION
	struct mm_struct *mm = current->mm;

	if (ia32 && tap_sysd.return_fast32 && mm && mm->context.vdso_image &&
	    uregs->ip == (unsigned long)mm->context.vdso +
			 mm->context.vdso_image->sym_int80_landing_pad)
		return tap_sysd.return_fast32;
#endif
	return tap_sysd.return_ip[ia32];
}

static void tap_sysd_call(const struct tap_sysd_key *key, unsigned long ip,
			  struct pt_regs *uregs, unsigned long return_ip)
{
	struct kretprobe *rp = &tap_kretprobes[key->index].rp;
	struct tap_sysd_instance *in = tap_sysd_claim(key->index);
	struct pt_regs frame;

	if (!in) {
		atomic_inc(&tap_sysd_missed);
		return;
	}
	in->return_ip = return_ip;
	if (!rp->entry_handler)
		return;
	tap_sysd_frame(&frame, uregs, ip + sizeof(kprobe_opcode_t));
	if (rp->entry_handler(tap_sysd_ri(in), &frame))
		tap_sysd_release(in);
}

/*
 * A call's entries run as the kprobes on one function run them: the kernel keeps them in
 * one list, each newly registered one first, and the kretprobes were registered after the
 * kprobes. So the returns' entry handlers first, then the entries, each in the reverse of
 * table order.
 */
static void tap_sysd_enter(void *data, struct pt_regs *uregs, long nr)
{
	bool ia32 = in_compat_syscall();
	const struct tap_sysd_slot *slot = tap_sysd_slot_of(nr, ia32);
	unsigned long return_ip;
	struct pt_regs frame;
	int k;

	if (!slot || !(slot->nent + slot->nret))
		return;
	preempt_disable_notrace();
	return_ip = slot->nret ? tap_sysd_return_ip(ia32, uregs) : 0;
	for (k = slot->first + slot->nent + slot->nret - 1; k >= slot->first + slot->nent; k--)
		tap_sysd_call(&tap_sysd_keys[k], tap_sysd.ips[k], uregs, return_ip);
	for (; k >= slot->first; k--) {
		struct kprobe *kp = &tap_kprobes[tap_sysd_keys[k].index].kp;

		tap_sysd_frame(&frame, uregs, tap_sysd.ips[k] + sizeof(kprobe_opcode_t));
		kp->pre_handler(kp, &frame);
	}
	preempt_enable_notrace();
}

/* The returns of a slot's calls that the current task is in, in table order. */
static void tap_sysd_returns(const struct tap_sysd_slot *slot, struct pt_regs *uregs, long ret)
{
	struct pt_regs frame;
	int k;

	for (k = slot->first + slot->nent; k < slot->first + slot->nent + slot->nret; k++) {
		int index = tap_sysd_keys[k].index;
		struct tap_sysd_instance *in = tap_sysd_take(index);
		struct kretprobe *rp = &tap_kretprobes[index].rp;

		if (!in)
			continue;
		tap_sysd_frame(&frame, uregs, in->return_ip);
		frame.ax = ret;
		rp->handler(tap_sysd_ri(in), &frame);
		tap_sysd_release(in);
	}
}

/*
 * The calls a successful exec may have been: the kernel makes it look like the new
 * program's ABI's execve (set_personality_64bit(), __set_personality_ia32() set orig_ax and
 * the task's compat status), whichever of execve and execveat of either ABI it entered as.
 */
static const struct tap_sysd_exec {
	long nr;
	bool ia32;
} tap_sysd_execs[] = {
	{ __NR_execve, false }, { __NR_execveat, false },
#ifdef __NR_ia32_execve
	{ __NR_ia32_execve, true }, { __NR_ia32_execveat, true },
#endif
};

/* Whether a sys_exit of call `nr` may end an exec: the execve of the task's ABI. */
static __always_inline bool tap_sysd_exec_end(long nr, bool ia32)
{
#ifdef __NR_ia32_execve
	if (ia32)
		return nr == __NR_ia32_execve;
#endif
	return !ia32 && nr == __NR_execve;
}

static void tap_sysd_exit(void *data, struct pt_regs *uregs, long ret)
{
	bool ia32 = in_compat_syscall();
	long nr = syscall_get_nr(current, uregs);
	const struct tap_sysd_slot *slot = tap_sysd_slot_of(nr, ia32);
	bool exec = tap_sysd_exec_end(nr, ia32);
	int i;

	if ((!slot || !slot->nret) && !exec)
		return;
	preempt_disable_notrace();
	if (slot)
		tap_sysd_returns(slot, uregs, ret);
	if (exec)
		for (i = 0; i < ARRAY_SIZE(tap_sysd_execs); i++) {
			const struct tap_sysd_exec *e = &tap_sysd_execs[i];

			slot = tap_sysd_slot_of(e->nr, e->ia32);
			if (slot && (e->nr != nr || e->ia32 != ia32))
				tap_sysd_returns(slot, uregs, ret);
		}
	preempt_enable_notrace();
}

/* Whether the kernel's symbol at `addr` starts there. */
static bool tap_sysd_symbol_start(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return strstr(sym, "+0x0/") != NULL;
}

/* The kernel's address of a listing address: placed by `slide`; a kprobe at a function's
 * start goes after its endbr64. */
static unsigned long tap_sysd_place(unsigned long addr, unsigned long slide)
{
	unsigned long at = addr + slide;
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;

	if (!copy_from_kernel_nofault(&insn, (void *)at, sizeof(insn)) && insn == 0xfa1e0ff3)
		at += 4;
#endif
	return at;
}

/* The slots of the numbers of each ABI, the functions' addresses; false without memory
 * or when sprint_symbol does not confirm the placement. */
static bool tap_sysd_index(void)
{
	unsigned long slide = (unsigned long)&sprint_symbol - TAP_SYSD_ANCHOR;
	int k, abi;

	if (!tap_sysd_symbol_start(TAP_SYSD_RETURN_X64 + slide) ||
	    !tap_sysd_symbol_start(tap_sysd_keys[0].addr + slide))
		return false;
	/* inside the function, as a return address is */
	tap_sysd.return_ip[0] = TAP_SYSD_RETURN_X64 + slide + 1;
	tap_sysd.return_ip[1] = TAP_SYSD_RETURN_IA32 + slide + 1;
	tap_sysd.return_fast32 = TAP_SYSD_RETURN_FAST32 ? TAP_SYSD_RETURN_FAST32 + slide + 1 : 0;
	for (k = 0; k < TAP_NUM_SYSD_KEYS; k++)
		tap_sysd.nslots[tap_sysd_keys[k].ia32] =
			max(tap_sysd.nslots[tap_sysd_keys[k].ia32], tap_sysd_keys[k].nr + 1);
	for (abi = 0; abi < 2; abi++) {
		tap_sysd.slots[abi] = kcalloc(max(tap_sysd.nslots[abi], 1), sizeof(struct tap_sysd_slot),
					      GFP_KERNEL);
		if (!tap_sysd.slots[abi])
			return false;
	}
	tap_sysd.ips = kcalloc(TAP_NUM_SYSD_KEYS, sizeof(*tap_sysd.ips), GFP_KERNEL);
	if (!tap_sysd.ips)
		return false;
	for (k = TAP_NUM_SYSD_KEYS - 1; k >= 0; k--) {
		const struct tap_sysd_key *key = &tap_sysd_keys[k];
		struct tap_sysd_slot *slot;

		tap_sysd.ips[k] = tap_sysd_place(key->addr, slide);
		if (key->nr == -1)
			continue;
		slot = key->nr < 0 ? &tap_sysd.beyond[key->ia32] : &tap_sysd.slots[key->ia32][key->nr];
		slot->first = k;
		if (key->ret)
			slot->nret++;
		else
			slot->nent++;
	}
	return true;
}

/* The instances of the dispatched return entries, KRETACTIVE (up to its power of two) for
 * each, and the watch that frees those of exiting tasks. */
static bool tap_sysd_pools(void)
{
	struct tap_task_slots_watch *w = &tap_sysd.watch;
	int k;

	if (!TAP_NUM_KRETPROBES)
		return true;
	tap_sysd.pools = kcalloc(TAP_NUM_KRETPROBES, sizeof(*tap_sysd.pools), GFP_KERNEL);
	tap_sysd.reaches = kcalloc(TAP_NUM_KRETPROBES, sizeof(*tap_sysd.reaches), GFP_KERNEL);
	w->tables = kcalloc(TAP_NUM_KRETPROBES, sizeof(*w->tables), GFP_KERNEL);
	if (!tap_sysd.pools || !tap_sysd.reaches || !w->tables)
		return false;
	for (k = 0; k < TAP_NUM_SYSD_KEYS; k++) {
		struct tap_task_slots *pool = &tap_sysd.pools[tap_sysd_keys[k].index];

		if (!tap_sysd_keys[k].ret || pool->records)
			continue;
		pool->size = sizeof(struct tap_sysd_instance) +
			     ALIGN(tap_kretprobes[tap_sysd_keys[k].index].rp.data_size, sizeof(u64));
		pool->bits = order_base_2(KRETACTIVE);
		pool->reach = &tap_sysd.reaches[tap_sysd_keys[k].index];
		pool->records = kcalloc(1U << pool->bits, pool->size, GFP_KERNEL);
		if (!pool->records)
			return false;
		w->tables[w->ntables++] = pool;
	}
	return !w->ntables || !tap_task_slots_watch(w);
}

static void tap_sysd_free(void)
{
	int i;

	for (i = 0; tap_sysd.pools && i < TAP_NUM_KRETPROBES; i++)
		kfree(tap_sysd.pools[i].records);
	kfree(tap_sysd.pools);
	kfree(tap_sysd.reaches);
	kfree(tap_sysd.watch.tables);
	kfree(tap_sysd.ips);
	kfree(tap_sysd.slots[0]);
	kfree(tap_sysd.slots[1]);
	memset(&tap_sysd, 0, sizeof(tap_sysd));
}

/* Whether the dispatch serves the keys' entries (kprobes.h then leaves them). */
static void tap_sysd_mark(bool dispatched)
{
	int k;

	for (k = 0; k < TAP_NUM_SYSD_KEYS; k++) {
		if (tap_sysd_keys[k].ret)
			tap_kretprobes[tap_sysd_keys[k].index].dispatched = dispatched;
		else
			tap_kprobes[tap_sysd_keys[k].index].dispatched = dispatched;
	}
}

/*
 * Before the kprobes start: takes the points when it can, attaching sys_exit first (a call
 * whose entry it sees has its return seen), each at a priority that puts an entry after the
 * other handlers of sys_enter and a return before those of sys_exit. Any failure leaves
 * the points to their kprobes.
 */
static int tap_sysd_start(void)
{
	if (!TAP_SYSCALL_DISPATCH)
		return 0;
	tap_sysd.enter = tap_kernel_tracepoint("sys_enter");
	tap_sysd.exit = tap_kernel_tracepoint("sys_exit");
	if (!tap_sysd.enter || !tap_sysd.exit || !tap_sysd_index() || !tap_sysd_pools())
		goto fail;
	if (tracepoint_probe_register_prio(tap_sysd.exit, tap_sysd_exit, NULL,
					   TRACEPOINT_DEFAULT_PRIO + 1))
		goto unwatch;
	if (tracepoint_probe_register_prio(tap_sysd.enter, tap_sysd_enter, NULL,
					   TRACEPOINT_DEFAULT_PRIO - 1)) {
		tracepoint_probe_unregister(tap_sysd.exit, tap_sysd_exit, NULL);
		goto unwatch;
	}
	tap_sysd.live = true;
	tap_sysd_mark(true);
	return 0;
unwatch:
	tap_task_slots_unwatch(&tap_sysd.watch);
	tracepoint_synchronize_unregister();
fail:
	tap_sysd_free();
	return 0;
}

/*
 * Waits for the handlers still running. Up to 6.12 the syscall tracepoints call them with
 * preemption off, which an expedited RCU grace period waits for: tracepoint_synchronize_
 * unregister()'s SRCU and RCU grace periods took some 150 ms of virtual time more at the
 * stop (make bench-vm, 6.1). Later kernels may call them where they can fault.
 */
static void tap_sysd_synchronize(void)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
	synchronize_rcu_expedited();
#else
	tracepoint_synchronize_unregister();
#endif
}

/* After the kprobes stop: what a call still in flight holds is dropped, as a kretprobe's
 * instances at its unregistration. */
static void tap_sysd_stop(void)
{
	if (!tap_sysd.live)
		return;
	tracepoint_probe_unregister(tap_sysd.enter, tap_sysd_enter, NULL);
	tracepoint_probe_unregister(tap_sysd.exit, tap_sysd_exit, NULL);
	tap_task_slots_unwatch(&tap_sysd.watch);
	tap_sysd_synchronize();
	tap_sysd_mark(false);
	atomic_add(atomic_xchg(&tap_sysd_missed, 0), &tap_skipped_count);
	tap_sysd_free();
}
#else
static int tap_sysd_start(void)
{
	return 0;
}

static void tap_sysd_stop(void)
{
}
#endif

#endif
