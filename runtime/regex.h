/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regular-expression matching for `=~` and `!~`, and the last match that matched() and
 * ngroups() read (tapsets/regex.stp).
 *
 * The translator compiles each pattern into a program (src/regex.c); this is a Pike VM that
 * runs it over the string once: the threads alive at a position are kept in priority order,
 * each instruction is taken by at most one thread per position, and each thread carries the
 * positions of its tags. Time is O(length * instructions * tags), nothing recurses, and the
 * memory is the context's, sized by the module's largest program.
 *
 * The match reported is stap's: the first to end, by the highest-priority thread (the one
 * that started leftmost); a later, longer match from the same start replaces it.
 *
 * The module defines TAP_REGEX_MAX_INSNS and TAP_REGEX_MAX_TAGS when it has patterns.
 */
#ifndef TAP_REGEX_H
#define TAP_REGEX_H

#include <linux/string.h>
#include <linux/types.h>

#ifndef TAP_REGEX_MAX_INSNS
#define TAP_REGEX_MAX_INSNS 1
#define TAP_REGEX_MAX_TAGS 2
#endif

enum tap_rx_opcode {
	TAP_RX_BYTE,	/* consume byte `arg` (0: the end of the string) */
	TAP_RX_CLASS,	/* consume a byte of class `arg` */
	TAP_RX_SPLIT,	/* go on at x and at y, x preferred */
	TAP_RX_JUMP,	/* go on at x */
	TAP_RX_SAVE,	/* tag `arg` takes the position */
	TAP_RX_BOL,	/* only at position 0 */
	TAP_RX_MATCH,
};

/* Classes are bitmaps over characters 0..128; every byte above 127 is character 128. */
#define TAP_RX_CLASS_BYTES 17
#define TAP_RX_OTHER_CHAR 128

struct tap_rx_insn {
	u8 op;
	u16 arg;
	u16 x, y;
};

struct tap_regex {
	const struct tap_rx_insn *insns;
	const u8 (*classes)[TAP_RX_CLASS_BYTES];
	u16 ninsns;
	u16 ntags;	/* 2 per group, group 0 (the whole match) included */
};

/* The threads at one position: program counters and their tags, in priority order. */
struct tap_rx_threads {
	unsigned int n;
	u16 pc[TAP_REGEX_MAX_INSNS];
	int tags[TAP_REGEX_MAX_INSNS][TAP_REGEX_MAX_TAGS];
};

/* A step of a closure's walk: an instruction to visit, or a tag to restore. */
struct tap_rx_step {
	int restore;	/* 0: visit pc; 1: tags[slot] = value */
	u16 pc;
	u16 slot;
	int value;
};

struct tap_regex_state {
	/* The last match: the string, whether it matched, and its tags. As in stap, a failed
	 * match keeps the number of tags of the last successful one. */
	char str[MAXSTRINGLEN];
	int result;
	unsigned int ntags;
	int tags[TAP_REGEX_MAX_TAGS];

	/* Scratch space of a match. */
	struct tap_rx_threads threads[2];
	u32 visited[TAP_REGEX_MAX_INSNS];	/* the generation that last took each insn */
	u32 generation;
	int work[TAP_REGEX_MAX_TAGS];		/* the tags of the thread being followed */
	struct tap_rx_step stack[2 * TAP_REGEX_MAX_INSNS + 1];
	int found;
	int length;
};

static inline void tap_rx_next_generation(struct tap_regex_state *s)
{
	if (unlikely(++s->generation == 0)) {
		memset(s->visited, 0, sizeof(s->visited));
		s->generation = 1;
	}
}

/* A thread reached the end of the program at `pos`, its tags in s->work. */
static void tap_rx_accept(struct tap_regex_state *s, const struct tap_regex *re, int pos)
{
	if (s->found && (s->work[0] != s->tags[0] || pos - s->work[0] <= s->tags[1] - s->tags[0]))
		return;
	s->found = 1;
	memcpy(s->tags, s->work, re->ntags * sizeof(int));
}

/* Follows a thread from `pc` at position `pos` through everything that consumes no
 * character, adding the threads that wait for one to `list`. */
static void tap_rx_follow(struct tap_regex_state *s, const struct tap_regex *re,
			  struct tap_rx_threads *list, unsigned int pc, const int *tags, int pos)
{
	unsigned int sp = 0;

	memcpy(s->work, tags, re->ntags * sizeof(int));
	s->stack[sp++] = (struct tap_rx_step){ .pc = pc };
	while (sp) {
		struct tap_rx_step step = s->stack[--sp];
		const struct tap_rx_insn *insn;

		if (step.restore) {
			s->work[step.slot] = step.value;
			continue;
		}
		if (s->visited[step.pc] == s->generation)
			continue;
		s->visited[step.pc] = s->generation;
		insn = &re->insns[step.pc];
		switch (insn->op) {
		case TAP_RX_JUMP:
			s->stack[sp++] = (struct tap_rx_step){ .pc = insn->x };
			break;
		case TAP_RX_SPLIT:
			s->stack[sp++] = (struct tap_rx_step){ .pc = insn->y };
			s->stack[sp++] = (struct tap_rx_step){ .pc = insn->x };
			break;
		case TAP_RX_SAVE:
			s->stack[sp++] = (struct tap_rx_step){ .restore = 1, .slot = insn->arg,
							       .value = s->work[insn->arg] };
			s->work[insn->arg] = pos;
			s->stack[sp++] = (struct tap_rx_step){ .pc = step.pc + 1 };
			break;
		case TAP_RX_BOL:
			if (pos == 0)
				s->stack[sp++] = (struct tap_rx_step){ .pc = step.pc + 1 };
			break;
		case TAP_RX_MATCH:
			tap_rx_accept(s, re, pos);
			break;
		default:
			list->pc[list->n] = step.pc;
			memcpy(list->tags[list->n], s->work, re->ntags * sizeof(int));
			list->n++;
			break;
		}
	}
}

static inline int tap_rx_consumes(const struct tap_regex *re, const struct tap_rx_insn *insn,
				  unsigned char c)
{
	unsigned int ch = min_t(unsigned int, c, TAP_RX_OTHER_CHAR);

	if (insn->op == TAP_RX_BYTE)
		return ch == insn->arg;
	return re->classes[insn->arg][ch / 8] & (1u << (ch % 8));
}

/* str =~ re: 1 or 0; the match is kept in s for matched() and ngroups(). */
static int tap_regex_match(struct tap_regex_state *s, const struct tap_regex *re, const char *str)
{
	struct tap_rx_threads *now = &s->threads[0], *next = &s->threads[1], *swap;
	int len = strnlen(str, MAXSTRINGLEN - 1);
	unsigned int i;
	int pos;

	s->found = 0;
	for (i = 0; i < re->ntags; i++)
		s->tags[i] = -1;
	now->n = 0;
	tap_rx_next_generation(s);
	for (pos = 0; pos <= len; pos++) {
		unsigned char c = pos < len ? str[pos] : 0;

		/* A new start, the lowest priority; none once a match is found. */
		if (!s->found)
			tap_rx_follow(s, re, now, 0, s->tags, pos);
		if (!now->n && s->found)
			break;
		tap_rx_next_generation(s);
		next->n = 0;
		for (i = 0; i < now->n; i++)
			if (tap_rx_consumes(re, &re->insns[now->pc[i]], c))
				tap_rx_follow(s, re, next, now->pc[i] + 1, now->tags[i], pos + 1);
		swap = now;
		now = next;
		next = swap;
	}
	memcpy(s->str, str, len);
	s->str[len] = '\0';
	s->length = len;
	s->result = s->found;
	if (s->found)
		s->ntags = re->ntags;
	return s->found;
}

#endif
