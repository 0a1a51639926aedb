/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfs probes: the files /proc/systemtap/MODULE/PATH, made when the probes are armed
 * and removed (the directory too) when they are stopped. /proc/systemtap itself is made
 * by the first module that needs it and stays, as stap's.
 *
 * A file has one buffer, of its read probe's .maxsize (MAXSTRINGLEN by default), and a
 * mutex. As in stap, one process has it open at a time: another open waits for the close
 * (or fails with EAGAIN under O_NONBLOCK). The first read after an open runs the read
 * probe, whose `$value = ...` and `$value .= ...` fill the buffer; the reads then return
 * it, page by page if it is larger. Each write(2) runs the write probes in turn with
 * $value the bytes written (at most MAXSTRINGLEN - 1, and less than the buffer; the rest is
 * a short write), and fails with EIO when a probe fails or is skipped.
 *
 * The bodies run from the reading or writing task, in process context, the context taken
 * with preemption off (tap_context_enter_process()); $value reaches the file's buffer
 * through this CPU's tap_procfs_current while the body runs.
 *
 * The generated module defines tap_procfs_probes[] (a file's read probe, then its write
 * probes), tap_procfs_files[TAP_NUM_PROCFS_FILES] and tap_procfs_dirs[TAP_NUM_PROCFS_DIRS]
 * (the directories of the paths, parents first).
 */
#ifndef TAP_PROCFS_H
#define TAP_PROCFS_H

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "context.h"

/* What $value is in the probe body running on a CPU. */
struct tap_procfs_value {
	char *buffer;
	size_t size;		/* the buffer's, its NUL included */
	size_t count;
};

static DEFINE_PER_CPU(struct tap_procfs_value *, tap_procfs_current);

struct tap_procfs_file {
	const char *path;	/* under the module's directory */
	umode_t mode;
	size_t bufsize;
	const struct tap_been_probe *read;	/* or NULL */
	const struct tap_been_probe *writes;
	int nwrites;
	/* The session's. */
	struct mutex lock;	/* the buffer's, and the reads and writes */
	wait_queue_head_t wait;	/* for the file to be closed */
	bool open;
	bool filled;		/* the read probe ran since the open */
	char *buffer;		/* bufsize bytes, for the read probe */
	size_t count;
	char *input;		/* MAXSTRINGLEN bytes, for the write probes */
};

#ifndef TAP_NUM_PROCFS_FILES
#define TAP_NUM_PROCFS_FILES 0
#endif
#ifndef TAP_NUM_PROCFS_DIRS
#define TAP_NUM_PROCFS_DIRS 0
#endif

#if TAP_NUM_PROCFS_FILES > 0
static struct tap_procfs_file tap_procfs_files[TAP_NUM_PROCFS_FILES];	/* generated */
#else
static struct tap_procfs_file *const tap_procfs_files __maybe_unused;
#endif
#if TAP_NUM_PROCFS_DIRS > 0
static const char *const tap_procfs_dirs[TAP_NUM_PROCFS_DIRS];	/* generated */
#else
static const char *const *const tap_procfs_dirs __maybe_unused;
#endif

static struct proc_dir_entry *tap_procfs_dir;
static bool tap_procfs_closing;	/* the files go: opens waiting give up */

/* $value in a write probe: the bytes written, as a string. */
static __maybe_unused void tap_procfs_value_get(char *out)
{
	struct tap_procfs_value *v = this_cpu_read(tap_procfs_current);

	out[0] = '\0';
	if (v)
		strscpy(out, v->buffer, MAXSTRINGLEN);
}

/* $value = s (or .= s) in a read probe: 0, or when the buffer is too small for it (it
 * then holds what fits), the .maxsize it would take. */
static __maybe_unused unsigned long tap_procfs_value_put(const char *s, bool append)
{
	struct tap_procfs_value *v = this_cpu_read(tap_procfs_current);
	size_t len = strlen(s), start;

	if (!v)
		return 0;
	start = append ? v->count : 0;
	if (start + len > v->size - 1) {
		size_t room = v->size - 1 - start;

		memcpy(v->buffer + start, s, room);
		v->count = v->size - 1;
		v->buffer[v->count] = '\0';
		return start + len + 1;
	}
	memcpy(v->buffer + start, s, len + 1);
	v->count = start + len;
	return 0;
}

/* Runs `probe` with $value `v`: 0, 1 when it failed, or -EIO when it was skipped. */
static int tap_procfs_run(const struct tap_been_probe *probe, struct tap_procfs_value *v)
{
	struct tap_context *c = tap_context_enter_process(probe->pp, TAP_RUNNING);
	bool failed;

	if (!c)
		return -EIO;
	this_cpu_write(tap_procfs_current, v);
	probe->body(c);
	this_cpu_write(tap_procfs_current, NULL);
	failed = c->last_error != NULL;
	tap_context_exit_process(c);
	return failed;
}

static int tap_procfs_open(struct inode *inode, struct file *filp)
{
	struct tap_procfs_file *f = pde_data(inode);
	int rc;

	mutex_lock(&f->lock);
	while (f->open) {
		mutex_unlock(&f->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		rc = wait_event_interruptible(f->wait, !READ_ONCE(f->open) ||
					      READ_ONCE(tap_procfs_closing));
		if (rc)
			return rc;
		if (READ_ONCE(tap_procfs_closing))
			return -ENOENT;
		mutex_lock(&f->lock);
	}
	f->open = true;
	f->filled = false;
	f->count = 0;
	if (f->buffer)
		f->buffer[0] = '\0';
	mutex_unlock(&f->lock);
	filp->private_data = f;
	return 0;
}

static int tap_procfs_release(struct inode *inode, struct file *filp)
{
	struct tap_procfs_file *f = filp->private_data;

	mutex_lock(&f->lock);
	f->open = false;
	mutex_unlock(&f->lock);
	wake_up_interruptible(&f->wait);
	return 0;
}

static ssize_t tap_procfs_read(struct file *filp, char __user *buf, size_t size, loff_t *ppos)
{
	struct tap_procfs_file *f = filp->private_data;
	struct tap_procfs_value v;
	ssize_t rc = 0;

	if (!f->read)
		return 0;
	mutex_lock(&f->lock);
	if (!f->filled) {
		v = (struct tap_procfs_value){ f->buffer, f->bufsize, 0 };
		f->buffer[0] = '\0';
		/* A failed probe leaves what it put in the buffer, as stap's. */
		if (tap_procfs_run(f->read, &v) < 0)
			rc = -EIO;
		f->count = v.count;
		f->filled = !rc;
	}
	if (!rc)
		rc = simple_read_from_buffer(buf, size, ppos, f->buffer, f->count);
	mutex_unlock(&f->lock);
	return rc;
}

static ssize_t tap_procfs_write(struct file *filp, const char __user *buf, size_t size,
				loff_t *ppos)
{
	struct tap_procfs_file *f = filp->private_data;
	size_t count = min3(size, (size_t)MAXSTRINGLEN - 1, f->bufsize - 1);
	struct tap_procfs_value v = { f->input, count + 1, count };
	ssize_t rc = 0;
	int i;

	if (!f->nwrites)
		return -EIO;
	mutex_lock(&f->lock);
	if (copy_from_user(f->input, buf, count)) {
		rc = -EFAULT;
		goto out;
	}
	f->input[count] = '\0';
	for (i = 0; i < f->nwrites; i++)
		if (tap_procfs_run(&f->writes[i], &v))
			rc = -EIO;
	if (!rc) {
		rc = count;
		*ppos += count;
	}
out:
	mutex_unlock(&f->lock);
	return rc;
}

static const struct proc_ops tap_procfs_ops = {
	.proc_open = tap_procfs_open,
	.proc_release = tap_procfs_release,
	.proc_read = tap_procfs_read,
	.proc_write = tap_procfs_write,
	.proc_lseek = generic_file_llseek,
};

/* /proc/systemtap, made once and never removed (other sessions may use it). */
static void tap_procfs_root(void)
{
	struct path path;

	if (!kern_path("/proc/systemtap", 0, &path)) {
		path_put(&path);
		return;
	}
	proc_mkdir("systemtap", NULL);
}

static void tap_procfs_free(void)
{
	int i;

	for (i = 0; i < TAP_NUM_PROCFS_FILES; i++) {
		kvfree(tap_procfs_files[i].buffer);
		tap_procfs_files[i].buffer = NULL;
		kfree(tap_procfs_files[i].input);
		tap_procfs_files[i].input = NULL;
	}
}

/* ---- The provider's parts in the session (providers.h) ---- */

static void tap_procfs_stop(void)
{
	int i;

	if (!tap_procfs_dir)
		return;
	WRITE_ONCE(tap_procfs_closing, true);
	for (i = 0; i < TAP_NUM_PROCFS_FILES; i++)
		wake_up_interruptible(&tap_procfs_files[i].wait);
	/* Waits for the calls under way, and closes the files still open. */
	proc_remove(tap_procfs_dir);
	tap_procfs_dir = NULL;
	tap_procfs_free();
}

static int tap_procfs_start(void)
{
	char *name;
	int i;

	if (!TAP_NUM_PROCFS_FILES)
		return 0;
	tap_procfs_closing = false;
	for (i = 0; i < TAP_NUM_PROCFS_FILES; i++) {
		struct tap_procfs_file *f = &tap_procfs_files[i];

		mutex_init(&f->lock);
		init_waitqueue_head(&f->wait);
		if (f->read)
			f->buffer = kvzalloc(f->bufsize, GFP_KERNEL);
		if (f->nwrites)
			f->input = kzalloc(MAXSTRINGLEN, GFP_KERNEL);
		if ((f->read && !f->buffer) || (f->nwrites && !f->input))
			goto nomem;
	}
	tap_procfs_root();
	name = kasprintf(GFP_KERNEL, "systemtap/%s", THIS_MODULE->name);
	if (!name)
		goto nomem;
	tap_procfs_dir = proc_mkdir(name, NULL);
	kfree(name);
	if (!tap_procfs_dir)
		goto fail;
	for (i = 0; i < TAP_NUM_PROCFS_DIRS; i++)
		if (!proc_mkdir(tap_procfs_dirs[i], tap_procfs_dir))
			goto fail;
	for (i = 0; i < TAP_NUM_PROCFS_FILES; i++) {
		struct tap_procfs_file *f = &tap_procfs_files[i];

		if (!proc_create_data(f->path, f->mode, tap_procfs_dir, &tap_procfs_ops, f))
			goto fail;
	}
	return 0;
nomem:
	tap_procfs_free();
	return -ENOMEM;
fail:
	tap_procfs_stop();
	tap_procfs_free();
	return -EEXIST;
}

#endif
