/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session: its state, its counters, and how it is asked to stop.
 *
 * STARTING   begin probes run (from the loader's "start" command)
 * RUNNING    every probe may fire
 * STOP_REQUESTED  exit(), an error limit or the loader asked for the end; the stop work is due
 * STOPPING   probes are being unregistered and end probes run
 * STOPPED    nothing runs any more; the loader drains what is left and unloads the module
 */
#ifndef TAP_SESSION_H
#define TAP_SESSION_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/moduleparam.h>

enum tap_state {
	TAP_STARTING,
	TAP_RUNNING,
	TAP_STOP_REQUESTED,
	TAP_STOPPING,
	TAP_STOPPED,
};

static atomic_t tap_state = ATOMIC_INIT(TAP_STARTING);
static atomic_t tap_error_count = ATOMIC_INIT(0);

/* Past MAXERRORS errors (never with --suppress-handler-errors, which only counts them). */
static inline bool tap_errors_over_limit(void)
{
#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	return false;
#else
	return atomic_read(&tap_error_count) > MAXERRORS;
#endif
}

static atomic_t tap_skipped_count = ATOMIC_INIT(0);
static atomic_t tap_skipped_reentrant = ATOMIC_INIT(0);

/* target(): the pid given by the loader for -c or -x, 0 when none. */
static int tap_target_pid;
module_param_named(target, tap_target_pid, int, 0400);
MODULE_PARM_DESC(target, "pid returned by target()");

/* --target-namespace=PID: the process whose namespaces the ns_* functions see (0: the
 * loader's, the first ones). */
static int tap_target_ns_pid;
module_param_named(target_ns_pid, tap_target_ns_pid, int, 0400);
MODULE_PARM_DESC(target_ns_pid, "pid whose namespaces the ns_* functions use");

/* remote_id(), remote_uri(): the host's index among a --remote session's hosts and the
 * --remote URL that named it, given by tapster there; -1 and "" otherwise. */
static int tap_remote_id = -1;
module_param_named(remote_id, tap_remote_id, int, 0400);
MODULE_PARM_DESC(remote_id, "index of this host among the session's --remote hosts");
static char *tap_remote_uri;
module_param_named(remote_uri, tap_remote_uri, charp, 0400);
MODULE_PARM_DESC(remote_uri, "the --remote URL of this host");

/* stp_pid(): the loader's pid (stap's stapio). */
static int tap_loader_pid;
module_param_named(stp_pid, tap_loader_pid, int, 0400);
MODULE_PARM_DESC(stp_pid, "pid returned by stp_pid()");

/* The local time zone where the loader runs, for tz_gmtoff(), tz_name() and tz_ctime(). */
static long tap_tz_gmtoff;
module_param_named(tz_gmtoff, tap_tz_gmtoff, long, 0400);
MODULE_PARM_DESC(tz_gmtoff, "local time zone's offset, seconds west of UTC");
static char tap_tz_name[32];
module_param_string(tz_name, tap_tz_name, sizeof(tap_tz_name), 0400);
MODULE_PARM_DESC(tz_name, "local time zone's name");

/* Where the -c command's files are, when not at "/" (the bundled VM's share of the host's
 * files, src/run/vm_share.h): process("PATH") points are looked up under it. */
static char tap_user_root[64] __maybe_unused;
module_param_string(user_root, tap_user_root, sizeof(tap_user_root), 0400);
MODULE_PARM_DESC(user_root, "directory the -c command runs in as its root");

static const char *const tap_state_names[] = {
	[TAP_STARTING] = "starting",
	[TAP_RUNNING] = "running",
	[TAP_STOP_REQUESTED] = "stop-requested",
	[TAP_STOPPING] = "stopping",
	[TAP_STOPPED] = "stopped",
};

static inline int tap_session_state(void)
{
	return atomic_read(&tap_state);
}

/*
 * The session's poll (module.h: it wakes the reader, starts the stop work, applies probe
 * conditions) runs from a timer that slows down while there is nothing to do; tap_kick()
 * runs it at once, from any context, NMI included (an irq_work: probe context never wakes
 * anybody itself). Used for what should not wait for the slow timer: a stop request, a
 * ring half full, a probe condition that changed.
 */
static void tap_kick_fn(struct irq_work *work);
static DEFINE_IRQ_WORK(tap_kick_work, tap_kick_fn);

static inline void tap_kick(void)
{
	irq_work_queue(&tap_kick_work);
}

/*
 * Asks for the end of the session. Safe in any context: it only changes the state and
 * kicks the poll, which (or the loader's "stop" command) starts the stop work.
 */
static inline void tap_request_stop(void)
{
	if (atomic_cmpxchg(&tap_state, TAP_RUNNING, TAP_STOP_REQUESTED) == TAP_RUNNING ||
	    atomic_cmpxchg(&tap_state, TAP_STARTING, TAP_STOP_REQUESTED) == TAP_STARTING)
		tap_kick();
}

/* Set once more than MAXSKIPPED probe hits were skipped: the session ends in error, as
 * stap's does (its end probes do not run; module.h says so on stderr). */
static atomic_t tap_skipped_too_many = ATOMIC_INIT(0);

/* A probe hit skipped (its CPU's context busy, or a lock not had): counted. */
static inline void tap_count_skipped(void)
{
#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	/* --suppress-handler-errors: no MAXSKIPPED either, as stap's. */
	atomic_inc(&tap_skipped_count);
	return;
#endif
	if (atomic_inc_return(&tap_skipped_count) > MAXSKIPPED &&
	    !atomic_xchg(&tap_skipped_too_many, 1))
		tap_request_stop();
}

#endif
