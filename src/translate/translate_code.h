/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What translate_code.c (expressions) lends translate_stmt.c (statements): the pieces of
 * arrays, aggregates and updates that both generate. No other file includes it.
 */
#ifndef TAPSTER_TRANSLATE_CODE_H
#define TAPSTER_TRANSLATE_CODE_H

#include "translate/translate.h"

/* The jump a runtime error takes, `indent` before it: to the try's catch, else out. */
void emit_error_goto(struct body *b, const char *indent);

/* Arrays: the map's C pointer, the keys of an index (and one extra key expression), their
 * compound literal, and the mask of a slice's `*` keys. */
char *map_ref(const struct var *array);
char *gen_keys(struct body *b, struct node *index, struct node *extra, char **extra_expr);
char *keys_literal(const struct var *array, char **exprs, int n);
unsigned wild_mask(const struct node_list *keys);

/* Aggregates: whether a global's parts are per CPU, the statistics global an operand
 * names, a gathered `struct tap_stat *` to read it through, and its buckets. */
bool per_cpu_stats(const struct var *v);
struct var *stat_var(const struct node *operand);
char *stat_pointer(struct body *b, struct node *operand);
char *hist_buckets_expr(const struct var *v, const char *stat);

/* Updates: x++ and its kin (`value_used` false as a statement), a sharded global's update
 * as a statement, and the note after a write of a global some kprobe condition reads. */
char *gen_incdec(struct body *b, struct node *n, bool value_used);
void gen_shard_update(struct body *b, const struct node *u);
void note_condition_write(struct body *b, const struct node *target);

/* %{ code %} as a statement (guru mode). */
void gen_embedded_stmt(struct body *b, const struct node *n);

#endif
