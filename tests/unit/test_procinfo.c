// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The /proc reader (src/frecd/procinfo.c) against this machine's /proc and
 * a recorder: a command line read for a pid that has a new process since
 * (frecd saw its fork) never names it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "synth.h"
#include "frecd/procinfo.h"

#define T0	1000000000ull
#define MS	1000000ull

static struct frec_recorder *new_recorder(void)
{
	/* room for the seed: every thread and process of this machine */
	struct frec_recorder *rec = synth_tables_recorder(1 << 20, 1 << 18);

	assert_non_null(rec);
	return rec;
}

/* Wait (at most 10 s) until the reader has results for the loop. */
static void wait_results(struct frecd_procinfo *p)
{
	struct pollfd pfd = { .fd = frecd_procinfo__fd(p), .events = POLLIN };

	assert_int_equal(poll(&pfd, 1, 10000), 1);
}

/* Apply the seed, all of it, as frecd's loop does before anything else:
 * within 60 s, however many threads the machine runs (a result at a time
 * comes as often as a batch of them). */
static void apply_seed(struct frecd_procinfo *p, struct frec_recorder *rec)
{
	time_t end = time(NULL) + 60;

	while (frecd_procinfo__seeding(p) && time(NULL) < end) {
		struct pollfd pfd = { .fd = frecd_procinfo__fd(p), .events = POLLIN };

		poll(&pfd, 1, 100);
		frecd_procinfo__apply(p, rec);
	}
	assert_false(frecd_procinfo__seeding(p));
}

/* A child that is `sleep 60`, as its /proc cmdline says once it exec'd. */
static pid_t start_sleep(void)
{
	pid_t pid = fork();
	char path[64], buf[16];

	assert_true(pid >= 0);
	if (!pid) {
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;

		if (f)
			fclose(f);
		if (n >= 6 && !memcmp(buf, "sleep", 6))
			return pid;
		usleep(10000);
	}
	fail_msg("the child never showed sleep's command line");
	return -1;
}

/* Whether a seal at ms that names a thread of tgid knows tgid's command
 * line: a process it names without one is listed for a /proc read. */
static bool named(struct frec_recorder *rec, __u64 ms, __u32 tgid)
{
	__u32 tgids[FREC_UNNAMED_MAX];
	__u32 n;

	frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX);
	assert_int_equal(synth_switch(rec, T0 + ms * MS + 1000, 0, 0, 0, "swapper/0", 0, tgid,
				      tgid, "sleep"), 0);
	assert_int_equal(synth_switch(rec, T0 + ms * MS + 2000, 0, tgid, tgid, "sleep", 1, 0, 0,
				      "swapper/0"), 0);
	assert_true(frec_recorder__seal(rec, T0 + ms * MS + 600000) >= 0);
	n = frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX);
	for (__u32 i = 0; i < n; i++)
		if (tgids[i] == tgid)
			return false;
	return true;
}

/*
 * A read for a pid, then the fork of a new process under that pid: the
 * result that waits is dropped, not applied. Asked again, the new
 * process's read names it. (The read still under way at the fork, the
 * other case, is dropped the same way, but cannot be timed from here.)
 */
static void test_forget_drops_waiting_read(void **state)
{
	struct frec_recorder *rec = new_recorder();
	struct frecd_procinfo *p = frecd_procinfo__new();
	pid_t child;
	int status;

	assert_non_null(p);
	frec_recorder__tick(rec, T0);
	apply_seed(p, rec);
	child = start_sleep();
	assert_false(named(rec, 1, (__u32)child));

	assert_int_equal(frecd_procinfo__want_cmdline(p, (__u32)child), 0);
	wait_results(p);
	frecd_procinfo__forget(p, (__u32)child);
	frecd_procinfo__apply(p, rec);
	assert_false(named(rec, 3, (__u32)child));

	/* forgetting another pid leaves it be */
	assert_int_equal(frecd_procinfo__want_cmdline(p, (__u32)child), 0);
	wait_results(p);
	frecd_procinfo__forget(p, (__u32)child + 1);
	frecd_procinfo__apply(p, rec);
	assert_true(named(rec, 5, (__u32)child));

	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	frecd_procinfo__free(p);
	frec_recorder__free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forget_drops_waiting_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
