/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2's own parts: resolution (elaborate.c), probe derivation (derive.c), the optimizer
 * (optimize.c), type inference (infer.c). The state they share while elaborating.
 */
#ifndef TAPSTER_ELABORATE_H
#define TAPSTER_ELABORATE_H

#include "resolve/program.h"

struct elab {
	struct program *program;
	struct probe **aliases;		/* every alias definition, script first */
	int naliases;
	const struct node **reported;	/* nodes with an error reported */
	int nreported;
	const struct provider_env *env;
	struct used_function *function;	/* the function being inferred, NULL in probes */
	struct scope *scope;		/* locals of the body being resolved */
	struct derived_probe *probe;	/* the probe being resolved, NULL in functions */
	struct var **globals_tail;
	bool changed;			/* inference made progress in this round */
	bool report;			/* the last round: type errors are reported */
	int mismatch_level;		/* the most complex type mismatch of this round */
	int shown_level;		/* the least complex one the last round reports */
	bool origin_said;		/* a mismatch has said where a type was first inferred */
	bool in_entry;			/* resolving an @entry expression */
	bool printing_globals;		/* deriving the end probes that print globals */
	const struct function *resolving_function;	/* whose body is being resolved */
	/* The library files the program uses through an alias (derive.c notes them; the
	 * functions' and globals' files are read from the program), whose plain probes are
	 * derived once each. */
	const struct source **alias_sources;
	int nalias_sources;
};

/* Resolution (elaborate.c): every identifier of `n` to a local, parameter or global, every
 * call to a function, which is pulled in and resolved in its turn. */
void resolve_node(struct elab *e, struct node *n);
/* The program's entry for the library or script function `f`, its body resolved, added on
 * first use. */
struct used_function *use_function(struct elab *e, struct function *f);
/* The program's variable for the global `name` as seen from the file `from` (the user's
 * globals first, then the library's), added on first use; NULL when none is declared. */
struct var *find_global(struct elab *e, const char *name, const struct source *from);

/* Probe derivation (derive.c). The alias definitions of the script and then of the library,
 * collected once. */
void collect_aliases(struct elab *e);
/* The derived probes of a probe of the script, resolved, appended at *tail. */
/* Notes that a probe was derived through an alias of the file `source`. */
void note_alias_source(struct elab *e, const struct source *source);
void derive_probe(struct elab *e, struct probe *probe, struct derived_probe ***tail);
/* With conditional probes, the empty begin probe that stap adds. */
void add_condition_probe(struct elab *e, struct derived_probe ***tail);

/* Types to a fixed point across functions and probes, then once more to report what does
 * not fit (infer.c). */
void infer_program(struct elab *e);
/* The variables and calls left without a type, in stap's words. */
void check_types(struct elab *e);
/* The histogram and @variance bit shift of each statistics global, checked to agree
 * across its uses; statistics only in globals (stats.c). */
void check_stat_uses(struct elab *e);

/* stap's errors for an array written while a foreach walks it (foreach_check.c). */
void check_foreach_mutations(const struct program *program);

#endif
