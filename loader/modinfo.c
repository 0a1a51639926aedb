// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a module file says of itself in its .modinfo section: its "name=", which is what the
 * kernel calls the module once inserted (and so what its /proc/tapster_NAME and
 * delete_module() need), whatever the file is called; its "vermagic=", whose first word is
 * the kernel release it was built for (--vm chooses the VM's kernel by it).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"

static bool read_at(int fd, void *buf, size_t len, off_t offset)
{
	return pread(fd, buf, len, offset) == (ssize_t)len;
}

/* The section `wanted` of the ELF64 file `fd`: its offset and size, or false. */
static bool find_section(int fd, const char *wanted, Elf64_Off *offset, Elf64_Xword *size)
{
	Elf64_Ehdr eh;
	Elf64_Shdr strtab, sh;
	char name[32];

	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(sh) ||
	    eh.e_shstrndx >= eh.e_shnum ||
	    !read_at(fd, &strtab, sizeof(strtab), eh.e_shoff + eh.e_shstrndx * sizeof(sh)))
		return false;
	for (unsigned int i = 0; i < eh.e_shnum; i++) {
		if (!read_at(fd, &sh, sizeof(sh), eh.e_shoff + i * sizeof(sh)) ||
		    sh.sh_name >= strtab.sh_size)
			return false;
		memset(name, 0, sizeof(name));
		if (pread(fd, name, sizeof(name) - 1, strtab.sh_offset + sh.sh_name) <= 0)
			return false;
		if (!strcmp(name, wanted)) {
			*offset = sh.sh_offset;
			*size = sh.sh_size;
			return true;
		}
	}
	return false;
}

bool module_modinfo(int fd, const char *key, char *value, size_t size)
{
	size_t key_len = strlen(key);
	Elf64_Off offset;
	Elf64_Xword len;
	char *info;
	bool found = false;

	if (!find_section(fd, ".modinfo", &offset, &len) || len == 0 || len > (1u << 20))
		return false;
	info = malloc(len + 1);
	if (!info)
		return false;
	if (read_at(fd, info, len, offset)) {
		info[len] = '\0';
		for (char *entry = info; entry < info + len; entry += strlen(entry) + 1) {
			if (strncmp(entry, key, key_len) || entry[key_len] != '=' ||
			    !entry[key_len + 1] || strlen(entry + key_len + 1) >= size)
				continue;
			strcpy(value, entry + key_len + 1);
			found = true;
			break;
		}
	}
	free(info);
	return found;
}

bool module_name_from_modinfo(int fd, char *name, size_t size)
{
	return module_modinfo(fd, "name", name, size);
}
