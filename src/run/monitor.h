/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --monitor's screen on the user's terminal (stap's monitor mode): the loader sends a
 * snapshot of the session every INTERVAL seconds (its -M; in the VM on the control port,
 * vm.h), the screen shows it above the script's latest output and reads keys.
 */
#ifndef TAPSTER_RUN_MONITOR_H
#define TAPSTER_RUN_MONITOR_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the screen can be drawn: stdin and stdout are terminals. */
bool monitor_possible(void);
/* Enters the screen (alternate screen, keys unbuffered and unechoed). */
void monitor_begin(int interval_s);
/* The script's output (port 1 stdout, 2 stderr), shown at the screen's bottom. */
void monitor_output(int port, const char *buf, size_t len);
/* A snapshot from the loader ("monitor SIZE" and its bytes); the screen is redrawn. */
void monitor_snapshot(const char *text, size_t len);
/* Keys typed; returns true when one of them asks to quit (q). */
bool monitor_keys(const char *buf, size_t len);
/* Leaves the screen and writes the script's whole output to stdout and stderr, as a run
 * without the screen would have. */
void monitor_end(void);

#endif
