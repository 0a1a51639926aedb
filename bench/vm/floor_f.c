// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (f):
 *   global n
 *   probe process(WORKLOAD).function("bench_func") { n++ }
 * by hand: a uprobe adding one to this CPU's counter.
 */
#include <linux/module.h>
#include <linux/percpu.h>

#include "floor_uprobe.h"

static DEFINE_PER_CPU(u64, floor_count);

static int handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	this_cpu_inc(floor_count);
	return 0;
}

static struct uprobe_consumer floor_consumer = {
	.handler = handler,
};

static int __init floor_init(void)
{
	return floor_uprobe_register(&floor_consumer);
}

static void __exit floor_exit(void)
{
	u64 total = 0;
	int cpu;

	floor_uprobe_unregister(&floor_consumer);
	for_each_possible_cpu(cpu)
		total += per_cpu(floor_count, cpu);
	pr_info("floor_f: n %llu\n", total);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
