/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live line on stderr for a step that may take long (building the module, booting the
 * VM): on a terminal only, from about two seconds into the step, rewritten each half
 * second with the seconds spent (and the count of what it did, where it has one), and erased when the step ends, so that nothing of it is
 * left among the script's output. Nothing at all when stderr is not a terminal.
 */
#ifndef TAPSTER_PROGRESS_H
#define TAPSTER_PROGRESS_H

#include <stddef.h>

/* Starts the step `what` ("Pass 4: building the module"; a literal or a string that lives
 * until progress_end()); ends the one before, if any. */
void progress_begin(const char *what);

/* The step's count so far, shown after its name: "Pass 5: starting the probes: 812/1931
 * armed" (`unit` "armed", a literal; `total` 0: none, "12 MB fetched"). Nothing without a
 * step going on. */
void progress_count(long done, long total, const char *unit);

/* Ends the step, erasing its line if it was shown. */
void progress_end(void);

/* Writes `len` bytes of `text` (whole lines) to stderr above the line of the step going on,
 * which comes back at the next tick; plainly when there is none. */
void progress_write(const char *text, size_t len);

#endif
