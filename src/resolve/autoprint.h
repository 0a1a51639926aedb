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

#endif
