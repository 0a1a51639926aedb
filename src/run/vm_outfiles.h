/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files that a VM job sends back to the host on its control port (ttyS3): the output files
 * the loader wrote in the guest for -o with -S rotation or bulk mode. A file comes as a line
 * "file NAME SIZE" and then SIZE bytes; NAME is a plain file name (no '/'), created or
 * truncated in the job's outfiles_dir.
 */
#ifndef TAPSTER_VM_OUTFILES_H
#define TAPSTER_VM_OUTFILES_H

#include <stdbool.h>
#include <stddef.h>

struct vm_outfile {
	const char *dir;		/* where files go; NULL: they are read and dropped */
	int fd;				/* the file being received, or -1 */
	unsigned long long left;	/* its bytes still to come */
};

/* Whether LINE ("file NAME SIZE") starts a file; if so, the bytes that follow are its. */
bool vm_outfile_start(struct vm_outfile *of, const char *line);
/* Takes up to N bytes of the file being received; returns how many it took (0 when no file
 * is being received). */
size_t vm_outfile_take(struct vm_outfile *of, const char *buf, size_t n);
/* The end of the run: a file left unfinished is closed as it is. */
void vm_outfile_close(struct vm_outfile *of);

#endif
