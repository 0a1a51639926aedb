/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --remote=URL: pass 5 on other hosts, over OpenSSH, as stap's --remote.
 *
 * For each target (at most --remote-max at once, 16 by default) a worker process opens an
 * ssh control master (ControlPath in the session's directory; every later command of the
 * target goes over it), asks `uname -r`, `uname -m` and where tapster-run is, has the
 * module built for that release (one build per release: the first worker to need it runs
 * tapster again, passes 1-4 with -r RELEASE, TAPSTER_REMOTE_PASS telling it so, while the
 * others wait on its lock; the module cache serves later sessions), copies the module into
 * a temporary directory there and runs tapster-run on it. A signal (INT, TERM, HUP) that
 * tapster gets goes to every worker, which writes its name to the remote command's standard
 * input: a shell there sends it to tapster-run, whose end probes run and whose output comes
 * back. direct:// is this host: a worker runs tapster itself without --remote.
 *
 * The workers' stdout and stderr come back through pipes, line by line: a line is written
 * whole (prefixed "[N] " with --remote-prefix), never mixed with another target's. A target
 * that cannot be reached or fails is a WARNING naming it, and the others go on; the exit
 * status is 0 only when every target's session succeeded.
 *
 * TAPSTER_SSH_COMMAND replaces "ssh" (words split at blanks: "ssh -F FILE" for a config of
 * its own, as the tests do); BatchMode is on (no prompt from many hosts at once).
 */
#ifndef TAPSTER_REMOTE_H
#define TAPSTER_REMOTE_H

#include "session.h"

/* Why URL is no --remote target tapster can use (malloc'd, stap's words where it has
 * them), or NULL when it is one. */
char *remote_url_error(const char *url);

/* Whether this tapster is the pass of a --remote session (TAPSTER_REMOTE_PASS): then it
 * forgets the --remote options, and builds for the target's release. */
void remote_pass_setup(struct session *s);

/* Runs the session on every --remote target; the exit status. argv: tapster's own,
 * before getopt permuted it. */
int remote_run(const struct session *s, char *const *argv);

#endif
