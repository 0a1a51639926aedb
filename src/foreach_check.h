/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 2: the array a foreach iterates is not changed in its body (stap's rule). */
#ifndef TAPSTER_FOREACH_CHECK_H
#define TAPSTER_FOREACH_CHECK_H

#include "program.h"

void check_foreach_writes(const struct program *program);

#endif
