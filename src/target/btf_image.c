// SPDX-License-Identifier: GPL-2.0-or-later
#include "target/btf_image.h"

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* The section `name` of the ELF64 file in `elf`, copied; NULL when it has none. */
static char *elf_section(const char *elf, size_t len, const char *name, size_t *size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Shdr *sh, *strtab;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	for (int i = 0; i < eh->e_shnum; i++) {
		uint64_t name_at = strtab->sh_offset + sh[i].sh_name;

		if (name_at + strlen(name) + 1 > len || strcmp(elf + name_at, name) ||
		    sh[i].sh_offset + sh[i].sh_size > len)
			continue;
		*size = sh[i].sh_size;
		char *copy = xmalloc(*size + 1);

		memcpy(copy, elf + sh[i].sh_offset, *size);
		return copy;
	}
	return NULL;
}

/* The command that decompresses a payload starting with these bytes, or NULL. */
static const char *decompressor(const unsigned char *p, size_t len)
{
	static const struct { const char *magic; size_t len; const char *command; } formats[] = {
		{ "\x02\x21\x4c\x18", 4, "lz4" },	/* lz4's legacy frame */
		{ "\x28\xb5\x2f\xfd", 4, "zstd" },
		{ "\x1f\x8b", 2, "gzip" },
		{ "\xfd" "7zXZ", 5, "xz" },
		{ "BZh", 3, "bzip2" },
		{ "\x5d\x00\x00", 3, "lzma" },
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (len >= formats[i].len && !memcmp(p, formats[i].magic, formats[i].len))
			return formats[i].command;
	return NULL;
}

/* The file at `path` decompressed by `command`, or NULL. */
static char *decompress_file(const char *command, const char *path, size_t *out_len)
{
	struct strbuf line = { 0 }, sb = { 0 };
	char buf[65536];
	FILE *pipe;
	size_t n;
	char *data;

	sb_addf(&line, "%s -dc '", command);
	for (const char *p = path; *p; p++) {
		if (*p == '\'')
			sb_add(&line, "'\\''");
		else
			sb_addc(&line, *p);
	}
	sb_add(&line, "' 2>/dev/null");
	pipe = popen(line.buf, "r");
	while (pipe && (n = fread(buf, 1, sizeof(buf), pipe)) > 0)
		sb_addn(&sb, buf, n);
	if (pipe)
		pclose(pipe);	/* its status: the tools complain of a payload's missing end */
	free(line.buf);
	*out_len = sb.len;
	data = sb.len ? sb_steal(&sb) : NULL;
	free(sb.buf);
	return data;
}

/* `len` bytes decompressed by `command` (through a temporary file), or NULL. */
static char *decompress_bytes(const char *command, const char *bytes, size_t len,
			      size_t *out_len)
{
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *tmp = xasprintf("%s/tapster-payload-XXXXXX", tmpdir);
	int fd = mkstemp(tmp);
	bool written = fd >= 0 && write(fd, bytes, len) == (ssize_t)len;
	char *data = NULL;

	if (fd >= 0)
		close(fd);
	if (written)
		data = decompress_file(command, tmp, out_len);
	if (fd >= 0)
		unlink(tmp);
	free(tmp);
	return data;
}

/* The payload of a bzImage decompressed, or NULL with *error set. The kernel's build
 * appends the decompressed size (4 bytes) to the payload, which the tools don't expect. */
static char *decompress_payload(const char *image, size_t len, size_t *out_len, char **error)
{
	uint32_t setup_sects, offset, length;
	const char *command;
	char *data;

	setup_sects = (unsigned char)image[0x1f1] ? (unsigned char)image[0x1f1] : 4;
	memcpy(&offset, image + 0x248, 4);
	memcpy(&length, image + 0x24c, 4);
	size_t start = (setup_sects + 1) * 512 + (size_t)offset;

	if (start + length > len || length < 8) {
		*error = xstrdup("its payload lies outside the file");
		return NULL;
	}
	command = decompressor((const unsigned char *)image + start, length);
	if (!command) {
		*error = xstrdup("its payload's compression is unknown");
		return NULL;
	}
	data = decompress_bytes(command, image + start, length - 4, out_len);
	if (!data)
		*error = xasprintf("cannot decompress its payload (is %s installed?)", command);
	return data;
}

char *read_decompressed_file(const char *path, size_t *size, char **error)
{
	unsigned char magic[6];
	FILE *f = fopen(path, "rb");
	size_t len = f ? fread(magic, 1, sizeof(magic), f) : 0;
	const char *command = len > 4 && memcmp(magic, ELFMAG, SELFMAG) ?
			      decompressor(magic, len) : NULL;
	char *data;

	if (f)
		fclose(f);
	if (!command) {
		data = read_text_file(path, size);
		if (!data)
			*error = xasprintf("cannot read %s", path);
		return data;
	}
	data = decompress_file(command, path, size);
	if (!data)
		*error = xasprintf("cannot decompress %s (is %s installed?)", path, command);
	return data;
}

char *btf_image_extract(const char *path, size_t *size, char **error)
{
	size_t len, elf_len;
	char *image = read_decompressed_file(path, &len, error);
	char *elf, *btf;

	if (!image)
		return NULL;
	if (len > 0x250 && !memcmp(image + 0x202, "HdrS", 4)) {
		elf = decompress_payload(image, len, &elf_len, error);
		free(image);
		if (!elf) {
			char *why = *error;

			*error = xasprintf("%s: %s", path, why);
			free(why);
			return NULL;
		}
	} else {
		elf = image;
		elf_len = len;
	}
	btf = elf_section(elf, elf_len, ".BTF", size);
	free(elf);
	if (!btf)
		*error = xasprintf("%s has no .BTF section", path);
	return btf;
}

char *btf_image_module_release(const char *path)
{
	size_t len, size;
	char *error = NULL;
	char *elf = read_decompressed_file(path, &len, &error);
	char *info = elf ? elf_section(elf, len, ".modinfo", &size) : NULL;
	char *release = NULL;

	free(error);
	free(elf);
	if (info)
		info[size] = '\0';	/* elf_section() leaves room for it */
	/* NUL-separated "key=value" strings; vermagic's value begins with the release. */
	for (size_t i = 0; info && i < size && !release; i += strlen(info + i) + 1) {
		if (!strncmp(info + i, "vermagic=", 9))
			release = xstrndup(info + i + 9, strcspn(info + i + 9, " "));
	}
	free(info);
	return release;
}
