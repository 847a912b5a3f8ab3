// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The control socket's server side, driven by hand: requests, answers, the
 * wait for a snapshot (merged ones too), errors and cancellation, and what a
 * client still waiting hears when frecd stops. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cmocka.h>
#include "frecd/control.h"

#define TAG_BASE	0x100

struct fake {
	char reasons[8][128];
	int nreasons;
	__u64 next_seq;
	int fail;		/* -errno for the next snapshot request */
	char trigger_name[64];	/* the last trigger request */
	__u32 trigger_pid;
};

static int fake_snapshot(void *ctx, const char *reason, __u64 *seq, char *err, size_t errlen)
{
	struct fake *f = ctx;

	if (f->fail) {
		snprintf(err, errlen, "snapshot failed: %s; recording goes on (see frecd's log)",
			 strerror(-f->fail));
		return f->fail;
	}
	snprintf(f->reasons[f->nreasons++ % 8], sizeof(f->reasons[0]), "%s", reason);
	*seq = f->next_seq;
	return 0;
}

static int fake_status(void *ctx, bool json, FILE *out)
{
	fputs(json ? "{\"x\":1}\n" : "line one\nline two\n", out);
	return 0;
}

/* "oops" is trigger 2; "cool" is in its cooldown; anything else is unknown. */
static int fake_trigger(void *ctx, const char *name, __u32 pid, __u32 *id, char *err,
			size_t errlen)
{
	struct fake *f = ctx;

	snprintf(f->trigger_name, sizeof(f->trigger_name), "%s", name);
	f->trigger_pid = pid;
	if (!strcmp(name, "oops")) {
		*id = 2;
		return 0;
	}
	if (!strcmp(name, "cool")) {
		snprintf(err, errlen, "trigger cool is in its cooldown");
		return -EBUSY;
	}
	snprintf(err, errlen, "no manual trigger '%s'; the armed ones: oops, cool", name);
	return -ENOENT;
}

static const struct frecd_control_ops ops = {
	.snapshot = fake_snapshot,
	.trigger = fake_trigger,
	.status = fake_status,
};

static char dir[64], path[96];
static struct frecd_control *ctl;
static struct fake fake;
static int epfd;

static int setup(void **state)
{
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/frec-test-control.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/run/frecd.sock", dir);
	memset(&fake, 0, sizeof(fake));
	ctl = frecd_control__new(path, err, sizeof(err));
	if (!ctl) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	epfd = epoll_create1(0);
	return frecd_control__attach(ctl, epfd, TAG_BASE, &ops, &fake);
}

static int teardown(void **state)
{
	char cmd[128];

	frecd_control__free(ctl);
	close(epfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* One round of the loop: whatever epoll has, to the control socket. */
static void pump(void)
{
	struct epoll_event evs[8];
	int i, n;

	n = epoll_wait(epfd, evs, 8, 20);
	for (i = 0; i < n; i++) {
		assert_true(frecd_control__owns(ctl, evs[i].data.u64));
		frecd_control__event(ctl, evs[i].data.u64, evs[i].events);
	}
}

static int client(const char *request)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, request, strlen(request), 0), (ssize_t)strlen(request));
	return fd;
}

/* Pump until the client has its whole answer (frecd closes after it). */
static void expect_answer(int fd, const char *want)
{
	char buf[1024];
	size_t len = 0;
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 200; rounds++) {
		pump();
		while ((n = recv(fd, buf + len, sizeof(buf) - 1 - len, MSG_DONTWAIT)) > 0)
			len += n;
		if (n == 0)
			break;
	}
	buf[len] = '\0';
	assert_string_equal(buf, want);
	close(fd);
}

/* Pump a while: the client must have nothing yet. */
static void expect_nothing_yet(int fd)
{
	char c;
	int i;

	for (i = 0; i < 5; i++)
		pump();
	assert_int_equal(recv(fd, &c, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

static void test_modes(void **state)
{
	struct stat st;
	char run[128];

	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(stat(run, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_status(void **state)
{
	expect_answer(client("status\n"), "line one\nline two\nok\n");
	expect_answer(client("status json\n"), "{\"x\":1}\nok\n");
	assert_int_equal(frecd_control__nclients(ctl), 0);
}

static void test_snapshot_waits(void **state)
{
	int a, b, c;

	fake.next_seq = 7;
	a = client("snapshot first reason\n");
	b = client("snapshot\n");
	expect_nothing_yet(a);
	expect_nothing_yet(b);
	assert_int_equal(fake.nreasons, 2);
	assert_string_equal(fake.reasons[0], "socket: first reason");
	assert_string_equal(fake.reasons[1], "socket");
	fake.next_seq = 8;	/* merged into the next one */
	c = client("snapshot  \t spaced\n");
	expect_nothing_yet(c);
	assert_string_equal(fake.reasons[2], "socket: spaced");
	assert_int_equal(frecd_control__nclients(ctl), 3);

	/* snapshot 7 answers a and b, not c */
	frecd_control__snapshot_done(ctl, 7, 0, "/var/lib/frec/frec-7.frec");
	expect_answer(a, "ok /var/lib/frec/frec-7.frec\n");
	expect_answer(b, "ok /var/lib/frec/frec-7.frec\n");
	expect_nothing_yet(c);
	frecd_control__snapshot_done(ctl, 8, -ENOSPC, NULL);
	expect_answer(c, "error snapshot failed: No space left on device; recording goes on\n");
	assert_int_equal(frecd_control__nclients(ctl), 0);
}

static void test_snapshot_errors(void **state)
{
	int a;

	fake.fail = -ENOENT;
	expect_answer(client("snapshot\n"),
		      "error snapshot failed: No such file or directory; recording goes on (see frecd's log)\n");
	fake.fail = 0;
	fake.next_seq = 3;
	a = client("snapshot\n");
	expect_nothing_yet(a);
	frecd_control__snapshot_done(ctl, 3, -ECANCELED, NULL);
	expect_answer(a, "error frecd is stopping; the snapshot was not taken\n");
}

/* trigger NAME: the client's pid, an answer once its snapshot is written. */
static void test_trigger(void **state)
{
	int a, b;

	a = client("trigger oops\n");
	b = client("trigger   oops\n");
	expect_nothing_yet(a);
	expect_nothing_yet(b);
	assert_string_equal(fake.trigger_name, "oops");
	assert_int_equal(fake.trigger_pid, getpid());
	/* another trigger's snapshot answers neither */
	frecd_control__trigger_snapshot(ctl, 1, 0, 4);
	frecd_control__snapshot_done(ctl, 4, 0, "/x/frec-4.frec");
	expect_nothing_yet(a);
	/* trigger 2's snapshot is requested as number 5 */
	frecd_control__trigger_snapshot(ctl, 2, 0, 5);
	expect_nothing_yet(a);
	frecd_control__snapshot_done(ctl, 5, 0, "/x/frec-5.frec");
	expect_answer(a, "ok /x/frec-5.frec\n");
	expect_answer(b, "ok /x/frec-5.frec\n");

	a = client("trigger oops\n");
	expect_nothing_yet(a);
	frecd_control__trigger_snapshot(ctl, 2, -ECANCELED, 0);
	expect_answer(a, "error frecd is stopping; the snapshot was not taken\n");
	expect_answer(client("trigger cool\n"), "error trigger cool is in its cooldown\n");
	expect_answer(client("trigger nope\n"),
		      "error no manual trigger 'nope'; the armed ones: oops, cool\n");
	expect_answer(client("trigger\n"),
		      "error trigger needs a name; send 'trigger NAME' for a --trigger manual:NAME\n");
	assert_int_equal(frecd_control__nclients(ctl), 0);
}

static void test_bad_requests(void **state)
{
	const char *usage = "send 'snapshot [REASON]', 'trigger NAME', 'status' or 'status json'";
	char want[256], big[FRECD_CONTROL_MAX_REQUEST + 2];

	snprintf(want, sizeof(want), "error unknown request 'bogus'; %s\n", usage);
	expect_answer(client("bogus\n"), want);
	snprintf(want, sizeof(want), "error empty request; %s\n", usage);
	expect_answer(client("\r\n"), want);
	snprintf(want, sizeof(want), "error malformed request: control character 0x1b at byte 7; %s\n", usage);
	expect_answer(client("status\033\n"), want);
	snprintf(want, sizeof(want), "error unknown request 'snapshots'; %s\n", usage);
	expect_answer(client("snapshots\n"), want);
	memset(big, 'r', sizeof(big));
	memcpy(big, "snapshot ", 9);
	big[9 + FRECD_CONTROL_MAX_REASON + 1] = '\n';
	big[9 + FRECD_CONTROL_MAX_REASON + 2] = '\0';
	expect_answer(client(big), "error reason longer than 100 bytes; give a shorter --reason\n");
	big[9 + FRECD_CONTROL_MAX_REASON] = '\n';
	big[9 + FRECD_CONTROL_MAX_REASON + 1] = '\0';
	fake.next_seq = 1;
	{
		int a = client(big);	/* exactly 100 bytes of reason: fine */

		expect_nothing_yet(a);
		frecd_control__snapshot_done(ctl, 1, 0, "/x.frec");
		expect_answer(a, "ok /x.frec\n");
	}
	memset(big, 'x', sizeof(big));
	big[FRECD_CONTROL_MAX_REQUEST] = '\0';	/* 4096 bytes, no newline */
	expect_answer(client(big), "error request longer than 4096 bytes; send one short line\n");
	/* nothing was asked of the daemon by any of them but the valid one */
	assert_int_equal(fake.nreasons, 1);
}

static void test_stop_while_waiting(void **state)
{
	char buf[256];
	ssize_t n;
	int a;

	fake.next_seq = 5;
	a = client("snapshot\n");
	expect_nothing_yet(a);
	frecd_control__free(ctl);
	ctl = NULL;
	n = recv(a, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "error frecd stopped before the snapshot was written\n");
	close(a);
	/* the socket file is gone with it */
	assert_int_equal(access(path, F_OK), -1);
}

static void test_stale_and_live(void **state)
{
	char err[512], want[512];
	struct frecd_control *second;

	/* a live socket is not taken over */
	second = frecd_control__new(path, err, sizeof(err));
	assert_null(second);
	assert_int_equal(errno, EADDRINUSE);
	snprintf(want, sizeof(want),
		 "--socket %s: another frecd is listening there; stop it, or give this one its own --socket", path);
	assert_string_equal(err, want);
	/* once the first is gone, its file (left as a killed frecd leaves it) is replaced */
	frecd_control__free(ctl);
	ctl = NULL;
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(fd);	/* bound, never listening: stale */
	}
	ctl = frecd_control__new(path, err, sizeof(err));
	assert_non_null(ctl);
	assert_int_equal(frecd_control__attach(ctl, epfd, TAG_BASE, &ops, &fake), 0);
	expect_answer(client("status\n"), "line one\nline two\nok\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigger, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_while_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_and_live, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
