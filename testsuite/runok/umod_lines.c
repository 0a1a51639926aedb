// SPDX-License-Identifier: GPL-2.0-or-later
// A user program for runok/umod_lines: umod_leaf makes the getppid system call itself, with
// the address of its own build id (hexadecimal, read from its program headers) in rdi, so
// that the probe can compare it with umodbuildid(). Static, not position-independent: the
// leaf is at a page of its own, at a fixed address.
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

static char build_id[64];

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const unsigned char *desc = (const unsigned char *)(nh + 1) +
						    ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(nh + 1, "GNU", 4)) {
				for (unsigned int j = 0; j < nh->n_descsz && j < 31; j++)
					sprintf(build_id + 2 * j, "%02x", desc[j]);
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static long __attribute__((noinline, aligned(4096))) umod_leaf(const char *id)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getppid), "D"(id) : "rcx", "r11", "memory");
	return r;
}

int main(void)
{
	dl_iterate_phdr(find_build_id, NULL);
	return umod_leaf(build_id) > 0 ? 0 : 1;
}
