// SPDX-License-Identifier: GPL-2.0-or-later
/* Source texts: script files, -e one-liners and tapset files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/parse.h"
#include "util.h"

static struct source *source_new(const char *name, char *text, long len, bool is_tapset)
{
	struct source *src = xcalloc(1, sizeof(*src));

	src->name = xstrdup(name);
	src->text = text;
	src->len = len;
	src->is_tapset = is_tapset;
	return src;
}

struct source *source_read(const char *path, bool is_tapset)
{
	size_t len;
	char *text = read_text_file(path, &len);

	if (!text) {
		fprintf(stderr, "ERROR: Couldn't read file '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	return source_new(path, text, (long)len, is_tapset);
}

struct source *source_from_text(const char *name, const char *text)
{
	size_t len = strlen(text);

	return source_new(name, xstrndup(text, len), (long)len, false);
}
