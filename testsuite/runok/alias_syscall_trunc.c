// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_trunc: calls whose argstr stap bounds by its global
 * syscall_string_trunc (the case sets it to 20 with -G): write's and sendto's buffer, mount's
 * data; each fails (a bad fd, a missing mount point) so that the run is the same every time. */
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz";

	syscall(SYS_write, 99, text, sizeof(text) - 1);
	syscall(SYS_sendto, 99, text, sizeof(text) - 1, 0, (void *)0, 0);
	syscall(SYS_mount, "none", "/nonexistent", "tmpfs", 0, "size=1m,nr_inodes=100,mode=0755");
	return 0;
}
