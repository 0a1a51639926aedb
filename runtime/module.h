/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session's life in the kernel, driven by the loader through /proc/tapster_MODULE/ctl:
 *
 *   insmod        contexts, rings and the proc files are set up; nothing fires yet
 *   "begin"       begin probes run (in priority order); nothing else fires yet
 *   "run"         every other probe is registered; between the two the loader writes out
 *                 what the begin probes printed, so that it comes before any other output
 *   "start"       both at once ("begin" then "run"), for -L, which reads nothing yet
 *   "stop"        (or exit(), or an error limit) the stop work unregisters the probes, runs the
 *                 end probes, reports the counters, and the state becomes STOPPED
 *   read of out   returns end of file once STOPPED and drained; then the loader unloads us
 *
 * Reading ctl gives the state and the counters as "name value" lines; "armed N" and
 * "points M" say how far "run" is in registering the points (the loader reads them while
 * its write of "run" waits, for tapster's progress line).
 */
#ifndef TAP_MODULE_H
#define TAP_MODULE_H

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/workqueue.h>

#include "been.h"
#include "monitor.h"
#include "compat.h"
#include "context.h"
#include "print.h"
#include "providers.h"
#include "session.h"
#include "timing.h"
#include "transport.h"

static bool tap_started;
static DEFINE_MUTEX(tap_ctl_mutex);
static struct proc_dir_entry *tap_proc_dir;
static struct timer_list tap_poll_timer;
static void tap_stop_work_fn(struct work_struct *work);
static DECLARE_WORK(tap_stop_work, tap_stop_work_fn);

/* The poll timer's period: the shortest while there is output or work, doubling up to the
 * longest while there is none (a kick, session.h, makes up for the wait). */
#define TAP_POLL_INTERVAL max(1, HZ / 100)
#define TAP_POLL_INTERVAL_IDLE max(1, HZ / 10)
static unsigned long tap_poll_interval;	/* set by tap_module_init() */

/* The closing words of a session, as stap has them. */
static void tap_report_counters(void)
{
	struct tap_context *c = tap_context_enter_process(NULL, TAP_STOPPING);
	int errors = atomic_read(&tap_error_count);
	int skipped = atomic_read(&tap_skipped_count);
	int reentrant = atomic_read(&tap_skipped_reentrant);
	int __maybe_unused i;

	if (!c)
		return;
#if defined(STP_TIMING) && !defined(TAP_MONITOR)
	tap_report_timing(c);
#endif
	tap_providers_report(c);
	if (errors || skipped || reentrant) {
		tap_channel_stderr(c, "WARNING: Number of errors: %d, skipped probes: %d\n",
				   errors, skipped);
#ifdef STP_TIMING
		/* Why they were skipped: only in a timing build (stap -t), as stap's. */
		for (i = 0; tap_locks[i]; i++) {
			int timeouts = atomic_read(&tap_locks[i]->timeouts);

			if (timeouts)
				tap_channel_stderr(c, "WARNING: Skipped due to global '%s' lock timeout: %d\n",
						   tap_locks[i]->name, timeouts);
		}
		if (reentrant)
			tap_channel_stderr(c, "WARNING: Skipped due to reentrancy: %d\n", reentrant);
#endif
	}
	tap_context_exit_process(c);
}

/* The error that ends a session with more than MAXSKIPPED skipped probe hits. */
static void tap_report_skipped_too_many(void)
{
	struct tap_context *c = tap_context_enter_process(NULL, TAP_STOPPING);

	if (!c)
		return;
	tap_channel_stderr(c, "ERROR: Skipped too many probes, check MAXSKIPPED or try again "
			   "with stap -t for more details.\n");
	tap_context_exit_process(c);
}

/* Whether the session failed: errors, or too many skipped probe hits. */
static bool tap_session_failed(void)
{
#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	return false;	/* the errors were suppressed, counted only */
#endif
	return atomic_read(&tap_error_count) || atomic_read(&tap_skipped_too_many);
}

/* Bytes the loader has read from the rings so far. */
static u64 tap_rings_read_total(void)
{
	u64 total = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		total += READ_ONCE(tap_rings[cpu].read);
	return total;
}

/*
 * Waits for the loader to empty the rings, for as long as it keeps reading (5 s without a
 * byte read: it is gone, or stopped), and not at all when no loader has the output open
 * (-L): a flood can leave them full, and the end probes' output would find no room. A
 * busy guest may keep the loader off its CPU for a while.
 */
static void tap_wait_drained(void)
{
	u64 read_before = tap_rings_read_total();
	int idle = 0;

	if (tap_rings_have_data())
		wake_up_interruptible(&tap_read_wait);	/* the poll timer may be slow now */
	while (idle < 10 &&
	       !wait_event_timeout(tap_drained_wait, tap_output_taken(), HZ / 2)) {
		u64 read_now = tap_rings_read_total();

		idle = read_now == read_before ? idle + 1 : 0;
		read_before = read_now;
	}
}

static void tap_stop_work_fn(struct work_struct *work)
{
	/* Not while a begin probe still runs (exit() in one): end probes come after it. */
	mutex_lock(&tap_ctl_mutex);
	if (atomic_cmpxchg(&tap_state, TAP_STOP_REQUESTED, TAP_STOPPING) != TAP_STOP_REQUESTED) {
		mutex_unlock(&tap_ctl_mutex);
		return;
	}
	if (tap_started) {
		tap_providers_stop();
		/*
		 * The other probes' output goes out before the end probes' (they may run on
		 * another CPU, whose ring the loader could read first): wait for the loader to
		 * empty the rings (the poll timer wakes it), as long as it reads, unless nobody
		 * reads (-L).
		 */
		tap_wait_drained();
		if (atomic_read(&tap_skipped_too_many))
			tap_report_skipped_too_many();
		/* As stap: after errors the error probes run, and the end probes do not. */
		if (!tap_session_failed())
			tap_run_been(tap_end_probes, TAP_NUM_END, TAP_STOPPING);
		/* An end probe's error too leads to the error probes. */
		if (tap_session_failed())
			tap_run_been(tap_error_probes, TAP_NUM_ERROR, TAP_STOPPING);
		tap_report_counters();
	}
	atomic_set(&tap_state, TAP_STOPPED);
	mutex_unlock(&tap_ctl_mutex);
	wake_up_interruptible(&tap_read_wait);
}

/* Wakes the reader when there is output, and starts the stop work when it is due; true when
 * there was something to do. */
static bool tap_poll(void)
{
	bool busy = false;

	if (tap_session_state() == TAP_STOP_REQUESTED) {
		schedule_work(&tap_stop_work);
		busy = true;
	}
	if (tap_providers_poll())
		busy = true;
	if (tap_rings_have_data()) {
		wake_up_interruptible(&tap_read_wait);
		busy = true;
	}
	return busy;
}

static void tap_kick_fn(struct irq_work *work)
{
	tap_poll();
}

static void tap_poll_timer_fn(struct timer_list *timer)
{
	if (tap_poll())
		tap_poll_interval = TAP_POLL_INTERVAL;
	else
		tap_poll_interval = min_t(unsigned long, 2 * tap_poll_interval,
					  TAP_POLL_INTERVAL_IDLE);
	if (tap_session_state() != TAP_STOPPED)
		mod_timer(&tap_poll_timer, jiffies + tap_poll_interval);
}

/* "begin": the begin probes. The state stays STARTING (or a stop is requested). */
static int tap_session_begin(void)
{
	if (tap_started)
		return -EBUSY;
	if (tap_globals_failed) {
		struct tap_context *c = tap_context_enter_process(NULL, TAP_STARTING);

		if (c) {
			tap_channel_stderr(c, "WARNING: %s", tap_globals_failure);
			tap_channel_stderr(c, "ERROR: global variable '%s' allocation failed\n",
					   tap_globals_failed);
			tap_context_exit_process(c);
		}
		tap_request_stop();
		schedule_work(&tap_stop_work);
		return -ENOMEM;
	}
	tap_started = true;
	tap_run_been(tap_begin_probes, TAP_NUM_BEGIN, TAP_STARTING);
	return 0;
}

/* "run": every other probe, once the begin probes have run. */
static int tap_session_run(void)
{
	int rc;

	if (!tap_started)
		return -EINVAL;
	if (tap_session_state() != TAP_STARTING)
		return 0;	/* exit() in a begin probe, or a stop: the stop work takes over */
	rc = tap_providers_start();
	if (rc) {
		/* Nothing fired but begin; the session ends without end probes. */
		tap_started = false;
		tap_request_stop();
		schedule_work(&tap_stop_work);
		return rc;
	}
	atomic_cmpxchg(&tap_state, TAP_STARTING, TAP_RUNNING);
	return 0;
}

static ssize_t tap_ctl_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	char text[256];
	int armed, points, len;

	tap_providers_progress(&armed, &points);
	len = scnprintf(text, sizeof(text),
			"state %s\nerrors %d\nskipped %d\nfailed %d\ndropped %llu\nbulk %d\n"
			"bufsize %u\narmed %d\npoints %d\n",
			tap_state_names[tap_session_state()],
			atomic_read(&tap_error_count), atomic_read(&tap_skipped_count),
			tap_session_failed(),
			(unsigned long long)tap_rings_dropped(), TAP_BULK_MODE,
			tap_rings ? tap_rings[0].mask + 1 : 0, armed, points);

	return simple_read_from_buffer(buf, count, ppos, text, len);
}

static ssize_t tap_ctl_write(struct file *file, const char __user *buf, size_t count,
			     loff_t *ppos)
{
	char cmd[16] = "";
	int rc = 0;

	if (copy_from_user(cmd, buf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;
	if (!strncmp(cmd, "stop", 4)) {
		/* Not under the mutex: the stop work holds it while end probes run. */
		tap_request_stop();
		schedule_work(&tap_stop_work);
		return count;
	}
	/*
	 * "run" after exit() in a begin probe: nothing to do, and not under the mutex either,
	 * as the loader must go on reading while the stop work runs the end probes.
	 */
	if (!strncmp(cmd, "run", 3) && tap_started && tap_session_state() != TAP_STARTING)
		return count;
	mutex_lock(&tap_ctl_mutex);
	if (!strncmp(cmd, "start", 5)) {
		rc = tap_session_begin();
		if (!rc)
			rc = tap_session_run();
	} else if (!strncmp(cmd, "begin", 5)) {
		rc = tap_session_begin();
	} else if (!strncmp(cmd, "run", 3)) {
		rc = tap_session_run();
	} else {
		rc = -EINVAL;
	}
	mutex_unlock(&tap_ctl_mutex);
	return rc ? rc : count;
}

static const struct proc_ops tap_out_ops = {
	.proc_open = tap_out_open,
	.proc_release = tap_out_release,
	.proc_read = tap_out_read,
	.proc_poll = tap_out_poll,
	.proc_lseek = noop_llseek,
};

static const struct proc_ops tap_ctl_ops = {
	.proc_read = tap_ctl_read,
	.proc_write = tap_ctl_write,
	.proc_lseek = noop_llseek,
};

static void tap_module_cleanup(void)
{
	proc_remove(tap_proc_dir);
	tap_globals_free();
	tap_rings_free();
	tap_contexts_free();
}

static int __init tap_module_init(void)
{
	int rc = tap_contexts_alloc();

	if (!rc)
		rc = tap_rings_alloc();
	if (!rc)
		rc = tap_globals_init();
	if (rc)
		goto fail;
	rc = -ENOMEM;
	tap_proc_dir = proc_mkdir("tapster_" KBUILD_MODNAME, NULL);
	if (!tap_proc_dir)
		goto fail;
	if (!proc_create("out", 0400, tap_proc_dir, &tap_out_ops) ||
	    !proc_create("ctl", 0600, tap_proc_dir, &tap_ctl_ops) ||
	    !tap_monitor_init(tap_proc_dir))
		goto fail;
	timer_setup(&tap_poll_timer, tap_poll_timer_fn, 0);
	tap_poll_interval = TAP_POLL_INTERVAL;
	mod_timer(&tap_poll_timer, jiffies + tap_poll_interval);
	return 0;
fail:
	tap_module_cleanup();
	return rc;
}

static void __exit tap_module_exit(void)
{
	/* The loader normally stopped the session already; if not (it was killed), do it now. */
	tap_request_stop();
	schedule_work(&tap_stop_work);
	flush_work(&tap_stop_work);
	atomic_set(&tap_state, TAP_STOPPED);
	tap_timer_delete_sync(&tap_poll_timer);
	irq_work_sync(&tap_kick_work);
	cancel_work_sync(&tap_stop_work);
	tap_providers_quiesce();	/* the poll timer may have queued their work */
	tap_module_cleanup();
}

module_init(tap_module_init);
module_exit(tap_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tapster script module");

#endif
