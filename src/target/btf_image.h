/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The `.BTF` section of a kernel image: an ELF vmlinux, or a bzImage (vmlinuz) whose
 * compressed payload (lz4, zstd, gzip, xz, bzip2 or lzma, decompressed with the matching
 * command) is that ELF, or a module's file (NAME.ko, or NAME.ko.xz and the like, which the
 * matching command decompresses).
 */
#ifndef TAPSTER_BTF_IMAGE_H
#define TAPSTER_BTF_IMAGE_H

#include <stddef.h>

/* The section's bytes (malloc'd, *size set), or NULL with *error set (malloc'd). */
char *btf_image_extract(const char *image, size_t *size, char **error);

/* The bytes of the file at `path` (malloc'd, *size set), decompressed when they are
 * compressed (a module's .ko.xz); NULL with *error set (malloc'd). */
char *read_decompressed_file(const char *path, size_t *size, char **error);

/* The kernel release a module's file (.ko, .ko.xz) was built for, from its .modinfo's
 * vermagic (malloc'd); NULL when it has none. */
char *btf_image_module_release(const char *path);

#endif
