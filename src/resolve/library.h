/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tapset library: the *.stp files of the tapset directories, parsed in pass 1. */
#ifndef TAPSTER_LIBRARY_H
#define TAPSTER_LIBRARY_H

#include "parse/ast.h"
#include "session.h"

struct parse_target;

/* Parses the library files of the session's tapset directory and -I directories (and of
 * their version, arch and linux/ subdirectories, as stap searches them), their
 * %( conditions asking `target` about the kernel; sets *count to the number of files read.
 * Parse errors are reported as for the user script. */
struct file *library_read(const struct session *session, const struct parse_target *target,
			  int *count);

/* The same, but only the files that the script `script` needs by the index of the library
 * cached in TAPSTER_DIR (made by this call when it is missing or stale; then, and whenever
 * the index can't tell, every file is parsed). *count is the number of library files. */
struct file *library_read_needed(const struct session *session,
				 const struct parse_target *target, const struct source *script,
				 int *count);

/* For a caller that elaborates many scripts (the fuzz target): the whole library parsed
 * once, as library_read, with its index built in memory. */
struct library_set {
	struct file *files;	/* in the index's order, one per file */
	int nfiles;
	struct tapidx *idx;	/* NULL when a file failed to parse: every file is needed */
};
struct library_set *library_read_indexed(const struct session *session,
					 const struct parse_target *target);
/* Marks in `needed` (set->nfiles entries) the files of `set` that `script` needs, as
 * library_read_needed chooses them; false (all marked) when the index can't tell. */
bool library_needed(const struct library_set *set, const struct session *session,
		    const struct parse_target *target, const struct source *script,
		    bool *needed);

/* The macro files (*.stpm) of the same directories, read but not parsed: pass 1 reads their
 * @define macros before the user script (see struct parse_options). Sets *count. */
struct source **library_macro_sources(const struct session *session,
				      const struct parse_target *target, int *count);

#endif
