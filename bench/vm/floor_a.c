// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (a):
 *   global t
 *   probe kernel.function("__x64_sys_getppid").return {
 *     t <<< gettimeofday_ns() - @entry(gettimeofday_ns())
 *   }
 * as a kretprobe module does it by hand: the entry time in the instance's data, the
 * difference added to this CPU's aggregate.
 */
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>

#include "floor_common.h"

struct entry_data {
	u64 entry_ns;
};

static DEFINE_PER_CPU(struct floor_stat, floor_stats);

static int entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct entry_data *data = (struct entry_data *)ri->data;

	data->entry_ns = ktime_get_real_ns();
	return 0;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct entry_data *data = (struct entry_data *)ri->data;

	floor_stat_add(this_cpu_ptr(&floor_stats), ktime_get_real_ns() - data->entry_ns);
	return 0;
}

static struct kretprobe floor_kretprobe = {
	.kp.symbol_name = FLOOR_FUNC,
	.handler = ret_handler,
	.entry_handler = entry_handler,
	.data_size = sizeof(struct entry_data),
	.maxactive = 20,
};

static int __init floor_init(void)
{
	return register_kretprobe(&floor_kretprobe);
}

static void __exit floor_exit(void)
{
	struct floor_stat total = { 0 };
	int cpu;

	unregister_kretprobe(&floor_kretprobe);
	for_each_possible_cpu(cpu) {
		struct floor_stat *st = per_cpu_ptr(&floor_stats, cpu);

		if (!st->count)
			continue;
		if (!total.count || st->min < total.min)
			total.min = st->min;
		if (!total.count || st->max > total.max)
			total.max = st->max;
		total.count += st->count;
		total.sum += st->sum;
	}
	pr_info("floor_a: count %lld min %lld max %lld sum %lld missed %d\n", total.count,
		total.min, total.max, total.sum, floor_kretprobe.nmissed);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
