// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (g):
 *   global n
 *   probe process(WORKLOAD).function("bench_func").return { n++ }
 * by hand: a uretprobe adding one to this CPU's counter.
 */
#include "floor_uprobe.h"

static int ret_handler(struct uprobe_consumer *uc, unsigned long func,
		       struct pt_regs *regs)
{
	this_cpu_inc(floor_count);
	return 0;
}

FLOOR_UPROBE_COUNTING_MODULE("floor_g", .ret_handler, ret_handler);
