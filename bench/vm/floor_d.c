// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (d):
 *   probe kernel.function("__x64_sys_getppid") { printf("%s %d\n", execname(), pid()) }
 * by hand: the line formatted into this CPU's buffer, which starts over when full. Lean: the
 * format is known when the module is written, so the line is put together directly (the
 * name copied, the number's digits), not through scnprintf(), which would read "%s %d\n"
 * again on every hit. Nobody reads the buffer: the floor is the formatting and the copy,
 * where tapster's figure also holds handing the lines to its loader, which writes them to
 * a file.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "floor_common.h"

#define FLOOR_BUFFER_SIZE 65536
#define FLOOR_LINE_MAX 64

struct floor_buffer {
	unsigned int len;
	u64 lines;
	char text[FLOOR_BUFFER_SIZE];
};

/* One per possible CPU: too big for the module's per-CPU area. */
static struct floor_buffer **floor_buffers;

static int pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct floor_buffer *b = floor_buffers[smp_processor_id()];
	size_t name_len = strnlen(current->comm, TASK_COMM_LEN - 1);
	unsigned int pid = task_tgid_nr(current);
	char digits[10], *s;
	int n = 0;

	if (b->len > FLOOR_BUFFER_SIZE - FLOOR_LINE_MAX)
		b->len = 0;
	s = b->text + b->len;
	memcpy(s, current->comm, name_len);
	s += name_len;
	*s++ = ' ';
	do {
		digits[n++] = '0' + pid % 10;
		pid /= 10;
	} while (pid);
	while (n)
		*s++ = digits[--n];
	*s++ = '\n';
	b->len = s - b->text;
	b->lines++;
	return 0;
}

static struct kprobe floor_kprobe = {
	.symbol_name = FLOOR_FUNC,
	.pre_handler = pre_handler,
};

static void floor_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		vfree(floor_buffers[cpu]);
	kfree(floor_buffers);
}

static int __init floor_init(void)
{
	int cpu, ret;

	floor_buffers = kcalloc(nr_cpu_ids, sizeof(*floor_buffers), GFP_KERNEL);
	if (!floor_buffers)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		floor_buffers[cpu] = vzalloc(sizeof(struct floor_buffer));
		if (!floor_buffers[cpu]) {
			floor_free();
			return -ENOMEM;
		}
	}
	ret = register_kprobe(&floor_kprobe);
	if (ret)
		floor_free();
	return ret;
}

static void __exit floor_exit(void)
{
	u64 lines = 0;
	int cpu;

	unregister_kprobe(&floor_kprobe);
	for_each_possible_cpu(cpu)
		lines += floor_buffers[cpu]->lines;
	pr_info("floor_d: lines %llu\n", lines);
	floor_free();
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
