/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 5: the module run by tapster-run, on this host or in the bundled VM. */
#ifndef TAPSTER_RUN_H
#define TAPSTER_RUN_H

#include "session.h"

/* Runs the module; returns the exit status tapster should end with (the loader's). */
int run_module(const struct session *session, const char *ko_path);

/* The loader's arguments after its name for the module `ko` (-c, -x, -G values, ...;
 * NULL-terminated, each malloc'd): what a --remote target's tapster-run gets. */
char **run_loader_args(const struct session *s, const char *ko);

/* Can this host load modules and probe its kernel? */
bool host_can_run_modules(void);

#endif
