// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_more2: bind, connect, getsockopt, arch_prctl, the System V
 * message queue calls, kcmp, membarrier, ioprio_set, mq_open, get_thread_area (which is
 * sys_ni_syscall on x86_64), io_getevents, fanotify, the NUMA policy calls, sched_getattr
 * and sched_setattr, kexec_load, perf_event_open, bpf, setsockopt, set_mempolicy and
 * semget, made directly (syscall(2)) with arguments whose argstr and result are the same
 * on every run: a bad fd (99) or a bad address (0x10) where a call would otherwise depend
 * on the machine. It runs in an IPC namespace of its own, so that its message queue's id
 * is the first one. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define BAD ((void *)0x10)

int main(void)
{
	struct sockaddr_in in4 = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(8080),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "/tmp/m2_sock" };
	struct { unsigned int entry_number, base_addr, limit, flags; } desc = { 5, 0x1000, 7, 0x41 };
	struct { long long sec; long nsec; } ts = { 1, 5 };
	struct { unsigned int size, policy; unsigned long long flags; int nice;
		 unsigned int priority; unsigned long long runtime, deadline, period; } attr,
		set = { .size = 48 };
	long fd, id;

	memset(&attr, 0, sizeof(attr));

	syscall(SYS_unshare, CLONE_NEWIPC);
	syscall(SYS_chdir, "/tmp");
	inet_pton(AF_INET, "127.0.0.1", &in4.sin_addr);
	fd = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	syscall(SYS_bind, fd, &un, sizeof(un));
	syscall(SYS_bind, 99, &in6, sizeof(in6));
	syscall(SYS_bind, 99, &in4, 3);
	syscall(SYS_bind, 99, NULL, 0);
	syscall(SYS_connect, 99, &in4, sizeof(in4));
	syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, BAD, BAD);
	syscall(SYS_getsockopt, 99, IPPROTO_TCP, 0x7777, BAD, BAD);
	syscall(SYS_arch_prctl, 0x1003, BAD);
	syscall(SYS_arch_prctl, 0x9999, 0);
	id = syscall(SYS_msgget, 0, 01000 | 0600);
	syscall(SYS_msgget, 1234, 02000 | 04000 | 0640);
	syscall(SYS_msgsnd, id, BAD, 4, 04000);
	syscall(SYS_msgrcv, 99, BAD, 8, -3L, 010000 | 04000);
	syscall(SYS_msgctl, 99, 0x100 | 2, BAD);
	syscall(SYS_msgctl, id, 0, 0);
	syscall(SYS_kcmp, 0, 0, 1, 0, 0);
	syscall(SYS_kcmp, 0, 0, 77, 5, 6);
	syscall(SYS_membarrier, 0, 1);
	syscall(SYS_ioprio_set, 1, 0, 2 << 13 | 4);
	fd = syscall(SYS_mq_open, "m2_queue", O_RDWR | O_CREAT, 0600, NULL);
	syscall(SYS_mq_open, "m2_none", O_RDONLY, 0, NULL);
	syscall(SYS_get_thread_area, &desc);
	syscall(SYS_get_thread_area, BAD);
	syscall(SYS_io_getevents, 0, 1, 2, BAD, &ts);
	syscall(SYS_fanotify_init, 0xc | 1, O_RDONLY);
	syscall(SYS_fanotify_mark, 99, 1 | 8, 0x20 | 0x8, AT_FDCWD, "/tmp");
	syscall(SYS_get_mempolicy, BAD, BAD, 0, 0, 0x10);
	syscall(SYS_mbind, 0x10000, 4096, 0x8000 | 2, NULL, 0, 0x100);
	syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0x10);
	syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0);
	syscall(SYS_sched_setattr, 0, &set, 1);
	syscall(SYS_kexec_load, 0, 0, NULL, 3 << 16);
	syscall(SYS_perf_event_open, BAD, 0, -1, -1, 8 | 1);
	syscall(SYS_bpf, 0, BAD, 16);
	syscall(SYS_setsockopt, 99, SOL_SOCKET, SO_REUSEADDR, BAD, 4);
	syscall(SYS_set_mempolicy, 99, NULL, 0);
	syscall(SYS_semget, 1234, 1, 0640);
	syscall(SYS_close, fd);
	return 0;
}
