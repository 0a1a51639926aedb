// SPDX-License-Identifier: GPL-2.0-or-later
#include "providers/providers.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

static const struct provider *const providers[] = {
	&provider_begin,
	&provider_end,
	&provider_error,
	&provider_never,
	&provider_kernel,
	&provider_kprobe,
	&provider_timer,
	&provider_module,
	&provider_process,
	&provider_perf,
	&provider_procfs,
	&provider_netfilter,
};

static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '"': sb_add(sb, "\\\""); break;
		case '\\': sb_add(sb, "\\\\"); break;
		case '\n': sb_add(sb, "\\n"); break;
		case '\t': sb_add(sb, "\\t"); break;
		default: sb_addc(sb, *s); break;
		}
	}
}

void add_marks(struct strbuf *sb, const struct probe_point *point)
{
	if (point->optional)
		sb_addc(sb, '?');
	if (point->sufficient)
		sb_addc(sb, '!');
}

char *probe_point_text(const struct probe_point *point)
{
	struct strbuf sb = { 0 };

	for (const struct component *c = point->components; c; c = c->next) {
		if (c != point->components)
			sb_addc(&sb, '.');
		sb_add(&sb, c->name);
		if (!c->arg)
			continue;
		sb_addc(&sb, '(');
		if (c->arg->kind == N_STRING) {
			sb_addc(&sb, '"');
			add_escaped(&sb, c->arg->text);
			sb_addc(&sb, '"');
		} else {
			sb_addf(&sb, "%" PRId64, c->arg->num);
		}
		sb_addc(&sb, ')');
	}
	add_marks(&sb, point);
	return sb_steal(&sb);
}

struct derived_point *derived_point_new(enum provider_kind kind, const struct probe_point *point)
{
	struct derived_point *d = xcalloc(1, sizeof(*d));

	d->kind = kind;
	d->pp = probe_point_text(point);
	d->origin = xstrdup(d->pp);
	d->function = xstrdup("");
	d->module = xstrdup("");
	d->comment = xstrdup("");
	d->maxactive = -1;
	return d;
}

void add_derived_point(struct derived_point ***tail, struct derived_point *d)
{
	**tail = d;
	*tail = &d->next;
}

struct token_desc component_token(const struct component *comp)
{
	static const char *const keywords[] = {
		"probe", "global", "private", "function", "if", "else", "for", "foreach", "in",
		"limit", "return", "delete", "while", "break", "continue", "next", "string",
		"long", "try", "catch",
	};

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(comp->name, keywords[i]))
			return (struct token_desc){ "keyword", NULL };
	/* A component starting with a wildcard is an operator token, all of it ('*xyz'). */
	if (comp->name[0] == '*')
		return (struct token_desc){ "operator", comp->name };
	return (struct token_desc){ "identifier", comp->name };
}

bool component_number(const struct component *comp, int64_t *value)
{
	if (!comp->arg || comp->arg->kind != N_NUMBER)
		return false;
	*value = comp->arg->num;
	return true;
}

const char *component_string(const struct component *comp)
{
	return comp->arg && comp->arg->kind == N_STRING ? comp->arg->text : NULL;
}

void provider_resolving(const struct probe_point *point)
{
	struct token_desc first = component_token(point->components);

	diag_error_head_at("semantic error", &first, point->components->loc,
			   "while resolving probe point");
}

/* The first names of the aliases (providers_set_alias_roots()). */
static const char **alias_roots;
static size_t nalias_roots;

void providers_set_alias_roots(const char **roots, size_t count)
{
	free(alias_roots);
	alias_roots = roots;
	nalias_roots = count;
}

void provider_mismatch(const struct probe_point *point, const struct component *comp,
		       const char *const *similar)
{
	struct token_desc bad = component_token(comp);
	size_t count = 0;
	char *suggestion;
	/* As stap, a component with a wildcard after its start is compared by what comes
	 * before the wildcard. */
	size_t glob = strcspn(comp->name, "*");
	char *wanted = glob ? xstrndup(comp->name, glob) : xstrdup(comp->name);
	size_t nproviders = sizeof(providers) / sizeof(providers[0]);
	const char **names = NULL;

	if (!similar && comp == point->components) {
		/* The first component: stap's names there, the providers' and the aliases'. */
		names = xcalloc(nproviders + nalias_roots + 1, sizeof(*names));
		for (size_t i = 0; i < nproviders; i++)
			names[i] = providers[i]->name;
		for (size_t i = 0; i < nalias_roots; i++)
			names[nproviders + i] = alias_roots[i];
		similar = names;
	}
	while (similar && similar[count])
		count++;
	suggestion = similar_names(wanted, similar, count);
	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &bad, comp->loc, "probe point mismatch%s%s",
		      strpbrk(comp->name, "*?[") ? ": didn't find any wildcard matches" : "",
		      suggestion);
	free(suggestion);
	free(wanted);
	free(names);
}

/* `point` with its component `comp` named `name` (its components copied, their arguments
 * shared); point_named_free() frees it. */
static struct probe_point *point_named(const struct probe_point *point,
				       const struct component *comp, const char *name,
				       char **owned)
{
	struct probe_point *copy = xmalloc(sizeof(*copy));
	struct component **link = &copy->components;

	*copy = *point;
	*owned = xstrdup(name);
	for (const struct component *c = point->components; c; c = c->next) {
		*link = xmalloc(sizeof(**link));
		**link = *c;
		if (c == comp)
			(*link)->name = *owned;
		link = &(*link)->next;
	}
	return copy;
}

static void point_named_free(struct probe_point *copy, char *owned)
{
	struct component *c = copy->components, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	free(copy);
	free(owned);
}

bool provider_derive_matching(const struct probe_point *point, const struct component *comp,
			      const char *const *names, provider_derive_fn derive,
			      const struct provider_env *env, struct derived_point ***tail)
{
	bool any = false;

	for (int i = 0; names[i]; i++) {
		struct probe_point *named;
		char *owned;
		bool derived;

		if (fnmatch(comp->name, names[i], 0))
			continue;
		named = point_named(point, comp, names[i], &owned);
		diag_quiet_begin();
		derived = derive(named, env, tail);
		if (diag_quiet_end() == 0 && derived)
			any = true;
		point_named_free(named, owned);
	}
	return any;
}

bool provider_derive_each(const struct probe_point *point, const struct component *comp,
			  const char *const *names, provider_derive_fn derive,
			  const struct provider_env *env, struct derived_point ***tail)
{
	if (provider_derive_matching(point, comp, names, derive, env, tail))
		return true;
	provider_mismatch(point, comp, names);
	return false;
}

const char *const *providers_names(void)
{
	static const char *names[sizeof(providers) / sizeof(providers[0]) + 1];

	if (!names[0])
		for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
			names[i] = providers[i]->name;
	return names;
}

bool providers_has(const char *name)
{
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (!strcmp(providers[i]->name, name))
			return true;
	return false;
}

bool providers_check(const struct program *program)
{
	bool ok = true;

	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (providers[i]->check && !providers[i]->check(program))
			ok = false;
	return ok;
}

/* A pattern's next component: its name (start and length) and its argument's kind ('n'
 * number, 's' string, 0 none); *p moves past it and its dot. */
struct type_component {
	const char *name;
	size_t len;
	char arg;
};

static struct type_component next_type_component(const char **p)
{
	struct type_component tc = { *p, strcspn(*p, ".("), 0 };

	*p += tc.len;
	if (**p == '(') {
		tc.arg = (*p)[1];
		*p = strchr(*p, ')') + 1;
	}
	if (**p == '.')
		(*p)++;
	return tc;
}

/* Whether `point` is of the form `pattern`: the same names, with arguments at the same
 * places and of the same kinds. */
static bool point_has_type(const struct probe_point *point, const char *pattern)
{
	const char *p = pattern;

	for (const struct component *c = point->components; c; c = c->next) {
		struct type_component tc;
		char arg = !c->arg ? 0 : c->arg->kind == N_STRING ? 's' : 'n';

		if (!*p)
			return false;
		tc = next_type_component(&p);
		if (strlen(c->name) != tc.len || strncmp(c->name, tc.name, tc.len) || arg != tc.arg)
			return false;
	}
	return !*p;
}

/* stap's order of forms: component by component, by name, then no argument before a
 * number before a string; a form before its extensions. */
static int compare_types(const void *a, const void *b)
{
	const char *p = *(const char *const *)a, *q = *(const char *const *)b;

	while (*p && *q) {
		struct type_component x = next_type_component(&p);
		struct type_component y = next_type_component(&q);
		size_t n = x.len < y.len ? x.len : y.len;
		int cmp = strncmp(x.name, y.name, n);

		if (cmp)
			return cmp;
		if (x.len != y.len)
			return x.len < y.len ? -1 : 1;
		if (x.arg != y.arg)
			return !x.arg ? -1 : !y.arg ? 1 : x.arg == 'n' ? -1 : 1;
	}
	return *p ? 1 : *q ? -1 : 0;
}

void providers_dump_types(FILE *out, bool unprivileged)
{
	const char **patterns = NULL;
	size_t count = 0;

	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		for (const struct probe_type *t = providers[i]->types; t && t->pattern; t++) {
			if (unprivileged && !t->unprivileged)
				continue;
			patterns = xrealloc(patterns, sizeof(*patterns) * (count + 1));
			patterns[count++] = t->pattern;
		}
	qsort(patterns, count, sizeof(*patterns), compare_types);
	for (size_t i = 0; i < count; i++)
		if (!i || strcmp(patterns[i], patterns[i - 1]))
			fprintf(out, "%s\n", patterns[i]);
	free(patterns);
}

/* --privilege=stapusr: stap's error for a point it does not allow there, at its last
 * component (perf.type(1).config(2) at `config`, kernel.function("f").return at
 * `return`). */
static bool unprivileged_allows(const struct provider *provider,
				const struct probe_point *point)
{
	const struct component *last = point->components;

	for (const struct probe_type *t = provider->types; t && t->pattern; t++)
		if (t->unprivileged && point_has_type(point, t->pattern))
			return true;
	while (last->next)
		last = last->next;
	provider_error_at(point, last, "probe point is not allowed for --privilege=stapusr");
	return false;
}

void providers_forget(void)
{
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (providers[i]->forget)
			providers[i]->forget();
	/* The roots name the elaboration's aliases: gone with them (the fuzzers' arenas). */
	providers_set_alias_roots(NULL, 0);
}

bool providers_derive(const struct probe_point *point, const struct provider_env *env,
		      struct derived_point ***tail)
{
	const char *name = point->components->name;

	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
		if (strcmp(providers[i]->name, name))
			continue;
		if (env->unprivileged && !unprivileged_allows(providers[i], point))
			return false;
		return providers[i]->derive(point, env, tail);
	}
	provider_mismatch(point, point->components, NULL);
	return false;
}

void provider_truncated(const struct probe_point *point, const struct component *comp,
			const char *follow)
{
	struct token_desc tok = component_token(comp);

	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &tok, comp->loc, "probe point truncated (follow:  %s)",
		      follow);
}

void provider_error_at(const struct probe_point *point, const struct component *comp,
		       const char *reason)
{
	struct token_desc tok = component_token(comp);

	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &tok, comp->loc, "%s", reason);
}

void provider_invalid_suffix(const struct probe_point *point, const struct component *comp)
{
	provider_error_at(point, comp, "invalid suffix for probe");
}

void provider_refuse(const struct probe_point *point, const char *reason)
{
	provider_resolving(point);
	diag_continue();
	diag_error("semantic error", "%s\n", reason);
}

void provider_no_match(const struct probe_point *point, const char *similar, const char *one,
		       const char *many)
{
	const char *prefix = " (similar: ";
	char *reason = !strncmp(similar, prefix, strlen(prefix)) ?
		       xasprintf("no match (similar %s: %s", strchr(similar, ',') ? many : one,
				 similar + strlen(prefix)) :
		       xstrdup("no match");

	provider_refuse(point, reason);
	free(reason);
}
