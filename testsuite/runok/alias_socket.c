// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/alias_socket: sockets made one after another, in a network
// namespace of its own whose loopback device it brings up (the VM's stays down for the
// other cases), sets its MTU (to what it is) and tries to set a MAC address, and reads its
// statistics. An AF_UNIX stream pair carries "hello" by write()/read() and "abc" by
// sendto()/recvfrom(); a UDP socket bound to 127.0.0.1:7002 sends "ping" to one bound to
// 127.0.0.1:7001, then disconnects (connect() to AF_UNSPEC); a TCP client bound to
// 127.0.0.1:7004 sets TCP_NODELAY, connects to a listener on 127.0.0.1:7003, sends "data"
// and disconnects; an IPv6 TCP socket sets IPV6_V6ONLY and connects to a listener on
// [::1]:7005. Any step that fails exits with its line number as the status.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(cond) do { if (!(cond)) _exit(__LINE__ & 0x7f); } while (0)

static struct sockaddr_in in4(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

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
	ifr.ifr_mtu = 65536;
	CHECK(ioctl(s, SIOCSIFMTU, &ifr) == 0);
	/* The loopback device has no MAC address to change: the request fails. */
	memset(&ifr.ifr_hwaddr, 0, sizeof(ifr.ifr_hwaddr));
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, "\x02\x00\x00\x00\x00\x01", 6);
	CHECK(ioctl(s, SIOCSIFHWADDR, &ifr) < 0);
	close(s);
}

/* Its statistics, read as /proc/net/dev shows them. */
static void dev_stats(void)
{
	char buf[4096];
	int fd = open("/proc/self/net/dev", O_RDONLY);

	CHECK(fd >= 0);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void unix_pair(void)
{
	char buf[64];
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(write(sv[0], "hello", 5) == 5);
	CHECK(read(sv[1], buf, sizeof(buf)) == 5);
	CHECK(sendto(sv[0], "abc", 3, 0, NULL, 0) == 3);
	CHECK(recvfrom(sv[1], buf, sizeof(buf), 0, NULL, NULL) == 3);
	close(sv[0]);
	close(sv[1]);
}

static void udp(void)
{
	struct sockaddr_in a1 = in4(7001), a2 = in4(7002);
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	char buf[64];
	int s = socket(AF_INET, SOCK_DGRAM, 0), c = socket(AF_INET, SOCK_DGRAM, 0);

	CHECK(s >= 0 && c >= 0);
	CHECK(bind(s, (struct sockaddr *)&a1, sizeof(a1)) == 0);
	CHECK(bind(c, (struct sockaddr *)&a2, sizeof(a2)) == 0);
	CHECK(connect(c, (struct sockaddr *)&a1, sizeof(a1)) == 0);
	CHECK(send(c, "ping", 4, 0) == 4);
	CHECK(recv(s, buf, sizeof(buf), 0) == 4);
	CHECK(connect(c, &unspec, sizeof(unspec)) == 0);
	close(c);
	close(s);
}

static void tcp4(void)
{
	struct sockaddr_in la = in4(7003), ca = in4(7004);
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	char buf[64];
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), a;

	CHECK(l >= 0 && c >= 0);
	CHECK(bind(l, (struct sockaddr *)&la, sizeof(la)) == 0);
	CHECK(listen(l, 1) == 0);
	CHECK(bind(c, (struct sockaddr *)&ca, sizeof(ca)) == 0);
	CHECK(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0);
	CHECK(connect(c, (struct sockaddr *)&la, sizeof(la)) == 0);
	a = accept(l, NULL, NULL);
	CHECK(a >= 0);
	CHECK(send(c, "data", 4, 0) == 4);
	CHECK(recv(a, buf, sizeof(buf), 0) == 4);
	CHECK(connect(c, &unspec, sizeof(unspec)) == 0);
	close(c);
	close(a);
	close(l);
}

static void tcp6(void)
{
	struct sockaddr_in6 la = { .sin6_family = AF_INET6, .sin6_port = htons(7005),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int one = 1, l = socket(AF_INET6, SOCK_STREAM, 0), c = socket(AF_INET6, SOCK_STREAM, 0), a;

	CHECK(l >= 0 && c >= 0);
	CHECK(setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) == 0);
	CHECK(bind(l, (struct sockaddr *)&la, sizeof(la)) == 0);
	CHECK(listen(l, 1) == 0);
	CHECK(connect(c, (struct sockaddr *)&la, sizeof(la)) == 0);
	a = accept(l, NULL, NULL);
	CHECK(a >= 0);
	close(c);
	close(a);
	close(l);
}

int main(void)
{
	CHECK(unshare(CLONE_NEWNET) == 0);
	lo_up();
	dev_stats();
	unix_pair();
	udp();
	tcp4();
	tcp6();
	return 0;
}
