// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sd_notify messages frecd sends, byte for byte, and their delivery to a
 * datagram socket at a path and at an abstract address. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "frecd/notify.h"

static void test_addr(void **state)
{
	struct sockaddr_un sa;
	socklen_t len;
	char longname[200];

	assert_int_equal(frecd_notify__addr("/run/systemd/notify", &sa, &len), 0);
	assert_int_equal(sa.sun_family, AF_UNIX);
	assert_string_equal(sa.sun_path, "/run/systemd/notify");
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 20);

	/* abstract: a NUL, then the name without the '@'; no terminator */
	assert_int_equal(frecd_notify__addr("@frec/notify", &sa, &len), 0);
	assert_int_equal(sa.sun_path[0], '\0');
	assert_memory_equal(sa.sun_path + 1, "frec/notify", 11);
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 12);

	assert_int_equal(frecd_notify__addr(NULL, &sa, &len), -EINVAL);
	assert_int_equal(frecd_notify__addr("", &sa, &len), -EINVAL);
	assert_int_equal(frecd_notify__addr("@", &sa, &len), -EINVAL);
	assert_int_equal(frecd_notify__addr("/", &sa, &len), -EINVAL);
	assert_int_equal(frecd_notify__addr("run/notify", &sa, &len), -EINVAL);
	assert_int_equal(frecd_notify__addr("vsock:2:1234", &sa, &len), -EINVAL);

	/* a path takes its terminator: 107 characters at most; a name 108 */
	memset(longname, 'a', sizeof(longname));
	longname[0] = '/';
	longname[107] = '\0';
	assert_int_equal(frecd_notify__addr(longname, &sa, &len), 0);
	longname[107] = 'a';
	longname[108] = '\0';
	assert_int_equal(frecd_notify__addr(longname, &sa, &len), -ENAMETOOLONG);
	longname[0] = '@';
	assert_int_equal(frecd_notify__addr(longname, &sa, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_un));
	longname[108] = 'a';
	longname[109] = '\0';
	assert_int_equal(frecd_notify__addr(longname, &sa, &len), -ENAMETOOLONG);
}

static void test_messages(void **state)
{
	char buf[256];

	assert_int_equal(frecd_notify__ready_msg(buf, sizeof(buf), 4242, "recording 10 events/s, 0 lost"), 57);
	assert_string_equal(buf, "READY=1\nMAINPID=4242\nSTATUS=recording 10 events/s, 0 lost");
	/* STATUS= stays one line whatever the text */
	assert_int_equal(frecd_notify__ready_msg(buf, sizeof(buf), 1, "a\nb\rc"), 30);
	assert_string_equal(buf, "READY=1\nMAINPID=1\nSTATUS=a b c");
	assert_int_equal(frecd_notify__status_msg(buf, sizeof(buf), "x\ny"), 10);
	assert_string_equal(buf, "STATUS=x y");
	assert_int_equal(frecd_notify__reloading_msg(buf, sizeof(buf), 123456789ull), 71);
	assert_string_equal(buf, "RELOADING=1\nMONOTONIC_USEC=123456789\nSTATUS=reloading the configuration");
	assert_int_equal(frecd_notify__stopping_msg(buf, sizeof(buf)), 26);
	assert_string_equal(buf, "STOPPING=1\nSTATUS=stopping");
	/* too small: refused, never cut */
	assert_int_equal(frecd_notify__status_msg(buf, 8, "long text"), -ENOSPC);
	assert_int_equal(frecd_notify__ready_msg(buf, 10, 1, "x"), -ENOSPC);
}

/* A receiver bound at addr (path or @name); returns its fd. */
static int receiver(const char *addr)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd;

	assert_int_equal(frecd_notify__addr(addr, &sa, &len), 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	return fd;
}

static void expect_datagram(int fd, const char *want)
{
	char buf[512];
	ssize_t n;

	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	assert_int_equal(n, strlen(want));
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void send_all(struct frecd_notify *n, int fd)
{
	char want[128];

	assert_int_equal(frecd_notify__ready(n, "recording"), 0);
	snprintf(want, sizeof(want), "READY=1\nMAINPID=%d\nSTATUS=recording", (int)getpid());
	expect_datagram(fd, want);
	assert_int_equal(frecd_notify__status(n, "12 events/s, 3 lost"), 0);
	expect_datagram(fd, "STATUS=12 events/s, 3 lost");
	assert_int_equal(frecd_notify__stopping(n), 0);
	expect_datagram(fd, "STOPPING=1\nSTATUS=stopping");
	assert_int_equal(frecd_notify__reloading(n), 0);
	{
		char buf[256];
		ssize_t len = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		assert_true(len > 0);
		buf[len] = '\0';
		assert_memory_equal(buf, "RELOADING=1\nMONOTONIC_USEC=", 27);
		assert_non_null(strstr(buf, "\nSTATUS=reloading the configuration"));
	}
	/* one datagram per message: nothing else is waiting */
	assert_int_equal(recv(fd, want, sizeof(want), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

static void test_send_path(void **state)
{
	char dir[64], path[96];
	struct frecd_notify *n;
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/frec-test-notify.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = receiver(path);
	n = frecd_notify__new(path);
	assert_non_null(n);
	send_all(n, fd);
	frecd_notify__free(n);
	close(fd);
	unlink(path);
	rmdir(dir);
}

static void test_send_abstract(void **state)
{
	struct frecd_notify *n;
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "@frec-test-notify-%d", (int)getpid());
	fd = receiver(name);
	n = frecd_notify__new(name);
	assert_non_null(n);
	send_all(n, fd);
	frecd_notify__free(n);
	close(fd);
}

static void test_env(void **state)
{
	struct frecd_notify *n;

	unsetenv("NOTIFY_SOCKET");
	errno = EBADF;
	assert_null(frecd_notify__from_env());
	assert_int_equal(errno, 0);
	/* without a notifier, sending is a no-op that succeeds */
	assert_int_equal(frecd_notify__ready(NULL, "x"), 0);
	assert_int_equal(frecd_notify__send(NULL, "READY=1"), 0);

	setenv("NOTIFY_SOCKET", "relative/notify", 1);
	assert_null(frecd_notify__from_env());
	assert_int_equal(errno, EINVAL);

	setenv("NOTIFY_SOCKET", "@frec-test-nobody-listens", 1);
	n = frecd_notify__from_env();
	assert_non_null(n);
	/* nobody bound there: the error comes back, the loop goes on */
	assert_int_equal(frecd_notify__status(n, "x"), -ECONNREFUSED);
	assert_int_equal(frecd_notify__status(n, "x"), -ECONNREFUSED);
	frecd_notify__free(n);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_send_path),
		cmocka_unit_test(test_send_abstract),
		cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
