/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * begin, end and error probes: run once, from process context, in priority order, when the
 * session starts (begin) or ends (end, or error after errors). The generated module defines
 * tap_begin_probes[], tap_end_probes[] and tap_error_probes[] (TAP_NUM_BEGIN, ... entries
 * each) before it includes module.h, which runs them.
 */
#ifndef TAP_BEEN_H
#define TAP_BEEN_H

#include "context.h"
#include "session.h"

static void tap_run_been(const struct tap_been_probe *probes, int count, int state)
{
	int i;

	for (i = 0; i < count; i++) {
		struct tap_context *c = tap_context_enter_process(probes[i].pp, state);

		if (!c)
			continue;
		probes[i].body(c);
		tap_context_exit_process(c);
		/* As stap: past MAXERRORS no further probe of the kind runs (errors that
		 * --suppress-handler-errors only counts excepted). */
		if (tap_errors_over_limit() && probes != tap_error_probes)
			break;
	}
}

#endif
