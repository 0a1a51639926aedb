/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the benchmark's uprobe floors (f, g, h) share: the point, given as module parameters
 * (the workload's path and bench_func()'s offset in it, as bench/run-vm-bench.sh computes
 * them), and its registration on the file's inode, by the API of 6.1 or that of 6.12
 * (uprobe_register() giving the struct uprobe, uprobe_unregister_nosync() + _sync()); and
 * the rest of a floor that counts hits (f, g), whose file is then its callback and one line.
 */
#ifndef FLOOR_UPROBE_H
#define FLOOR_UPROBE_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/uprobes.h>
#include <linux/version.h>

#define FLOOR_NEW_UPROBE_API (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

static char *path;
module_param(path, charp, 0);
static unsigned long offset;
module_param(offset, ulong, 0);

static struct inode *floor_inode;
#if FLOOR_NEW_UPROBE_API
static struct uprobe *floor_uprobe;
#endif

static int floor_uprobe_register(struct uprobe_consumer *uc)
{
	struct path p;
	int rc;

	rc = kern_path(path, LOOKUP_FOLLOW, &p);
	if (rc)
		return rc;
	floor_inode = igrab(d_inode(p.dentry));
	path_put(&p);
#if FLOOR_NEW_UPROBE_API
	floor_uprobe = uprobe_register(floor_inode, offset, 0, uc);
	rc = PTR_ERR_OR_ZERO(floor_uprobe);
#else
	rc = uprobe_register(floor_inode, offset, uc);
#endif
	if (rc)
		iput(floor_inode);
	return rc;
}

static void floor_uprobe_unregister(struct uprobe_consumer *uc)
{
#if FLOOR_NEW_UPROBE_API
	uprobe_unregister_nosync(floor_uprobe, uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(floor_inode, offset, uc);
#endif
	iput(floor_inode);
}

/* The counter of a floor that counts: its callback does this_cpu_inc(floor_count). */
static __maybe_unused DEFINE_PER_CPU(u64, floor_count);

/*
 * The module of a floor that counts, but its callback `fn` (`field`: .handler or
 * .ret_handler): the consumer registered at init, and at exit the count in the kernel log,
 * "NAME: n TOTAL".
 */
#define FLOOR_UPROBE_COUNTING_MODULE(name, field, fn)			\
	static struct uprobe_consumer floor_consumer = { field = fn };	\
									\
	static int __init floor_init(void)				\
	{								\
		return floor_uprobe_register(&floor_consumer);		\
	}								\
									\
	static void __exit floor_exit(void)				\
	{								\
		u64 total = 0;						\
		int cpu;						\
									\
		floor_uprobe_unregister(&floor_consumer);		\
		for_each_possible_cpu(cpu)				\
			total += per_cpu(floor_count, cpu);		\
		pr_info(name ": n %llu\n", total);			\
	}								\
									\
	module_init(floor_init);					\
	module_exit(floor_exit);					\
	MODULE_LICENSE("GPL")

#endif
