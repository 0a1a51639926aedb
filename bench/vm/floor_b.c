// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (b):
 *   global n
 *   probe kernel.function("__x64_sys_getppid") { n++ }
 * by hand: a kprobe adding one to this CPU's counter.
 */
#include <linux/kprobes.h>
#include <linux/module.h>

#include "floor_common.h"

static DEFINE_PER_CPU(u64, floor_count);

static int pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_inc(floor_count);
	return 0;
}

static struct kprobe floor_kprobe = {
	.symbol_name = FLOOR_FUNC,
	.pre_handler = pre_handler,
};

static int __init floor_init(void)
{
	return register_kprobe(&floor_kprobe);
}

static void __exit floor_exit(void)
{
	u64 total = 0;
	int cpu;

	unregister_kprobe(&floor_kprobe);
	for_each_possible_cpu(cpu)
		total += per_cpu(floor_count, cpu);
	pr_info("floor_b: n %llu\n", total);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
