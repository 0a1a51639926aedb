/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line (options.c): stap's options into struct session. */
#ifndef TAPSTER_OPTIONS_H
#define TAPSTER_OPTIONS_H

#include <stdio.h>

#include "session.h"

/* Reads argv into *s (which holds the defaults); exits after printing stap's message on
 * a bad option, and after --help, --version and --clean-cache. */
void parse_command_line(struct session *s, int argc, char **argv);
/* --help's text. */
void usage(FILE *out);
/* -D NAME[=VALUE], unchecked: for the options that stand for a definition (-t, -s, -b). */
void add_define(struct session *s, const char *arg);

#endif
