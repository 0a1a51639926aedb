// SPDX-License-Identifier: GPL-2.0-or-later
#include "providers/function_point.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

bool pattern_has_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

const struct component *read_return_suffix(const struct component *comp, int64_t *maxactive)
{
	comp = comp->next;
	if (comp && !strcmp(comp->name, "maxactive") && component_number(comp, maxactive) &&
	    *maxactive > 0 && *maxactive < 1000000)
		return comp->next;
	*maxactive = -1;
	return comp;
}

static char *function_point_text(const struct function_match *m, const char *name)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "%s.function(\"%s\")", m->head, name);
	for (const struct component *c = m->func->next; c; c = c->next) {
		int64_t n;

		sb_addf(&sb, ".%s", c->name);
		if (component_number(c, &n))
			sb_addf(&sb, "(%" PRId64 ")", n);
	}
	add_marks(&sb, m->point);
	return sb_steal(&sb);
}

void add_function_point(const struct function_match *m, const char *name,
			struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(m->kind, m->point);

	free(d->pp);
	d->pp = function_point_text(m, name);
	free(d->function);
	d->function = xstrdup(name);
	if (m->module) {
		free(d->module);
		d->module = xstrdup(m->module);
	}
	d->maxactive = (int)m->maxactive;
	if (!strcmp(m->point->components->name, "kprobe")) {
		/* stap shows the symbol a kprobe is given. */
		free(d->comment);
		d->comment = m->module ? xasprintf(" /*  name = %s:%s*/", m->module, name) :
					 xasprintf(" /*  name = %s*/", name);
	}
	add_derived_point(tail, d);
}

void function_no_match(const struct probe_point *point, const char *pattern,
		       const char *const *names, size_t count, bool functions)
{
	char *similar = pattern_has_glob(pattern) || !names || diag_quiet() ? xstrdup("") :
			similar_names(pattern, names, count);

	if (functions) {
		/* stap's kprobe.function: "no match (similar functions: a, b)". */
		provider_no_match(point, similar, "functions", "functions");
	} else {
		char *reason = xasprintf("no match%s", similar);

		provider_refuse(point, reason);
		free(reason);
	}
	free(similar);
}
