// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The end of pass 2: the kernel modules that the program's probes are on, which pass 5
 * gives the VM.
 */
#include <stdbool.h>
#include <string.h>

#include "resolve/probed_modules.h"
#include "resolve/program.h"
#include "util.h"

/* The modules the program's probe points are on, once each, for the VM to have them. */
const char **probed_modules(const struct program *program)
{
	const char **names = xcalloc(1, sizeof(*names));
	size_t n = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next) {
			bool seen = !*d->module;

			for (size_t i = 0; i < n && !seen; i++)
				seen = !strcmp(names[i], d->module);
			if (seen)
				continue;
			names = xrealloc(names, (n + 2) * sizeof(*names));
			names[n++] = d->module;
			names[n] = NULL;
		}
	return names;
}
