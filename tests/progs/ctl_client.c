// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ctl_client: a raw client of frecd's control socket for the tests, which
 * send what frec never would (src/frecd/control.h has the protocol).
 *
 *   ctl_client [-u UID] [-w] [-x N] [-H N] SOCKET [REQUEST]
 *
 * Connects to SOCKET, sends REQUEST exactly as given (the test puts in the
 * newline, or not), prints everything frecd answers until it closes, exits 0.
 *   -u UID  setgid/setuid to UID first (a peer that is not root)
 *   -w      shut down the writing side after sending (no more requests)
 *   -x N    send N bytes of 'x' instead of REQUEST
 *   -H N    first open N more connections that send nothing and keep them
 *           open; after the main request, print each one's answer, in order,
 *           prefixed "held K: "
 * Prints "connect: <error>" and exits 1 when it cannot connect.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("connect: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static void drain(int fd, const char *prefix)
{
	char buf[4096];
	ssize_t n;
	int bol = 1;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (bol && prefix)
				fputs(prefix, stdout);
			putchar(buf[i]);
			bol = buf[i] == '\n';
		}
	}
	if (!bol)
		putchar('\n');
	close(fd);
}

int main(int argc, char **argv)
{
	int c, fd, shut = 0, nheld = 0, held[64], i;
	long uid = -1, xbytes = -1;
	const char *req = "";
	char *xbuf;
	char prefix[32];

	while ((c = getopt(argc, argv, "u:wx:H:")) != -1) {
		switch (c) {
		case 'u': uid = strtol(optarg, NULL, 10); break;
		case 'w': shut = 1; break;
		case 'x': xbytes = strtol(optarg, NULL, 10); break;
		case 'H': nheld = atoi(optarg); break;
		default: return 2;
		}
	}
	if (optind >= argc || nheld > 64) {
		fprintf(stderr, "usage: ctl_client [-u UID] [-w] [-x N] [-H N] SOCKET [REQUEST]\n");
		return 2;
	}
	if (optind + 1 < argc)
		req = argv[optind + 1];
	if (uid >= 0 && (setgroups(0, NULL) || setgid(uid) || setuid(uid))) {
		perror("setuid");
		return 2;
	}
	for (i = 0; i < nheld; i++)
		held[i] = dial(argv[optind]);
	fd = dial(argv[optind]);
	if (xbytes >= 0) {
		xbuf = malloc(xbytes + 1);
		memset(xbuf, 'x', xbytes);
		xbuf[xbytes] = '\0';
		req = xbuf;
	}
	/* frecd may answer (and close) before it has read everything */
	if (*req && send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNRESET) {
		perror("send");
		return 1;
	}
	if (shut)
		shutdown(fd, SHUT_WR);
	drain(fd, NULL);
	for (i = 0; i < nheld; i++) {
		snprintf(prefix, sizeof(prefix), "held %d: ", i + 1);
		drain(held[i], prefix);
	}
	return 0;
}
