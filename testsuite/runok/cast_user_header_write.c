// SPDX-License-Identifier: GPL-2.0-or-later
/* cast_user_header_write.stp writes the address's fields through a @cast of <sys/un.h>:
 * cuw_show prints what it finds. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

__attribute__((noinline)) void cuw_show(struct sockaddr_un *addr)
{
	printf("family %d, path %s\n", addr->sun_family, addr->sun_path);
}

int main(void)
{
	struct sockaddr_un addr;

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strcpy(addr.sun_path, "/tmp/sock");
	cuw_show(&addr);
	return 0;
}
