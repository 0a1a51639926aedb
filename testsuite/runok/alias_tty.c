// SPDX-License-Identifier: GPL-2.0-or-later
// The workload of runok/alias_tty: on the serial console's tty (/dev/ttyS0, opened
// without becoming its controlling terminal, non-blocking) it reads the window size, sets
// it to 24x80, writes a line, polls, reads (nothing: EAGAIN) and closes it.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void)
{
	struct winsize ws = { 0 };
	struct pollfd pfd;
	char c;
	int fd = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return 1;
	ioctl(fd, TIOCGWINSZ, &ws);
	ws.ws_row = 24;
	ws.ws_col = 80;
	ws.ws_xpixel = 0;
	ws.ws_ypixel = 0;
	ioctl(fd, TIOCSWINSZ, &ws);
	write(fd, "alias_tty\n", 10);
	pfd.fd = fd;
	pfd.events = POLLOUT;
	poll(&pfd, 1, 0);
	read(fd, &c, 1);
	close(fd);
	return 0;
}
