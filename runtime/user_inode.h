/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A user-space file's inode, as the processes that run it map it: under the root the -c
 * command runs in (the loader's user_root, session.h: the host's files in the bundled VM),
 * and through an overlay to the file it maps. uprobes (uprobes.h) and the task finder's
 * process("PATH") points (taskfinder.h) and perf's .process("PATH") points (perf.h) name
 * files so.
 */
#ifndef TAP_USER_INODE_H
#define TAP_USER_INODE_H

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/mm_types.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "session.h"

/* The inode of `file` with a reference (iput() it), or NULL with *err set: -ENOMEM, or
 * the lookup's error (-ENOENT when the file is not there). */
static struct inode *tap_user_inode(const char *file, int *err)
{
	char *name = kasprintf(GFP_KERNEL, "%s%s", tap_user_root, file);
	struct inode *inode;
	struct path path;

	if (!name) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = kern_path(name, LOOKUP_FOLLOW, &path);
	kfree(name);
	if (*err)
		return NULL;
	inode = igrab(d_real_inode(path.dentry));
	path_put(&path);
	if (!inode)
		*err = -ENOENT;
	return inode;
}

/* Whether task t runs the file of `inode` (as tap_user_inode() found it): its executable,
 * or the file under the overlay that executable is. */
static inline bool tap_task_runs(struct task_struct *t, struct inode *inode)
{
	struct mm_struct *mm = t->mm;
	struct file *exe;
	bool same = false;

	if (!mm || !inode)
		return false;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	same = exe && (file_inode(exe) == inode || d_real_inode(exe->f_path.dentry) == inode);
	rcu_read_unlock();
	return same;
}

#endif
