/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regular expressions of `=~` and `!~`: stap's dialect of POSIX extended regular expressions,
 * parsed and compiled into a small program for the runtime's matcher
 * (runtime/regex.h, a Pike VM: one pass over the string, each instruction visited at most
 * once per position, no backtracking). Pass 2 checks each pattern with it; pass 3 writes
 * the programs into the module (translate/regex_table.h).
 *
 * The pattern is the string literal as written: its escapes (\n, \x41, \101, \.) are decoded
 * here, and an error's position counts characters of the literal as written, as stap's do.
 * Bytes are ASCII: a byte above 127 in the string is "another character", which `.` and
 * negated classes match and nothing else does.
 */
#ifndef TAPSTER_REGEX_H
#define TAPSTER_REGEX_H

#include <stdint.h>

/* The instructions; their numbers are the runtime's TAP_RX_* (runtime/regex.h). */
enum regex_opcode {
	REGEX_BYTE,	/* consume the byte `arg` (0: the end of the string, as `$`) */
	REGEX_CLASS,	/* consume a byte of class `arg` */
	REGEX_SPLIT,	/* go on at x and at y, x preferred */
	REGEX_JUMP,	/* go on at x */
	REGEX_SAVE,	/* note the position in tag `arg` (2n: group n starts, 2n+1: ends) */
	REGEX_BOL,	/* only at the start of the string */
	REGEX_MATCH,
};

struct regex_insn {
	enum regex_opcode op;
	int arg;
	int x, y;
};

/* Classes are over the 129 characters stap knows: 0..127 and 128 for any byte above. */
#define REGEX_CLASS_BYTES 17

struct regex_program {
	struct regex_insn *insns;
	int ninsns;
	uint8_t (*classes)[REGEX_CLASS_BYTES];
	int nclasses;
	int ngroups;		/* with group 0, the whole match */
};

/* The limits tapster sets (stap has none): what a context's scratch space is sized for. */
#define REGEX_MAX_INSNS 1024
#define REGEX_MAX_GROUPS 32

/* Compiles `pattern` (a string literal's text as written). On error returns NULL and sets
 * *message (to free) and *position (-1 when the error has none), as stap reports them:
 * "regex compilation error (at position P): MESSAGE". */
struct regex_program *regex_compile(const char *pattern, char **message, int *position);
void regex_free(struct regex_program *program);

#endif
