// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (d):
 *   probe kernel.function("__x64_sys_getppid") { printf("%s %d\n", execname(), pid()) }
 * by hand, delivered as tapster delivers it: each line goes into this CPU's buffer of a relay
 * channel (the kernel's per-CPU transport to user space, debugfs files floor_d/cpuN), which
 * bench/vm/floor_reader.c reads and writes to a file in the guest, as tapster-run writes -o.
 * Lean: the line's length is known before it is written (the name's, the number's digits),
 * so it is put together in place in the space relay_reserve() gives, no copy; the format is
 * known when the module is written, so no scnprintf(), which would read "%s %d\n" again on
 * every hit. The relay wakes its reader (an irq_work) when a sub-buffer is full, not per line.
 * Sub-buffers: 8 of 128 kB, tapster's 1 MB ring a CPU; the reader is woken about as often as
 * tapster's loader is (its 10 ms poll), so the lines left for after the run are as many.
 */
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "floor_common.h"

#define FLOOR_SUBBUF_SIZE (128 * 1024)
#define FLOOR_SUBBUFS 8

static struct rchan *floor_chan;
static struct dentry *floor_dir;

static int pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	size_t name_len = strnlen(current->comm, TASK_COMM_LEN - 1);
	unsigned int pid = task_tgid_nr(current), rest;
	size_t digits = 1;
	char *s;

	for (rest = pid / 10; rest; rest /= 10)
		digits++;
	s = relay_reserve(floor_chan, name_len + digits + 2);
	if (!s)
		return 0;	/* the reader is behind: the line is dropped */
	memcpy(s, current->comm, name_len);
	s += name_len;
	*s++ = ' ';
	s[digits] = '\n';
	do {
		s[--digits] = '0' + pid % 10;
		pid /= 10;
	} while (digits);
	return 0;
}

static struct kprobe floor_kprobe = {
	.symbol_name = FLOOR_FUNC,
	.pre_handler = pre_handler,
};

static struct dentry *create_buf_file(const char *filename, struct dentry *parent,
				      umode_t mode, struct rchan_buf *buf, int *is_global)
{
	return debugfs_create_file(filename, mode, parent, buf, &relay_file_operations);
}

static int remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks floor_callbacks = {
	.create_buf_file = create_buf_file,
	.remove_buf_file = remove_buf_file,
};

static int __init floor_init(void)
{
	int ret;

	floor_dir = debugfs_create_dir("floor_d", NULL);
	floor_chan = relay_open("cpu", floor_dir, FLOOR_SUBBUF_SIZE, FLOOR_SUBBUFS,
				&floor_callbacks, NULL);
	if (!floor_chan) {
		debugfs_remove(floor_dir);
		return -ENOMEM;
	}
	ret = register_kprobe(&floor_kprobe);
	if (ret) {
		relay_close(floor_chan);
		debugfs_remove(floor_dir);
	}
	return ret;
}

static void __exit floor_exit(void)
{
	unregister_kprobe(&floor_kprobe);
	relay_close(floor_chan);
	debugfs_remove(floor_dir);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
