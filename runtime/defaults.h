/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Limits a script runs under, each overridable with tapster -D NAME=VALUE. The defaults and
 * meanings are SystemTap's.
 */
#ifndef TAP_DEFAULTS_H
#define TAP_DEFAULTS_H

/*
 * --suppress-time-limits (guru mode): no statement budget to speak of (2^31 statements a
 * hit) and a hundred times the lock tries, as stap lifts MAXACTION and MAXTRYLOCK.
 */
#ifdef STAP_SUPPRESS_TIME_LIMITS_ENABLE
#undef MAXACTION
#undef MAXACTION_INTERRUPTIBLE
#undef MAXTRYLOCK
#define MAXACTION INT_MAX
#define MAXACTION_INTERRUPTIBLE INT_MAX
#define MAXTRYLOCK 100000
#endif

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512	/* bytes in a string value, the NUL included */
#endif
#ifndef MAXACTION
#define MAXACTION 1000		/* statements one probe hit may execute */
#endif
#ifndef INTERRUPTIBLE
#define INTERRUPTIBLE 1		/* probes run with interrupts on: stap's default */
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)	/* ... and get this budget */
#endif
#ifndef MAXNESTING
#define MAXNESTING 10		/* depth of script function calls */
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000		/* tries to take a global's lock */
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048	/* entries of an array without a size */
#endif
#ifndef MAXERRORS
#define MAXERRORS 0		/* errors tolerated before the session ends */
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100		/* skipped probes tolerated before the session ends */
#endif
#ifndef KRETACTIVE
#define KRETACTIVE (max(15, 6 * (int)num_possible_cpus()))	/* kretprobe maxactive */
#endif
#ifndef TAP_PRINT_BUFFER_SIZE
#define TAP_PRINT_BUFFER_SIZE 8192	/* one probe hit's output before it is flushed */
#endif
#ifndef TAP_BUFFER_SIZE
#define TAP_BUFFER_SIZE (1024 * 1024)	/* output ring of each CPU, a power of two */
#endif

#endif
