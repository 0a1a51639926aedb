// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The end of pass 2: the kernel modules and the user-space files that the program's probes
 * are on, which pass 5 gives the VM.
 */
#include <stdbool.h>
#include <string.h>

#include "resolve/probed_modules.h"
#include "resolve/program.h"
#include "util.h"

/* What `name_of` names of the program's probe points (NULL: nothing), once each. */
static const char **probed_names(const struct program *program,
				 const char *(*name_of)(const struct derived_point *d))
{
	const char **names = xcalloc(1, sizeof(*names));
	size_t n = 0;

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next) {
			const char *name = name_of(d);
			bool seen = !name;

			for (size_t i = 0; i < n && !seen; i++)
				seen = !strcmp(names[i], name);
			if (seen)
				continue;
			names = xrealloc(names, (n + 2) * sizeof(*names));
			names[n++] = name;
			names[n] = NULL;
		}
	return names;
}

/* A uprobe's file; an SDT marker's module is its provider, no kernel module. */
static bool user_point(const struct derived_point *d)
{
	return d->kind == PROVIDER_UPROBE || d->kind == PROVIDER_URETPROBE ||
	       d->kind == PROVIDER_UMARK;
}

static const char *point_module(const struct derived_point *d)
{
	return *d->module && !user_point(d) ? d->module : NULL;
}

static const char *point_file(const struct derived_point *d)
{
	return user_point(d) ? d->symbol : NULL;
}

/* The modules the program's probe points are on, once each, for the VM to have them. */
const char **probed_modules(const struct program *program)
{
	return probed_names(program, point_module);
}

const char **probed_files(const struct program *program)
{
	return probed_names(program, point_file);
}

bool reads_stdin(const struct program *program)
{
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next)
			if (d->kind == PROVIDER_PROCFS_WRITE && d->symbol &&
			    !strcmp(d->symbol, STDIN_PROCFS_PATH))
				return true;
	return false;
}

bool switches_files(const struct program *program)
{
	for (const struct used_function *f = program->functions; f; f = f->next)
		if (!strcmp(f->function->name, "switch_file"))
			return true;
	return false;
}
