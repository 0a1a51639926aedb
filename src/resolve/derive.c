// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: probe derivation. Each probe's points become derived probes: through the aliases
 * they name (with the alias's prologue or epilogue, its conditions, its suffix), else
 * through the providers; a point with a condition gets a probe of its own, and with
 * conditions stap adds an empty begin probe. Each derived body is resolved (elaborate.c) in
 * the probe's own scope.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "diag.h"
#include "resolve/elaborate.h"
#include "parse/parse.h"
#include "resolve/program.h"
#include "providers/providers.h"
#include "util.h"

/* ---- Probes ---- */

static bool all_return_points(const struct derived_point *points)
{
	for (; points; points = points->next)
		if (points->kind != PROVIDER_KRETPROBE && points->kind != PROVIDER_URETPROBE)
			return false;
	return true;
}

static bool any_return_point(const struct derived_point *points)
{
	for (; points; points = points->next)
		if (points->kind == PROVIDER_KRETPROBE)
			return true;
	return false;
}

/* Takes the return points out of *points (both keep their order); returns them. */
static struct derived_point *split_returns(struct derived_point **points)
{
	struct derived_point *returns = NULL, **returns_tail = &returns, **tail = points;

	while (*tail) {
		struct derived_point *p = *tail;

		if (p->kind == PROVIDER_KRETPROBE) {
			*tail = p->next;
			p->next = NULL;
			*returns_tail = p;
			returns_tail = &p->next;
		} else {
			tail = &p->next;
		}
	}
	return returns;
}

/* The points of a probe as written, joined as stap shows an origin: "begin(-5),end". */
/* A point as stap shows it in an alias chain: with its `if (cond)` as -p1 prints it. */
static char *point_text_with_cond(const struct probe_point *point)
{
	char *text = probe_point_text(point), *cond = NULL, *joined;
	size_t len = 0;
	FILE *out;

	if (!point->cond)
		return text;
	out = open_memstream(&cond, &len);
	print_expr(out, point->cond);
	fclose(out);
	joined = xasprintf("%s if (%s)", text, cond);
	free(text);
	free(cond);
	return joined;
}

static char *points_text(const struct probe_point_list *points, const char *separator)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < points->len; i++) {
		char *text = point_text_with_cond(points->items[i]);

		sb_addf(&sb, "%s%s", i ? separator : "", text);
		free(text);
	}
	return sb_steal(&sb);
}

/* A point stap places from DWARF keeps its own text as its origin, and so do a perf
 * point and a kernel.data point (their origin is the point written, even through
 * aliases). */
static void set_origin(struct derived_point *points, const char *origin)
{
	for (struct derived_point *p = points; p; p = p->next) {
		if (p->pc || p->kind == PROVIDER_PERF || p->kind == PROVIDER_HWBKPT)
			continue;
		free(p->origin);
		p->origin = xstrdup(origin);
	}
}

/* ---- Probe aliases ---- */

/* How deep aliases may refer to aliases before stap's recursion error. */
#define MAX_ALIAS_DEPTH 32

/* Whether the point's component `c` matches the alias's `a` (a wildcard in `c` matches). */
static bool component_matches(const struct component *c, const struct component *a)
{
	if (fnmatch(c->name, a->name, 0) != 0 || !c->arg != !a->arg)
		return false;
	return !c->arg || (c->arg->kind == a->arg->kind &&
			   (c->arg->kind == N_NUMBER ? c->arg->num == a->arg->num :
						       !strcmp(c->arg->text, a->arg->text)));
}

/*
 * Whether the point's components from `p` name the alias's from `a`; *suffix: the point's
 * components past the alias. A component with "**" (and no argument) matches one or more
 * of the alias's, without arguments, joined with dots (stap's `netfilter.**`,
 * `nfs.**.return`, `netfilter.i**`); a point that goes on past those ends no alias.
 */
static bool names_alias_from(const struct component *p, const struct component *a,
			     const struct component **suffix)
{
	if (!a) {
		*suffix = p;
		return true;
	}
	if (!p)
		return false;
	if (!p->arg && strstr(p->name, "**")) {
		struct strbuf joined = { 0 };
		bool named = false;

		for (; a && !a->arg && !named; a = a->next) {
			sb_addf(&joined, "%s%s", joined.len ? "." : "", a->name);
			/* What "**" reaches the alias's end with is no suffix of it. */
			named = fnmatch(p->name, joined.buf, 0) == 0 && (a->next || !p->next) &&
				names_alias_from(p->next, a->next, suffix);
		}
		free(joined.buf);
		return named;
	}
	return component_matches(p, a) && names_alias_from(p->next, a->next, suffix);
}

/* Whether the first components of `point` name `alias` (wildcards in the point match). */
static bool names_alias(const struct probe_point *point, const struct probe_point *alias,
			const struct component **suffix)
{
	return names_alias_from(point->components, alias->components, suffix);
}

/* The alias's component at `level` when the point's first `level` components match its
 * first ones; NULL when they don't or the alias is shorter. */
static const struct component *alias_next(const struct probe_point *point,
					  const struct probe_point *alias, int level)
{
	const struct component *p = point->components, *a = alias->components;

	for (int i = 0; i < level; i++, p = p->next, a = a->next)
		if (!a || !p || !component_matches(p, a))
			return NULL;
	return a;
}

static bool name_listed(const char **names, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The names the aliases have at `level` after the point's first `level` components, in
 * the aliases' order, NULL-terminated (NULL for none); *matched: whether the point's
 * component there, `c`, is one of them. While errors are quiet, the names are only counted
 * (the message they go into is not shown): the list stays NULL. */
static const char **alias_names_listed(const struct elab *e, const struct probe_point *point,
				       const struct component *c, int level, size_t *count,
				       bool *matched, bool quiet)
{
	const char **names = NULL;

	*count = 0;
	*matched = false;
	for (int a = 0; a < e->naliases; a++)
		for (int i = 0; i < e->aliases[a]->aliases.len; i++) {
			const struct component *next =
				alias_next(point, e->aliases[a]->aliases.items[i], level);

			if (!next)
				continue;
			*matched |= c && component_matches(c, next);
			if (quiet)
				(*count)++;
			else if (!name_listed(names, *count, next->name)) {
				names = xrealloc(names, sizeof(*names) * (*count + 2));
				names[(*count)++] = next->name;
				names[*count] = NULL;
			}
		}
	return names;
}

static const char **alias_names_at(const struct elab *e, const struct probe_point *point,
				   const struct component *c, int level, size_t *count,
				   bool *matched)
{
	return alias_names_listed(e, point, c, level, count, matched, diag_quiet());
}

/* Whether the aliases have names at `level` (how many, repeats counted), and whether `c`
 * is one of them: the list is made only for a message (alias_names_at()). */
static size_t alias_names_count(const struct elab *e, const struct probe_point *point,
				const struct component *c, int level, bool *matched)
{
	size_t count;

	alias_names_listed(e, point, c, level, &count, matched, true);
	return count;
}

/* Whether a provider derives `point` (its components as they are), quietly, whatever the
 * privilege: under stapusr a point the provider refuses is still the provider's. */
static bool provider_takes(const struct elab *e, const struct probe_point *point)
{
	struct derived_point *points = NULL, **tail = &points;
	struct provider_env any_privilege = *e->env;
	struct probe_point plain = *point;
	bool takes;

	any_privilege.unprivileged = false;
	plain.optional = plain.sufficient = false;
	diag_quiet_begin();
	takes = providers_derive(&plain, &any_privilege, &tail);
	takes &= diag_quiet_end() == 0;
	return takes;
}

/* Whether a provider takes the first `n` components of `point` alone (provider_takes()). */
static bool provider_takes_first(const struct elab *e, const struct probe_point *point, int n)
{
	struct component *first = xcalloc((size_t)n, sizeof(*first));
	const struct component *c = point->components;
	struct probe_point prefix = *point;
	bool takes;

	for (int i = 0; i < n && c; i++, c = c->next) {
		first[i] = *c;
		first[i].next = i + 1 < n && c->next ? &first[i + 1] : NULL;
	}
	prefix.components = first;
	takes = provider_takes(e, &prefix);
	free(first);
	return takes;
}

/* A provider's point whose second component is also an alias's (timer.profile.tick, and
 * the alias timer.profile.freq): whether the provider takes those two components alone, so
 * that what follows is its business. */
static bool provider_takes_prefix(const struct elab *e, const struct probe_point *point)
{
	return provider_takes_first(e, point, 2);
}

static int component_count(const struct probe_point *point)
{
	int n = 0;

	for (const struct component *c = point->components; c; c = c->next)
		n++;
	return n;
}

/* Whether a provider takes more than the first `shorter` components of `point`
 * (timer.profile.tick and timer.profile.tick.x are the timer provider's, not the alias
 * timer.profile's with a suffix): then the provider's point, or its error, is the point's. */
static bool provider_takes_past(const struct elab *e, const struct probe_point *point,
				int shorter)
{
	if (!providers_has(point->components->name))
		return false;
	for (int n = component_count(point); n > shorter; n--)
		if (provider_takes_first(e, point, n))
			return true;
	return false;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* stap's "probe point truncated" of a point that ends where aliases go on (scheduler,
 * perf.hw), with their next names, sorted. */
static void alias_truncated(const struct probe_point *point, const struct component *last,
			    const char **names, size_t count)
{
	struct strbuf follow = { 0 };

	if (names)
		qsort(names, count, sizeof(*names), compare_names);
	for (size_t i = 0; names && i < count; i++)
		sb_addf(&follow, "%s%s", i ? " " : "", names[i]);
	provider_truncated(point, last, follow.buf);
	free(follow.buf);
}

/*
 * A point that names no alias but starts as aliases do (socket.nosuch, no provider
 * "socket"): stap's mismatch at the first component no alias has there, with the names the
 * aliases have at that place as the similar ones; one that ends where aliases go on
 * (scheduler) is truncated. False when there is no such place (the first component is no
 * alias's, or every component matched some alias's and none goes on). With a provider of
 * the first component (perf.sw.nosuch, perf.hw), only past a second component that the
 * provider does not take alone.
 */
/* Whether the mismatch at `level` is the provider's to report, not the aliases'. */
static bool provider_owns(const struct elab *e, const struct probe_point *point, int level)
{
	return providers_has(point->components->name) &&
	       (level == 1 || provider_takes_prefix(e, point) ||
		provider_takes_past(e, point, level));
}

static bool alias_mismatch(const struct elab *e, const struct probe_point *point)
{
	const struct component *c = point->components, *last = NULL;
	const char **names;
	size_t count;
	bool matched;
	int level = 0;

	for (; c; last = c, c = c->next, level++) {
		count = alias_names_count(e, point, c, level, &matched);
		if (matched)
			continue;
		if (!level && !providers_has(c->name)) {
			/* stap's mismatch, with the providers' and the aliases' names. */
			provider_mismatch(point, c, NULL);
			return true;
		}
		if (!count || !level || provider_owns(e, point, level))
			return false;
		names = alias_names_at(e, point, c, level, &count, &matched);
		provider_mismatch(point, c, names);
		free(names);
		return true;
	}
	if (!alias_names_count(e, point, NULL, level, &matched) || provider_owns(e, point, level))
		return false;
	names = alias_names_at(e, point, NULL, level, &count, &matched);
	alias_truncated(point, last, names, count);
	free(names);
	return true;
}

static bool same_component(const struct component *a, const struct component *b)
{
	if (strcmp(a->name, b->name) || !a->arg != !b->arg)
		return false;
	if (!a->arg)
		return true;
	return a->arg->kind == b->arg->kind &&
	       (a->arg->kind == N_NUMBER ? a->arg->num == b->arg->num :
					   !strcmp(a->arg->text, b->arg->text));
}

/* Whether `longer` extends `alias` (the same components, then more). */
static bool extends_alias(const struct probe_point *longer, const struct probe_point *alias)
{
	const struct component *l = longer->components, *a = alias->components;

	for (; a; a = a->next, l = l->next)
		if (!l || !same_component(l, a))
			return false;
	return l != NULL;
}

/*
 * Whether `point`, which names `alias` with a suffix, also names a longer alias that
 * extends it (syscall.*.return names syscall.open.return as well as syscall.open): stap
 * then takes the longer one only, and the suffix is not tried on the shorter.
 */
static bool longer_alias_named(const struct elab *e, const struct probe_point *point,
			       const struct probe_point *alias)
{
	for (int a = 0; a < e->naliases; a++)
		for (int i = 0; i < e->aliases[a]->aliases.len; i++) {
			const struct probe_point *other = e->aliases[a]->aliases.items[i];
			const struct component *suffix;

			if (extends_alias(other, alias) && names_alias(point, other, &suffix))
				return true;
		}
	return false;
}

static struct component *copy_component(const struct component *c)
{
	struct component *copy = xmalloc(sizeof(*copy));

	*copy = *c;
	copy->next = NULL;
	return copy;
}

/* A written point of an alias with the user point's extra components appended:
 * alias a.b = timer.ms(10), used as a.b.randomize(2), derives timer.ms(10).randomize(2). */
static struct probe_point *with_suffix(const struct probe_point *target,
				       const struct component *suffix)
{
	struct probe_point *point = xmalloc(sizeof(*point));
	struct component **tail = &point->components;

	*point = *target;
	for (const struct component *c = target->components; c; c = c->next) {
		*tail = copy_component(c);
		tail = &(*tail)->next;
	}
	for (const struct component *c = suffix; c; c = c->next) {
		*tail = copy_component(c);
		tail = &(*tail)->next;
	}
	return point;
}

/* An alias as -l lists a point that names it: its name, then the suffix of the use. */
static char *alias_listed_name(const struct probe_point *alias, const struct component *suffix)
{
	struct probe_point *point = with_suffix(alias, suffix);
	char *text = probe_point_text(point);

	free(point);
	return text;
}

/* The body of a probe reached through `alias`: its prologue before `body` (=), or its
 * epilogue after it (+=); `probe a = p { prologue }, { epilogue }` has both. */
static struct node *alias_body(const struct probe *alias, const struct node *body)
{
	struct node *block = xcalloc(1, sizeof(*block));
	bool epilogue = alias->kind == PROBE_ALIAS_EPILOGUE;

	block->kind = N_BLOCK;
	block->loc = body->loc;
	node_list_push(&block->body, node_copy(epilogue ? body : alias->body));
	node_list_push(&block->body, node_copy(epilogue ? alias->body : body));
	if (alias->epilogue)
		node_list_push(&block->body, node_copy(alias->epilogue));
	return block;
}

struct expansion_state {
	struct elab *e;
	struct probe *probe;		/* the user's probe */
	const struct probe_point *point;	/* the user's point being derived */
	struct node *cond;		/* the conditions met so far on the way, or NULL */
	struct derived_probe ***tail;
	/* The alias targets being derived: one met again is a loop. */
	const struct probe_point *chain[MAX_ALIAS_DEPTH];
	bool self_loop;			/* an alias named itself: stap says no more about it */
	int depth;
	char *alias_pp;			/* the outermost alias met, as -l lists it */
};

static bool in_chain(const struct expansion_state *x, const struct probe_point *target)
{
	for (int i = 0; i < x->depth; i++)
		if (x->chain[i] == target)
			return true;
	return false;
}

/* A point whose alias derived nothing, its targets having failed: stap's "no match". */
static void alias_no_match(const struct probe_point *point)
{
	provider_resolving(point);
	diag_continue();
	diag_error("semantic error", "no match\n");
}

/* An alias reached again while it is being expanded, in stap's words. */
static void alias_loop(const struct probe_point *point)
{
	char *text = probe_point_text(point);

	provider_resolving(point);
	diag_continue();
	diag_error("semantic error", "recursive loop in alias expansion of %s at %s:%d:%d\n",
		   text, point->loc.source ? point->loc.source->name : "", point->loc.line,
		   point->loc.col);
	free(text);
}

/* Derives one point: through the aliases it names, else through a provider. The points a
 * provider derives from it share one probe. */
static bool derive_point(struct expansion_state *x, const struct probe_point *point,
			 const struct node *body, const char *origin);
static bool derive_marked(struct expansion_state *x, const struct probe_point *point,
			  const struct node *body, const char *origin, bool *ok);

/* The first names of stap 4.8's aliases, its private ones too, sorted
 * (data/stap-names/aliases and private-aliases, which scripts/stap-names makes). */
static const char *const stap_alias_roots[] = {
#include "resolve/stap_alias_roots.inc"
};
#define NSTAP_ALIAS_ROOTS (sizeof(stap_alias_roots) / sizeof(stap_alias_roots[0]))

static int compare_to_root(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static void add_root(const char ***roots, size_t *count, const char *root)
{
	if (name_listed(*roots, *count, root))
		return;
	*roots = xrealloc(*roots, (*count + 2) * sizeof(**roots));
	(*roots)[(*count)++] = root;
	(*roots)[*count] = NULL;
}

/* The first names of the aliases, for the providers' mismatches at a first component, as
 * stap's: the script's aliases' and another library's; of tapster's own library, stap's
 * (its private ones too: `_nfs`, `__vfs`), not those only tapster has (`__tcpmib`). */
static void add_alias_roots(const struct file *file, bool own_library, const char ***roots,
			    size_t *count)
{
	for (const struct probe *p = file->probes; p; p = p->next)
		for (int i = 0; p->kind != PROBE_PLAIN && i < p->aliases.len; i++) {
			const char *root = p->aliases.items[i]->components->name;

			if (!own_library || bsearch(root, stap_alias_roots, NSTAP_ALIAS_ROOTS,
						    sizeof(stap_alias_roots[0]), compare_to_root))
				add_root(roots, count, root);
		}
}

/* The alias definitions of the script and then of the library, collected once. */
void collect_aliases(struct elab *e)
{
	struct file *files[2] = { e->program->user, e->program->tapsets };
	const char **roots = NULL;
	size_t nroots = 0;
	bool own_library = false;

	for (int f = 0; f < 2; f++)
		for (struct file *file = files[f]; file; file = f == 0 ? NULL : file->next) {
			for (struct probe *p = file->probes; p; p = p->next)
				if (p->kind != PROBE_PLAIN) {
					e->aliases = xrealloc(e->aliases, (size_t)(e->naliases + 1) *
								  sizeof(*e->aliases));
					e->aliases[e->naliases++] = p;
				}
			add_alias_roots(file, f && file->own_library, &roots, &nroots);
			own_library |= f && file->own_library;
		}
	for (size_t i = 0; own_library && i < NSTAP_ALIAS_ROOTS; i++)
		add_root(&roots, &nroots, stap_alias_roots[i]);
	providers_set_alias_roots(roots, nroots);
}

static bool check_condition(struct elab *e, const struct node *cond);

/* Whether a provider derives `target` as it is (so that what failed was the suffix of the
 * alias's use). */
static bool fits_without_suffix(struct expansion_state *x, const struct probe_point *target)
{
	struct derived_point *points = NULL, **tail = &points;
	bool fits;

	diag_quiet_begin();
	fits = providers_derive(target, x->e->env, &tail);
	fits &= diag_quiet_end() == 0;
	return fits;
}

/* The first component of `point` whose name has a wildcard, or NULL. */
static const struct component *first_wildcard(const struct probe_point *point)
{
	for (const struct component *c = point->components; c; c = c->next)
		if (strpbrk(c->name, "*?["))
			return c;
	return NULL;
}

/* Expands `point` through every alias it names; false when it names none. *derived_any:
 * whether any of them derived. A `wildcard` point (derive_wildcard()) says nothing of an
 * alias that derived nothing (nor of its use's suffix): its caller reports the pattern. */
static bool expand_aliases(struct expansion_state *x, const struct probe_point *point,
			   const struct node *body, const char *origin, bool wildcard, bool *ok,
			   bool *derived_any)
{
	bool matched = false;

	*derived_any = false;

	for (int a = 0; a < x->e->naliases; a++) {
		const struct probe *alias = x->e->aliases[a];

		for (int i = 0; i < alias->aliases.len; i++) {
			const struct component *suffix;
			char *targets, *here, *user;

			if (!names_alias(point, alias->aliases.items[i], &suffix))
				continue;
			/* A longer alias, or a provider's point as a whole (timer.profile.tick,
			 * not the alias timer.profile with the suffix .tick), comes first. */
			if (suffix && (longer_alias_named(x->e, point, alias->aliases.items[i]) ||
				       (!wildcard &&
					provider_takes_past(x->e, point,
							    component_count(alias->aliases.items[i])))))
				continue;
			matched = true;
			targets = points_text(&alias->points, ", ");
			here = probe_point_text(alias->aliases.items[i]);
			user = point_text_with_cond(point);
			char *chain = xasprintf("%s %s %s <- %s", here,
						alias->kind == PROBE_ALIAS_EPILOGUE ? "+=" : "=",
						targets, origin ? origin : user);
			struct node *combined = alias_body(alias, body);

			bool targets_ok = true, any = false, suffix_failed = false;
			bool listing = x->e->env->listing;
			char *suffix_reason = NULL;

			if (listing)
				diag_quiet_begin();

			for (int t = 0; t < alias->points.len; t++) {
				const struct probe_point *target = alias->points.items[t];
				struct node *saved_cond = x->cond;

				if (in_chain(x, target) || x->depth >= MAX_ALIAS_DEPTH) {
					alias_loop(target);
					if (x->depth && x->chain[x->depth - 1] == target)
						x->self_loop = true;
					targets_ok = false;
					continue;
				}

				/* The alias's condition first, then the one of its use. */
				if (target->cond && !check_condition(x->e, target->cond)) {
					*ok = false;
					continue;
				}
				if (target->cond)
					x->cond = x->cond ? node_binary(OP_ANDAND, target->cond,
									x->cond, target->cond->loc) :
							    target->cond;
				char *saved_alias_pp = x->alias_pp;

				if (!x->depth)
					x->alias_pp = alias_listed_name(alias->aliases.items[i], suffix);
				x->chain[x->depth++] = target;
				/* With a suffix from the use (alias.return), a target it does not
				 * fit is the use's error: stap's "invalid suffix". */
				if (suffix)
					diag_quiet_begin();
				bool derived = derive_marked(x, with_suffix(target, suffix),
							     combined, chain, &targets_ok);

				if (suffix && diag_quiet_end() && !derived) {
					const char *why = diag_quiet_reason();

					free(suffix_reason);
					suffix_reason = why ? xstrdup(why) : NULL;
					if (wildcard || fits_without_suffix(x, target))
						suffix_failed = true;
					else	/* its own error: again, aloud */
						derive_marked(x, with_suffix(target, suffix), combined,
							      chain, &targets_ok);
				}

				x->depth--;
				x->cond = saved_cond;
				if (x->alias_pp != saved_alias_pp)
					free(x->alias_pp);
				x->alias_pp = saved_alias_pp;
				any |= derived;
				if (derived && target->sufficient)
					break;
			}
			if (listing) {	/* what failed is left out of the listing */
				diag_quiet_end();
				targets_ok = true;
			}
			if (!targets_ok) {
				*ok = false;
				/* stap says why the suffix failed, at the suffix. */
				if (wildcard && !any)
					;
				else if (!any && suffix_failed)
					provider_error_at(point, suffix, suffix_reason ? suffix_reason :
							  "invalid suffix for probe");
				else if (!any && !x->self_loop)
					alias_no_match(point);
			}
			/* The library file of an alias that derived is in use (its own
			 * probes join); one a pattern only tried is not. */
			if (any)
				note_alias_source(x->e, alias->loc.source);
			*derived_any |= any;
			free(targets);
			free(here);
			free(user);
			free(chain);
			free(suffix_reason);
		}
	}
	/* A required point whose aliases derived nothing, every target optional and absent
	 * (syscall.tux: sys_tux on no kernel), is stap's "no match" too. */
	if (matched && *ok && !*derived_any && !point->optional && !point->sufficient &&
	    !x->self_loop && !wildcard) {
		alias_no_match(point);
		*ok = false;
	}
	return matched;
}

/* What pass 2 expands from the point's own function: $$parms, $$vars, $$locals, $$return
 * (and their $ forms), $x$ pretty printing, @defined. */
static bool varies_per_point(const struct node *n, void *ctx)
{
	(void)ctx;
	return n->kind == N_DEFINED || (n->kind == N_TARGET && (n->text[1] == '$' || n->suffix)) ||
	       (n->kind == N_CAST && n->suffix);
}

/* A derived probe for `points`, running `body`, resolved in its own scope. */
/* Points that are all perf .counter("NAME") points (perf.c): no body runs for them. */
static bool only_counters(const struct derived_point *points)
{
	for (const struct derived_point *d = points; d; d = d->next)
		if (d->kind != PROVIDER_PERF || !d->perf_counter)
			return false;
	return true;
}

static void add_derived(struct expansion_state *x, struct derived_point *points,
			const struct node *body, bool copy)
{
	struct elab *e = x->e;
	struct derived_probe *d = xcalloc(1, sizeof(*d));

	d->points = points;
	if (any_return_point(points) && !all_return_points(points)) {
		/* A return probe's body runs at another time (@entry, $return): the return
		 * points get a probe of their own, the others another, each with the body. */
		bool returns_first = points->kind == PROVIDER_KRETPROBE;
		struct derived_point *returns = split_returns(&points);

		free(d);
		add_derived(x, returns_first ? returns : points, body, true);
		add_derived(x, returns_first ? points : returns, body, true);
		return;
	}
	if (points->next && node_any(body, varies_per_point, NULL)) {
		/* As stap, which derives a body for each point: one probe each. */
		free(d);
		for (struct derived_point *next; points; points = next) {
			next = points->next;
			points->next = NULL;
			add_derived(x, points, body, true);
		}
		return;
	}
	d->probe = x->probe;
	if (x->depth > 0) {
		d->via_alias = true;
		d->alias_name = x->point->components->name;
		d->alias_loc = x->point->loc;
		d->listed_name = xstrdup(x->alias_pp);
	}
	d->body = copy ? node_copy(body) : (struct node *)body;
	if (only_counters(points)) {
		/* A perf counter only counts: stap's body for it is `next`. */
		struct node *block = node_new(N_BLOCK, d->body->loc);

		node_list_push(&block->body, node_new(N_NEXT, d->body->loc));
		d->body = block;
	}
	if (x->cond) {
		/* stap runs the body only while the condition holds: if (!(cond)) next. */
		struct node *guard = node_new(N_IF, x->cond->loc);
		struct node *not = node_new(N_UNARY, x->cond->loc);
		struct node *block = node_new(N_BLOCK, d->body->loc);

		not->op = '!';
		not->lhs = node_copy(x->cond);
		guard->cond = not;
		guard->then = node_new(N_NEXT, x->cond->loc);
		guard->then->num = 1;	/* the condition's: pass 3 may disarm the probe there */
		node_list_push(&block->body, guard);
		if (d->body->kind == N_BLOCK)
			for (int i = 0; i < d->body->body.len; i++)
				node_list_push(&block->body, d->body->body.items[i]);
		else
			node_list_push(&block->body, d->body);
		d->body = block;
		d->cond = node_copy(x->cond);
	}
	d->is_return = all_return_points(points);
	d->index = e->program->nprobes++;
	e->scope = &d->scope;
	e->probe = d;
	/* An error in the body is the script's, also where the point is optional (?, !) and
	 * derived quietly: said, counted, never a probe left half resolved. */
	struct diag_quiet_state quiet;

	diag_quiet_suspend(&quiet);
	if (d->cond)
		resolve_node(e, d->cond);
	resolve_node(e, d->body);
	diag_quiet_resume(&quiet);
	e->probe = NULL;
	e->scope = NULL;
	**x->tail = d;
	*x->tail = &d->next;
}

/*
 * The points the providers derive from `point` (after its aliases: none named it). A first
 * component with a wildcard names every provider it matches, as stap's (`time*.ms(10)` is
 * timer.ms(10), `e*` end and error): the point is derived through each, quietly, those it
 * does not fit skipped; when none derives, the pattern's own error.
 */
static bool derive_through_providers(const struct elab *e, const struct probe_point *point,
				     struct derived_point ***tail)
{
	return provider_derive_matching(point, point->components, providers_names(),
					providers_derive, e->env, tail);
}

static bool derive_from_providers(const struct elab *e, const struct probe_point *point,
				  struct derived_point ***tail)
{
	const char *pattern = point->components->name;

	if (strpbrk(pattern, "*?[") && !providers_has(pattern) &&
	    derive_through_providers(e, point, tail))
		return true;
	return !alias_mismatch(e, point) && providers_derive(point, e->env, tail);
}

/* stap's error for a pattern nothing derived from, at its first wildcard `wild`: the
 * similar names are those the aliases (and at the first component, the providers) have
 * there. */
static void wildcard_mismatch(const struct elab *e, const struct probe_point *point,
			      const struct component *wild)
{
	const char **names = NULL;
	size_t count, level = 0;
	bool matched;

	for (const struct component *c = point->components; c != wild; c = c->next)
		level++;
	if (level)
		names = alias_names_at(e, point, wild, (int)level, &count, &matched);
	provider_mismatch(point, wild, names);
	free(names);
}

/*
 * A point with a wildcard in a component's name, as stap's tree of names derives it: each
 * alias and each provider the pattern names is tried (`*.ms(100)` is timer.ms(100) among
 * the aliases it does not fit); one that does not fit is left out without a word (an
 * alias's own targets still say their errors); when none derives, stap's "didn't find any
 * wildcard matches". A wildcard past a provider's name (kernel.fun*) is the provider's.
 */
static bool derive_wildcard(struct expansion_state *x, const struct probe_point *point,
			    const struct node *body, const char *origin,
			    struct derived_point ***tail, const struct component *wild)
{
	bool ok = true, from_aliases;

	expand_aliases(x, point, body, origin, true, &ok, &from_aliases);
	if (wild == point->components && derive_through_providers(x->e, point, tail))
		return true;
	if (!from_aliases && !point->optional && !point->sufficient)
		wildcard_mismatch(x->e, point, wild);
	return from_aliases;
}

/* Whether the wildcard `wild` stands where names are (a first component, or a place where
 * aliases go on and no provider owns the point), not in a suffix of an alias's use
 * (`go.*` of the alias go is its suffix '*'). */
static bool names_place(const struct elab *e, const struct probe_point *point,
			const struct component *wild)
{
	size_t count;
	int level = 0;
	bool matched;

	if (wild == point->components)
		return true;
	if (providers_has(point->components->name))
		return false;
	for (const struct component *c = point->components; c != wild; c = c->next)
		level++;
	diag_quiet_begin();	/* counted only */
	free(alias_names_at(e, point, wild, level, &count, &matched));
	diag_quiet_end();
	return count > 0;
}

/* Derives `point` through the aliases it names, else through the providers; *tail gets
 * the providers' points. */
static bool derive_named(struct expansion_state *x, const struct probe_point *point,
			 const struct node *body, const char *origin, struct derived_point ***tail)
{
	const struct component *wild = first_wildcard(point);
	bool ok = true, derived;

	if (wild && names_place(x->e, point, wild))
		return derive_wildcard(x, point, body, origin, tail, wild);
	if (expand_aliases(x, point, body, origin, false, &ok, &derived))
		return ok;
	return derive_from_providers(x->e, point, tail);
}

/* Derives one point: through the aliases it names, else through a provider. The points a
 * provider derives from it share one probe. */
static bool derive_point(struct expansion_state *x, const struct probe_point *point,
			 const struct node *body, const char *origin)
{
	struct derived_point *points = NULL, **points_tail = &points;

	if (!derive_named(x, point, body, origin, &points_tail))
		return false;
	if (!points)	/* through aliases, which added their probes */
		return true;
	if (origin)
		set_origin(points, origin);
	add_derived(x, points, body, true);
	return true;
}

/*
 * Derives a point with its marks: an optional (?) or sufficient (!) point that does not
 * resolve is dropped without a word; any other failure clears *ok. Returns whether it
 * derived.
 */
static bool derive_marked(struct expansion_state *x, const struct probe_point *point,
			  const struct node *body, const char *origin, bool *ok)
{
	bool optional = point->optional || point->sufficient;
	bool derived;

	if (optional)
		diag_quiet_begin();
	derived = derive_point(x, point, body, origin);
	if (optional)
		derived &= diag_quiet_end() == 0;
	else
		*ok &= derived;
	return derived;
}

/* A probe condition names only declared globals, calls no function and changes nothing. */
struct condition_check {
	struct elab *e;
	bool ok;
};

static bool condition_node(const struct node *n, void *ctx)
{
	struct condition_check *c = ctx;
	int known = c->e->program->nglobals;
	struct var *v = n->kind == N_IDENT ? find_global(c->e, n->text, n->loc.source) : NULL;

	/* First named by the probe about to be derived, after its @entry's globals (-p2). */
	if (v && c->e->program->nglobals > known)
		v->probes_before++;
	if (n->kind == N_IDENT && !v) {
		struct token_desc tok = { "identifier", n->text };

		diag_error_at("semantic error", &tok, n->loc,
			      "probe condition must not reference undeclared global");
		c->ok = false;
		return true;
	}
	if (n->kind == N_CALL) {
		struct token_desc tok = { "identifier", n->text };

		diag_error_at("semantic error", &tok, n->loc,
			      "probe condition must not reference function");
		c->ok = false;
		return true;
	}
	if (n->kind == N_ASSIGN || n->kind == N_PREINC || n->kind == N_POSTINC) {
		struct token_desc tok = { "operator", op_text(n->op) };

		diag_error_at("semantic error", &tok, n->loc,
			      "probe condition must not modify any variables");
		c->ok = false;
		return true;
	}
	return false;
}

static bool check_condition(struct elab *e, const struct node *cond)
{
	struct condition_check c = { e, true };

	node_any(cond, condition_node, &c);
	return c.ok;
}

/*
 * A probe of the script: its points derived directly share its body; each alias it goes
 * through gives a probe of its own, with the alias's prologue or epilogue. A sufficient
 * point (!) that derives ends the list.
 */
void derive_probe(struct elab *e, struct probe *probe, struct derived_probe ***tail)
{
	struct expansion_state x = { .e = e, .probe = probe, .tail = tail };
	struct derived_point *direct = NULL, **direct_tail = &direct;
	char *origin = points_text(&probe->points, ",");
	const struct provider_env *saved_env = e->env;
	struct provider_env env = *e->env;
	bool ok = true;

	/* Providers name the probe in errors about it as a whole. */
	env.probe_loc = probe->loc;
	e->env = &env;
	for (int i = 0; i < probe->points.len; i++) {
		struct probe_point *point = probe->points.items[i];

		bool optional = point->optional || point->sufficient;
		bool derived;

		if (point->cond) {
			/* A point with a condition gets a probe of its own. */
			if (!check_condition(e, point->cond)) {
				ok = false;
				continue;
			}
			x.point = point;
			x.cond = point->cond;
			derived = derive_marked(&x, point, probe->body, NULL, &ok);
			x.cond = NULL;
			if (derived && point->sufficient)
				break;
			continue;
		}
		if (optional)
			diag_quiet_begin();
		x.point = point;
		derived = derive_named(&x, point, probe->body, origin, &direct_tail);
		if (optional)
			derived &= diag_quiet_end() == 0;
		else
			ok &= derived;
		if (derived && point->sufficient)
			break;
	}
	if (ok && direct) {
		set_origin(direct, origin);
		add_derived(&x, direct, probe->body, false);
	}
	e->env = saved_env;
	free(origin);
}

/* ---- The condition probe ---- */

/* With conditional probes, stap adds an empty begin probe (where it first looks at the
 * conditions); -p2 shows it. */
void add_condition_probe(struct elab *e, struct derived_probe ***tail)
{
	struct parse_options options = { .arch = "x86_64" };
	struct file *file;
	bool any = false;

	for (struct derived_probe *p = e->program->probes; p; p = p->next)
		any |= p->cond != NULL;
	if (!any)
		return;
	file = parse_source(source_from_text("<conditions>", "probe begin { ; }"), &options);
	if (!file)
		return;
	derive_probe(e, file->probes, tail);
	for (struct derived_probe *p = e->program->probes; p; p = p->next)
		if (p->probe == file->probes)
			p->body = p->body->body.items[0];
}
