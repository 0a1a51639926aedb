// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of the block I/O alias cases (runok/alias_ioblock*, alias_ioscheduler*,
// alias_scsi, alias_workqueue): `alias_ioblk DEVICE ACTIONS` does to the block device, in
// the order ACTIONS names them, at sectors and sizes the cases know:
//   w  writes 4096 bytes at sector 2048 (O_DIRECT: one bio from this task)
//   r  reads 8192 bytes at sector 4096 (O_DIRECT)
//   d  discards 65536 bytes at sector 8192 (BLKDISCARD; prints "discard" or "no discard")
//   b  writes 4096 bytes at sector 12288 through the page cache and writes them back
//      (sync_file_range: the writeback's bio is submitted by this task, under a plug)
//   u  starts a SCSI disk (SCSI_IOCTL_START_UNIT: a START STOP UNIT command the kernel
//      executes itself; its TEST_UNIT_READY is ioctl 2, which the VFS takes as FIGETBSZ)
//   s  takes the SCSI disk offline, then back to running (its sysfs state; running
//      rescans the disk: commands the kernel executes)
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <scsi/scsi_ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define SECTOR 512

static int fail(const char *what)
{
	perror(what);
	return 1;
}

/* A transfer of `len` bytes at `sector` of the aligned buffer `buf`. */
static int transfer(int fd, char action, void *buf, size_t len, off_t sector)
{
	ssize_t done = action == 'r' ? pread(fd, buf, len, sector * SECTOR) :
				       pwrite(fd, buf, len, sector * SECTOR);

	return done == (ssize_t)len ? 0 : fail(action == 'r' ? "pread" : "pwrite");
}

static int discard(int fd)
{
	uint64_t range[2] = { 8192 * SECTOR, 65536 };

	puts(ioctl(fd, BLKDISCARD, range) == 0 ? "discard" : "no discard");
	return 0;
}

static int write_back(const char *device, void *buf)
{
	int fd = open(device, O_RDWR);

	if (fd < 0)
		return fail(device);
	if (transfer(fd, 'w', buf, 4096, 12288))
		return 1;
	if (sync_file_range(fd, 12288 * SECTOR, 4096, SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
		return fail("sync_file_range");
	return close(fd) ? fail("close") : 0;
}

/* Writes `state` to the sysfs state of the SCSI device of the disk /dev/NAME. */
static int set_state(const char *device, const char *state)
{
	const char *slash = strrchr(device, '/');
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/device/state", slash ? slash + 1 : device);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return fail(path);
	if (write(fd, state, strlen(state)) != (ssize_t)strlen(state))
		return fail(path);
	return close(fd) ? fail(path) : 0;
}

static int act(const char *device, int fd, char action, void *buf)
{
	switch (action) {
	case 'w': return transfer(fd, action, buf, 4096, 2048);
	case 'r': return transfer(fd, action, buf, 8192, 4096);
	case 'd': return discard(fd);
	case 'b': return write_back(device, buf);
	case 'u':
		return ioctl(fd, SCSI_IOCTL_START_UNIT, 0) ? fail("SCSI_IOCTL_START_UNIT") : 0;
	case 's':
		return set_state(device, "offline\n") || set_state(device, "running\n");
	}
	fprintf(stderr, "alias_ioblk: unknown action %c\n", action);
	return 1;
}

int main(int argc, char **argv)
{
	void *buf;
	int fd;

	if (argc != 3) {
		fputs("usage: alias_ioblk DEVICE ACTIONS\n", stderr);
		return 2;
	}
	if (posix_memalign(&buf, 4096, 8192))
		return fail("posix_memalign");
	memset(buf, 0x5a, 8192);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		return fail(argv[1]);
	for (const char *a = argv[2]; *a; a++) {
		if (act(argv[1], fd, *a, buf))
			return 1;
	}
	return close(fd) ? fail("close") : 0;
}
