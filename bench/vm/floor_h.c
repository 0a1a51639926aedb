// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (h):
 *   global t
 *   probe process(WORKLOAD).function("bench_func").return {
 *     t <<< gettimeofday_ns() - @entry(gettimeofday_ns())
 *   }
 * by hand: the uprobe keeps the entry time of each call in a slot of a small table, claimed
 * for the task at its stack pointer (nested calls, threads); the uretprobe finds it by the
 * same key (the stack pointer 8 bytes higher: the return address popped), adds the
 * difference to this CPU's aggregate and frees the slot. Slots are looked for from a hash of
 * the key on (open addressing), so that the common case touches one; a call that finds none
 * free is not timed.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>

#include "floor_common.h"
#include "floor_uprobe.h"

#define SLOT_BITS 8
#define SLOTS (1 << SLOT_BITS)

struct slot {
	struct task_struct *task;	/* NULL: free */
	unsigned long sp;
	u64 entry_ns;
};

static struct slot slots[SLOTS];
static DEFINE_PER_CPU(struct floor_stat, floor_stats);

static unsigned int slot_hash(unsigned long sp)
{
	return hash_long((unsigned long)current ^ sp, SLOT_BITS);
}

static int handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	unsigned int h = slot_hash(regs->sp), i;

	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[(h + i) & (SLOTS - 1)];

		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, NULL, current)) {
			s->sp = regs->sp;
			s->entry_ns = ktime_get_real_ns();
			return 0;
		}
	}
	return 0;
}

static int ret_handler(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
{
	unsigned long sp = regs->sp - 8;
	unsigned int h = slot_hash(sp), i;

	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[(h + i) & (SLOTS - 1)];

		if (READ_ONCE(s->task) == current && s->sp == sp) {
			s64 delta = ktime_get_real_ns() - s->entry_ns;

			floor_stat_add(get_cpu_ptr(&floor_stats), delta);
			put_cpu_ptr(&floor_stats);
			smp_store_release(&s->task, NULL);
			return 0;
		}
	}
	return 0;
}

static struct uprobe_consumer floor_consumer = {
	.handler = handler,
	.ret_handler = ret_handler,
};

static int __init floor_init(void)
{
	return floor_uprobe_register(&floor_consumer);
}

static void __exit floor_exit(void)
{
	struct floor_stat total = { 0 };
	int cpu;

	floor_uprobe_unregister(&floor_consumer);
	for_each_possible_cpu(cpu) {
		struct floor_stat *st = per_cpu_ptr(&floor_stats, cpu);

		total.count += st->count;
		total.sum += st->sum;
	}
	pr_info("floor_h: count %lld sum %lld\n", total.count, total.sum);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
