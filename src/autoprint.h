/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 2: the end probes that print the globals a script writes and never reads. */
#ifndef TAPSTER_AUTOPRINT_H
#define TAPSTER_AUTOPRINT_H

#include "program.h"

/* The end probes (parsed, not yet derived) printing the program's write-only globals, or
 * NULL when there are none. Types must have been inferred. */
struct probe *autoprint_probes(const struct program *program);

#endif
