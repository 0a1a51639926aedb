// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (f):
 *   global n
 *   probe process(WORKLOAD).function("bench_func") { n++ }
 * by hand: a uprobe adding one to this CPU's counter.
 */
#include "floor_uprobe.h"

static int handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	this_cpu_inc(floor_count);
	return 0;
}

FLOOR_UPROBE_COUNTING_MODULE("floor_f", .handler, handler);
