/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 2: the end probes that print the globals a script writes and never reads. */
#ifndef TAPSTER_AUTOPRINT_H
#define TAPSTER_AUTOPRINT_H

#include "resolve/program.h"

/* The globals of the script that the program writes and never reads, in the order of their
 * declarations (a new array of *count). */
const struct var **autoprint_select(const struct program *program, int *count);

/* The end probes (parsed, not yet derived) printing `vars`, or NULL when there are none.
 * Their types must have been inferred. */
struct probe *autoprint_probes(const struct var *const *vars, int count);

/* --monitor: the procfs file (under /proc/systemtap/MODULE/) whose read gives the loader
 * the script's globals, as lines "NAME=VALUE" (the end's formats), and its size. */
#define MONITOR_PROCFS_PATH "__tap_monitor"
#define MONITOR_PROCFS_SIZE 16384
#define MONITOR_ARRAY_ELEMENTS 10

/* --monitor: that file's read probe (parsed, not yet derived). Types must be inferred. */
struct probe *autoprint_monitor_probe(const struct program *program);

#endif
