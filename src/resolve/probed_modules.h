/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel modules a program probes (probed_modules.c). */
#ifndef TAPSTER_PROBED_MODULES_H
#define TAPSTER_PROBED_MODULES_H

struct program;

/* The modules the program's probe points are on, once each, in the order met, NULL-terminated
 * (allocated; the names are the points'): for the VM to have them. */
const char **probed_modules(const struct program *program);

/* The files its process("PATH") points are on (their absolute paths), once each, in the
 * same way: for the VM to have them at those paths. */
const char **probed_files(const struct program *program);

#endif
