// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * notify_recv: a fake service manager for the tests. Binds a datagram socket
 * at ADDR (a path, or @name for an abstract one, as NOTIFY_SOCKET has it),
 * prints "listening" once bound, then one line per datagram received, its
 * newlines shown as '|' ("READY=1|MAINPID=42|STATUS=..."). Exits after a
 * datagram with STOPPING=1, or on SIGTERM.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	char buf[4097];
	ssize_t n;
	size_t alen;
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_recv PATH|@NAME\n");
		return 2;
	}
	alen = strlen(argv[1]);
	memcpy(sa.sun_path, argv[1], alen);
	if (argv[1][0] == '@') {
		sa.sun_path[0] = '\0';
		len = offsetof(struct sockaddr_un, sun_path) + alen;
	} else {
		len = offsetof(struct sockaddr_un, sun_path) + alen + 1;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len)) {
		perror("notify_recv: bind");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) >= 0) {
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = '|';
		printf("%s\n", buf);
		fflush(stdout);
		if (!strncmp(buf, "STOPPING=1", 10) || strstr(buf, "|STOPPING=1"))
			break;
	}
	if (argv[1][0] == '/')
		unlink(argv[1]);
	return 0;
}
