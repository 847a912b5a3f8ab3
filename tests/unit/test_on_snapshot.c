// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --on-snapshot PROGRAM for real, without frecd: its argument and
 * FREC_REASON, its exit status, the kill at the timeout (its whole process
 * group), at most FRECD_ON_SNAPSHOT_MAX at once, a program that cannot
 * start, and free() leaving nothing running. The loop's part (epoll,
 * ticks) is played by run_until_idle(). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "frecd/on_snapshot.h"
#include "frecd/options.h"

#define TAG_BASE	100

static char dir[64];
static int epfd = -1;
static struct frecd_options opts;
static struct frecd_on_snapshot *os;

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* dir/NAME, executable, holding "#!/bin/sh\n" BODY */
static const char *script(const char *name, const char *body)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

static struct frecd_on_snapshot_stats stats(void)
{
	struct frecd_on_snapshot_stats st;

	frecd_on_snapshot__stats(os, &st);
	return st;
}

/* What the loop does: output events and ticks, until no run is left or
 * limit_ns has passed; each tick at mono_ns() + skew_ns. */
static void run_until_idle(__u64 limit_ns, __u64 skew_ns)
{
	__u64 end = mono_ns() + limit_ns;
	struct epoll_event evs[8];
	int i, n;

	while (stats().running && mono_ns() < end) {
		n = epoll_wait(epfd, evs, 8, 20);
		for (i = 0; i < n; i++) {
			assert_true(frecd_on_snapshot__owns(os, evs[i].data.u64));
			frecd_on_snapshot__event(os, evs[i].data.u64, evs[i].events);
		}
		frecd_on_snapshot__tick(os, mono_ns() + skew_ns);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/frec-test-onsnap.XXXXXX");
	assert_non_null(mkdtemp(dir));
	epfd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(epfd >= 0);
	frecd_options__init(&opts);
	os = frecd_on_snapshot__new(&opts, epfd, TAG_BASE);
	assert_non_null(os);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	frecd_on_snapshot__free(os);
	os = NULL;
	close(epfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
		/* a leftover temp dir is no failure of the code under test */
	}
	return 0;
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void test_argument_and_reason(void **state)
{
	char out[256], want[256], buf[512];

	(void)state;
	snprintf(out, sizeof(out), "%s/got", dir);
	snprintf(buf, sizeof(buf), "printf '%%s|%%s|%%s\\n' \"$#\" \"$1\" \"$FREC_REASON\" > %s\n"
		 "echo a line of output; echo another >&2", out);
	opts.on_snapshot = script("hook", buf);
	setenv("FREC_REASON", "frecd's own, replaced", 1);
	frecd_on_snapshot__run(os, "/snaps/frec-1.frec", "trigger runq>20ms: tid 7 comm x value 52.3 ms");
	unsetenv("FREC_REASON");
	assert_int_equal(stats().runs, 1);
	assert_int_equal(stats().running, 1);
	run_until_idle(10000000000ull, 0);
	assert_int_equal(stats().running, 0);
	assert_int_equal(stats().failures, 0);
	read_file(out, buf, sizeof(buf));
	snprintf(want, sizeof(want), "1|/snaps/frec-1.frec|trigger runq>20ms: tid 7 comm x value 52.3 ms\n");
	assert_string_equal(buf, want);
}

static void test_exit_status_counts(void **state)
{
	(void)state;
	opts.on_snapshot = script("fails", "exit 3");
	frecd_on_snapshot__run(os, "/snaps/a.frec", "socket: x");
	run_until_idle(10000000000ull, 0);
	assert_int_equal(stats().runs, 1);
	assert_int_equal(stats().failures, 1);
	opts.on_snapshot = script("ok", "exit 0");
	frecd_on_snapshot__run(os, "/snaps/b.frec", "socket: x");
	run_until_idle(10000000000ull, 0);
	assert_int_equal(stats().runs, 2);
	assert_int_equal(stats().failures, 1);
}

/* A program that hangs, with a child of its own: at the timeout both are
 * killed (the group), and the run counts as failed. */
static void test_timeout_kills_the_group(void **state)
{
	char pidfile[128], body[512], buf[64];
	pid_t child;

	(void)state;
	snprintf(pidfile, sizeof(pidfile), "%s/child", dir);
	snprintf(body, sizeof(body), "sleep 100 & echo $! > %s.tmp; mv %s.tmp %s; wait",
		 pidfile, pidfile, pidfile);
	opts.on_snapshot = script("hangs", body);
	opts.on_snapshot_timeout_ns = 60000000000ull;
	frecd_on_snapshot__run(os, "/snaps/c.frec", "socket: x");
	while (access(pidfile, F_OK))
		usleep(1000);
	read_file(pidfile, buf, sizeof(buf));
	child = (pid_t)atoi(buf);
	assert_true(child > 0);
	/* not yet due: still running */
	frecd_on_snapshot__tick(os, mono_ns());
	assert_int_equal(stats().running, 1);
	/* ticks a minute ahead: past the timeout */
	run_until_idle(10000000000ull, 61000000000ull);
	assert_int_equal(stats().running, 0);
	assert_int_equal(stats().failures, 1);
	/* the grandchild went with it (killed, reaped by init: gone soon) */
	for (int i = 0; i < 5000 && !kill(child, 0); i++)
		usleep(1000);
	assert_int_equal(kill(child, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_at_most_four_and_free_kills(void **state)
{
	int i;

	(void)state;
	opts.on_snapshot = script("sleeps", "exec sleep 100");
	for (i = 0; i < FRECD_ON_SNAPSHOT_MAX + 2; i++)
		frecd_on_snapshot__run(os, "/snaps/d.frec", "socket: x");
	assert_int_equal(stats().runs, FRECD_ON_SNAPSHOT_MAX);
	assert_int_equal(stats().skipped, 2);
	assert_int_equal(stats().running, FRECD_ON_SNAPSHOT_MAX);
	/* teardown's free() kills and reaps them: the test would hang in
	 * cmocka's wait otherwise, and leave sleeps behind */
}

static void test_cannot_start(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing", dir);
	opts.on_snapshot = path;
	frecd_on_snapshot__run(os, "/snaps/e.frec", "socket: x");
	assert_int_equal(stats().running, 0);
	assert_int_equal(stats().failures, 1);
	/* no PROGRAM: nothing runs, nothing is counted */
	opts.on_snapshot = NULL;
	frecd_on_snapshot__run(os, "/snaps/f.frec", "socket: x");
	assert_int_equal(stats().failures, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_argument_and_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_status_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_kills_the_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_at_most_four_and_free_kills, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cannot_start, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
