/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --monitor (a build with TAP_MONITOR and STP_TIMING): /proc/tapster_MODULE/monitor, which
 * the loader reads every INTERVAL seconds for its screen. One read gives a snapshot:
 *
 *   uptime_ms MS                    since the module was inserted
 *   point INDEX HITS MIN AVG MAX<TAB>PP<TAB>FILE:LINE:COL
 *
 * one point line for each probe point of the program, in its order, with its hits and the
 * cycles they took on all CPUs (timing.h's statistics). The counts are read while probes
 * run on other CPUs, without stopping them: a snapshot may be a hit behind, never torn in
 * a way that matters for a screen. The script's globals come from the procfs read probe
 * the translator adds (src/resolve/autoprint.c), which takes their locks as any probe.
 */
#ifndef TAP_MONITOR_H
#define TAP_MONITOR_H

#ifdef TAP_MONITOR

#include <linux/seq_file.h>

#include "context.h"

static unsigned long tap_monitor_start;	/* jiffies at insmod */

/* The hits of point i on all CPUs, and their cycles' minimum, sum and maximum. */
static void tap_monitor_gather(int i, struct tap_stat *all)
{
	int cpu;

	memset(all, 0, sizeof(*all));
	for_each_possible_cpu(cpu) {
		const struct tap_stat *part = &tap_contexts[cpu]->timing[i].stat;
		int64_t count = READ_ONCE(part->count);
		int64_t min = READ_ONCE(part->min), max = READ_ONCE(part->max);

		if (!count)
			continue;
		if (!all->count || min < all->min)
			all->min = min;
		if (!all->count || max > all->max)
			all->max = max;
		all->count += count;
		all->sum += READ_ONCE(part->sum);
	}
}

static int tap_monitor_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "uptime_ms %u\n", jiffies_to_msecs(jiffies - tap_monitor_start));
	for (i = 0; i < TAP_NUM_TIMING_POINTS; i++) {
		const struct tap_timing_point *p = &tap_timing_points[i];
		struct tap_stat all;

		tap_monitor_gather(i, &all);
		seq_printf(m, "point %d %lld %lld %lld %lld\t%s\t%s\n", i,
			   (long long)all.count, (long long)all.min,
			   all.count ? (long long)div64_s64(all.sum, all.count) : 0LL,
			   (long long)all.max, p->pp, p->location);
	}
	return 0;
}

static int tap_monitor_open(struct inode *inode, struct file *file)
{
	return single_open(file, tap_monitor_show, NULL);
}

static const struct proc_ops tap_monitor_ops = {
	.proc_open = tap_monitor_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

/* At insmod, in the module's proc directory. */
static bool tap_monitor_init(struct proc_dir_entry *dir)
{
	tap_monitor_start = jiffies;
	return proc_create("monitor", 0400, dir, &tap_monitor_ops) != NULL;
}

#else
static inline bool tap_monitor_init(struct proc_dir_entry *dir)
{
	return true;
}
#endif
#endif
