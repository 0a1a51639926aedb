// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (a), the mechanism alone: an empty kretprobe on the system
 * call (no entry handler, a return handler that does nothing).
 */
#include <linux/kprobes.h>
#include <linux/module.h>

#include "floor_common.h"

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static struct kretprobe floor_kretprobe = {
	.kp.symbol_name = FLOOR_FUNC,
	.handler = ret_handler,
	.maxactive = 20,
};

static int __init floor_init(void)
{
	return register_kretprobe(&floor_kretprobe);
}

static void __exit floor_exit(void)
{
	unregister_kretprobe(&floor_kretprobe);
	pr_info("floor_a0: missed %d\n", floor_kretprobe.nmissed);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
