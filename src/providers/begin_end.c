// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * begin, end, error (each with an optional priority N) and never: begin probes run once at
 * the start of the session, end probes at its end, error probes at its end instead of end
 * probes when it had errors; lower priorities first. never probes are checked and compiled
 * but never run.
 */
#include "providers/providers.h"

static bool derive_been(const struct probe_point *point, struct derived_point ***tail,
			enum provider_kind kind)
{
	const struct component *comp = point->components;
	struct derived_point *d;
	int64_t priority = 0;

	if (comp->next) {
		provider_invalid_suffix(point, comp->next);
		return false;
	}
	if (comp->arg && !component_number(comp, &priority)) {
		provider_mismatch(point, comp, NULL);
		return false;
	}
	d = derived_point_new(kind, point);
	d->priority = priority;
	**tail = d;
	*tail = &d->next;
	return true;
}

static bool derive_begin(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	(void)env;
	return derive_been(point, tail, PROVIDER_BEGIN);
}

static bool derive_end(const struct probe_point *point, const struct provider_env *env,
		       struct derived_point ***tail)
{
	(void)env;
	return derive_been(point, tail, PROVIDER_END);
}

static bool derive_error(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	(void)env;
	return derive_been(point, tail, PROVIDER_ERROR);
}

static bool derive_never(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	(void)env;
	if (point->components->arg) {
		provider_mismatch(point, point->components, NULL);
		return false;
	}
	return derive_been(point, tail, PROVIDER_NEVER);
}

const struct provider provider_begin = { "begin", derive_begin };
const struct provider provider_end = { "end", derive_end };
const struct provider provider_error = { "error", derive_error };
const struct provider provider_never = { "never", derive_never };
