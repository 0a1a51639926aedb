/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel modules a program probes (probed_modules.c). */
#ifndef TAPSTER_PROBED_MODULES_H
#define TAPSTER_PROBED_MODULES_H

#include <stdbool.h>

struct program;

/* The modules the program's probe points are on, once each, in the order met, NULL-terminated
 * (allocated; the names are the points'): for the VM to have them. */
const char **probed_modules(const struct program *program);

/* The files its process("PATH") points are on (their absolute paths), once each, in the
 * same way: for the VM to have them at those paths. */
const char **probed_files(const struct program *program);

/* The procfs file the loader feeds its standard input to (tapsets/input.stp's aliases). */
#define STDIN_PROCFS_PATH "__stdin"

/* Whether the program has a write probe on that file: pass 5 then gives the loader the
 * run's standard input (the VM's, read before the boot). */
bool reads_stdin(const struct program *program);
/* Whether it calls switch_file(): -o's files are then the loader's to name, in the VM too. */
bool switches_files(const struct program *program);

#endif
