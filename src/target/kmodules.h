/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target's loadable modules and the functions each one holds, which
 * module("m").function("f") expands against. They come from the modules' files (the ELF
 * symbol table of each .ko, or .ko.xz decompressed, that the modules directory's
 * modules.dep lists), from the running
 * kernel's /proc/kallsyms ("[m]" lines, for the modules loaded now), or from a cache of them
 * (a text file: a line per module name, then a tab-indented line per function).
 */
#ifndef TAPSTER_KMODULES_H
#define TAPSTER_KMODULES_H

#include <stdbool.h>
#include <stddef.h>

struct kmodule {
	char *name;		/* as the kernel names it: nls_utf8 for nls-utf8.ko */
	char **functions;	/* sorted, unique */
	size_t nfunctions;
};

struct kmodules {
	struct kmodule *items;	/* sorted by name once finished */
	size_t len, cap;
};

/* Adds the modules that DIR/modules.dep lists; false when there is no modules.dep. */
bool kmodules_read_dir(struct kmodules *m, const char *dir);
/* Adds the functions of the loaded modules, from the text of /proc/kallsyms. */
void kmodules_read_kallsyms(struct kmodules *m, const char *text);
/* Adds the modules of a cache file; false when it cannot be read. */
bool kmodules_read_cache(struct kmodules *m, const char *path);
/* Writes a cache file (through a temporary file renamed into place). */
bool kmodules_write_cache(const struct kmodules *m, const char *path);

/* Sorts the modules and their functions, merging repeats. */
void kmodules_finish(struct kmodules *m);

/* The module `name`, or NULL. */
const struct kmodule *kmodules_find(const struct kmodules *m, const char *name);

/* The path of the file of module `name` (as the kernel names it) that DIR/modules.dep
 * lists, malloc'd; NULL when it lists none. */
char *kmodules_file(const char *dir, const char *name);

/* The module name of a module file: its base name without .ko, '-' read as '_'. */
char *kmodule_name_of_file(const char *path);

#endif
