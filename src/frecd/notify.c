// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "frecd/clock.h"
#include "frecd/log.h"
#include "frecd/notify.h"

struct frecd_notify {
	int fd;
	struct sockaddr_un sa;
	socklen_t salen;
	bool failed;		/* a send failed: logged once */
};

int frecd_notify__addr(const char *value, struct sockaddr_un *sa, socklen_t *salen)
{
	size_t n;

	if (!value || (value[0] != '/' && value[0] != '@') || !value[1])
		return -EINVAL;
	n = strlen(value);
	if (n > sizeof(sa->sun_path) - (value[0] == '/'))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, value, n);
	if (value[0] == '@') {
		/* Abstract: the name is every byte given, after a NUL; no
		 * terminator counts, so the length must be exact. */
		sa->sun_path[0] = '\0';
		*salen = offsetof(struct sockaddr_un, sun_path) + n;
	} else {
		*salen = offsetof(struct sockaddr_un, sun_path) + n + 1;
	}
	return 0;
}

struct frecd_notify *frecd_notify__new(const char *value)
{
	struct frecd_notify *n;
	int ret;

	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	ret = frecd_notify__addr(value, &n->sa, &n->salen);
	if (ret) {
		free(n);
		errno = -ret;
		return NULL;
	}
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n->fd < 0) {
		ret = errno;
		free(n);
		errno = ret;
		return NULL;
	}
	return n;
}

struct frecd_notify *frecd_notify__from_env(void)
{
	const char *value = getenv("NOTIFY_SOCKET");
	struct frecd_notify *n;

	if (!value || !*value) {
		errno = 0;
		return NULL;
	}
	n = frecd_notify__new(value);
	if (!n)
		log_warn("NOTIFY_SOCKET=%s: %s; not telling the service manager anything (expected an absolute path or @name)",
			 value, strerror(errno));
	return n;
}

void frecd_notify__free(struct frecd_notify *n)
{
	if (!n)
		return;
	close(n->fd);
	free(n);
}

int frecd_notify__send(struct frecd_notify *n, const char *msg)
{
	ssize_t sent;
	int ret;

	if (!n)
		return 0;
	sent = sendto(n->fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL,
		      (const struct sockaddr *)&n->sa, n->salen);
	if (sent >= 0)
		return 0;
	ret = -errno;
	if (!n->failed)
		log_warn("cannot notify the service manager (NOTIFY_SOCKET): %s; recording goes on",
			 strerror(-ret));
	n->failed = true;
	return ret;
}

__attribute__((format(printf, 3, 4)))
static int msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* STATUS= is one line: a newline would start another variable. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int frecd_notify__ready_msg(char *buf, size_t len, pid_t pid, const char *status)
{
	int n = msg(buf, len, "READY=1\nMAINPID=%d\nSTATUS=%s", (int)pid, status);

	if (n > 0)
		one_line(strstr(buf, "STATUS=") + 7);
	return n;
}

int frecd_notify__status_msg(char *buf, size_t len, const char *status)
{
	int n = msg(buf, len, "STATUS=%s", status);

	if (n > 0)
		one_line(buf + 7);
	return n;
}

int frecd_notify__reloading_msg(char *buf, size_t len, __u64 monotonic_usec)
{
	/* MONOTONIC_USEC: Type=notify-reload (systemd 253) requires it with
	 * RELOADING=1, to match the reload to its request; older ones ignore it. */
	return msg(buf, len, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=reloading the configuration",
		   (unsigned long long)monotonic_usec);
}

int frecd_notify__stopping_msg(char *buf, size_t len)
{
	return msg(buf, len, "STOPPING=1\nSTATUS=stopping");
}

int frecd_notify__ready(struct frecd_notify *n, const char *status)
{
	char buf[512];

	if (!n)
		return 0;
	if (frecd_notify__ready_msg(buf, sizeof(buf), getpid(), status) < 0)
		frecd_notify__ready_msg(buf, sizeof(buf), getpid(), "ready");
	return frecd_notify__send(n, buf);
}

int frecd_notify__status(struct frecd_notify *n, const char *status)
{
	char buf[512];

	if (!n)
		return 0;
	if (frecd_notify__status_msg(buf, sizeof(buf), status) < 0)
		return -ENOSPC;
	return frecd_notify__send(n, buf);
}

int frecd_notify__reloading(struct frecd_notify *n)
{
	char buf[128];

	if (!n)
		return 0;
	frecd_notify__reloading_msg(buf, sizeof(buf), frecd_clock__mono_ns() / 1000);
	return frecd_notify__send(n, buf);
}

int frecd_notify__stopping(struct frecd_notify *n)
{
	char buf[64];

	if (!n)
		return 0;
	frecd_notify__stopping_msg(buf, sizeof(buf));
	return frecd_notify__send(n, buf);
}
