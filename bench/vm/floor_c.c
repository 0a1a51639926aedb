// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (c):
 *   global m
 *   probe kernel.function("__x64_sys_getppid") { m[execname()]++ }
 * by hand: a hash table of counts keyed by the task's name, its entries from a fixed pool,
 * under one spinlock. Lean: the kernel's word-at-a-time string hash (length and hash in one
 * pass), and the lock without disabling interrupts (only this probe takes it, in the
 * system call's process context).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "floor_common.h"

#define FLOOR_BUCKETS 256
#define FLOOR_ENTRIES 2048

struct floor_entry {
	struct floor_entry *next;
	char key[TASK_COMM_LEN];
	s64 value;
};

static DEFINE_RAW_SPINLOCK(floor_lock);
static struct floor_entry *floor_buckets[FLOOR_BUCKETS];
static struct floor_entry floor_pool[FLOOR_ENTRIES];
static int floor_used;

static int pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	char key[TASK_COMM_LEN];
	struct floor_entry **bucket, *e;

	memcpy(key, current->comm, sizeof(key));
	key[TASK_COMM_LEN - 1] = '\0';
	bucket = &floor_buckets[hashlen_hash(hashlen_string(NULL, key)) % FLOOR_BUCKETS];
	raw_spin_lock(&floor_lock);
	for (e = *bucket; e; e = e->next)
		if (!strcmp(e->key, key))
			break;
	if (!e && floor_used < FLOOR_ENTRIES) {
		e = &floor_pool[floor_used++];
		memcpy(e->key, key, sizeof(key));
		e->next = *bucket;
		*bucket = e;
	}
	if (e)
		e->value++;
	raw_spin_unlock(&floor_lock);
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
	int i;

	unregister_kprobe(&floor_kprobe);
	for (i = 0; i < floor_used; i++)
		pr_info("floor_c: m[\"%s\"] %lld\n", floor_pool[i].key, floor_pool[i].value);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
