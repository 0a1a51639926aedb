// SPDX-License-Identifier: GPL-2.0-or-later
/* Source texts: script files, -e one-liners and tapset files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
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
	FILE *f = fopen(path, "rb");
	struct strbuf sb = { 0 };
	char buf[65536];
	size_t n;

	if (!f) {
		fprintf(stderr, "ERROR: Couldn't open file '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_addn(&sb, buf, n);
	if (ferror(f)) {
		fprintf(stderr, "ERROR: Couldn't read file '%s': %s\n", path, strerror(errno));
		fclose(f);
		free(sb.buf);
		return NULL;
	}
	fclose(f);

	long len = (long)sb.len;

	return source_new(path, sb_steal(&sb), len, is_tapset);
}

struct source *source_from_text(const char *name, const char *text)
{
	size_t len = strlen(text);

	return source_new(name, xstrndup(text, len), (long)len, false);
}
