// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/stap_helpers: in a network namespace of its own (its loopback
// device brought up), a TCP connection to 127.0.0.1:9, where nothing listens (refused);
// a connect() of an AF_INET6 address ([::1]:7 with flow information 0x12345 and scope 3)
// on that socket, which the call refuses; pipe2(O_CLOEXEC); an execve() of a program that
// is not there, with two arguments and two variables. Any step that goes otherwise exits
// with its line number as the status.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(cond) do { if (!(cond)) _exit(__LINE__ & 0x7f); } while (0)

static void lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	CHECK(s >= 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	CHECK(ioctl(s, SIOCGIFFLAGS, &ifr) == 0);
	ifr.ifr_flags |= IFF_UP;
	CHECK(ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
	close(s);
}

int main(void)
{
	struct sockaddr_in in4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(7),
				    .sin6_flowinfo = htonl(0x12345), .sin6_scope_id = 3,
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	char *argv[] = { "/nonexistent-stap-helpers", "one", "two words", NULL };
	char *envp[] = { "A=1", "B=2", NULL };
	int fds[2];
	int s;

	CHECK(unshare(CLONE_NEWNET) == 0);
	lo_up();
	in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(s >= 0);
	CHECK(connect(s, (struct sockaddr *)&in4, sizeof(in4)) < 0 && errno == ECONNREFUSED);
	CHECK(connect(s, (struct sockaddr *)&in6, sizeof(in6)) < 0);
	close(s);
	CHECK(pipe2(fds, O_CLOEXEC) == 0);
	CHECK(execve(argv[0], argv, envp) < 0 && errno == ENOENT);
	return 0;
}
