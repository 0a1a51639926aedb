/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The symbol tables of user-space ELF files (-d, --ldd), for the module. */
#ifndef TAPSTER_USYMS_H
#define TAPSTER_USYMS_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the C tables of runtime/usyms.h for the files (those that are no usable ELF file
 * are left out: usyms_check_file() says which) and their count, tap_num_ufiles. */
void usyms_write(FILE *out, const char *const *paths, int npaths);

/* Whether the file is an ELF file with loadable segments. */
bool usyms_check_file(const char *path);

/* The shared libraries `ldd PATH` lists (paths, malloc'd; *count of them). */
char **usyms_ldd(const char *path, int *count);

#endif
