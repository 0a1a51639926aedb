// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/alias_generic_fop: on a ramfs of its own (whose files use the
// kernel's generic file operations) it writes 4096 bytes into a new file, seeks (once to an
// invalid offset), reads 512 bytes, maps the first page, splices 1000 bytes into a pipe;
// then it creates a file on a tmpfs of its own (tmpfs opens with generic_file_open).
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAMFS "/tmp/fop_ramfs"
#define TMPFS "/tmp/fop_tmpfs"

static char buf[4096];

int main(void)
{
	off_t off = 0;
	void *map;
	int fd, p[2];

	if (mkdir(RAMFS, 0755) || mount("none", RAMFS, "ramfs", 0, NULL) ||
	    mkdir(TMPFS, 0755) || mount("none", TMPFS, "tmpfs", 0, NULL))
		return 1;

	memset(buf, 'a', sizeof(buf));
	fd = open(RAMFS "/data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
		return 1;
	if (lseek(fd, 0, SEEK_END) != 4096 || lseek(fd, -1, SEEK_SET) != -1 ||
	    lseek(fd, 100, SEEK_SET) != 100 || read(fd, buf, 512) != 512)
		return 1;
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	munmap(map, 4096);
	if (pipe(p) || splice(fd, &off, p[1], NULL, 1000, SPLICE_F_NONBLOCK) != 1000)
		return 1;
	close(p[0]);
	close(p[1]);
	close(fd);

	fd = open(TMPFS "/new", O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return 1;
	close(fd);

	unlink(RAMFS "/data");
	unlink(TMPFS "/new");
	umount(RAMFS);
	umount(TMPFS);
	rmdir(RAMFS);
	rmdir(TMPFS);
	return 0;
}
