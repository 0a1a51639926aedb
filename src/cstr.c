// SPDX-License-Identifier: GPL-2.0-or-later
/* C literals for the generated module (cstr.h). */
#include "cstr.h"

#include <stdlib.h>
#include <string.h>

#include "parse/ast.h"
#include "util.h"

char *c_string_literal(const char *s)
{
	struct strbuf sb = { 0 };

	sb_addc(&sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addf(&sb, "\\%c", *p);
		else if (*p == '\n')
			sb_add(&sb, "\\n");
		else if (*p == '\t')
			sb_add(&sb, "\\t");
		else if (*p < 0x20 || *p >= 0x7f || *p == '?')
			sb_addf(&sb, "\\%03o", *p);	/* octal: no trigraphs, no hex run-on */
		else
			sb_addc(&sb, (char)*p);
	}
	sb_addc(&sb, '"');
	return sb_steal(&sb);
}

static const char *node_token_kind(const struct node *n)
{
	switch (n->kind) {
	case N_IDENT:
	case N_CALL:
	case N_PRINT:
	case N_TARGET: return "identifier";
	case N_NUMBER: return "number";
	case N_STRING: return "string";
	case N_IF: case N_WHILE: case N_FOR: case N_FOREACH: case N_BREAK: case N_CONTINUE:
	case N_NEXT: case N_RETURN: case N_DELETE: case N_TRY: return "keyword";
	default: return "operator";
	}
}

char *location_literal(const struct node *n)
{
	char *at_name = n->kind == N_STATOP || n->kind == N_HIST ? xasprintf("@%s", n->text)
								 : NULL;
	const char *what = n->kind == N_BINARY || n->kind == N_ASSIGN || n->kind == N_UNARY ||
			   n->kind == N_PREINC ? op_text(n->op) :
			   n->kind == N_BLOCK ? "{" : at_name ? at_name :
			   n->kind == N_CALL ? node_token(n).text : n->text;
	const char *kind = node_token_kind(n);
	/* stap names a keyword token by its kind alone: "near keyword at <input>:1:24". */
	char *token = !strcmp(kind, "keyword") ? xstrdup(kind)
					      : xasprintf("%s '%s'", kind, what ? what : "");
	char *text = xasprintf("%s at %s:%d:%d", token, n->loc.source ? n->loc.source->name : "",
			       n->loc.line, n->loc.col);

	free(token);
	free(at_name);
	char *lit = c_string_literal(text);

	free(text);
	return lit;
}
