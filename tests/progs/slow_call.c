// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * slow_call: a function call of known duration and a USDT probe fired once,
 * for the func: and probe: trigger tests.
 *
 *   slow_call [-w] [-s SLOW_MS] N SLOW_AT
 *     prints "pid P" and "tid T" (-w: then "ready" and waits for SIGUSR1),
 *     calls frec_slow_fn(i) for i in 1..N: the SLOW_AT-th call sleeps
 *     SLOW_MS (default 60) ms, the others return at once; prints
 *     "call I entry NS return NS" for each (CLOCK_BOOTTIME, the clock of
 *     frec's events), then fires the USDT probe frec_slow:once(T, N) once,
 *     prints "fired T" and "done" and exits 0. SLOW_AT 0: no call is slow.
 *
 * frec_slow_fn is global, noinline and noclone, so that its symbol is the
 * function the calls enter (no constprop or isra copy under another name);
 * the program is built with a frame pointer (tests/progs/Makefile.inc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/sdt.h>

long frec_slow_fn(long i, long slow_at, long slow_ms);

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline, noclone)) long frec_slow_fn(long i, long slow_at, long slow_ms)
{
	struct timespec ts = { slow_ms / 1000, (slow_ms % 1000) * 1000000 };

	if (i == slow_at)
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	/* something the compiler cannot drop or fold into the caller */
	__asm__ __volatile__("" ::: "memory");
	return i * 2;
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end || v < 0) {
		fprintf(stderr, "slow_call: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n, slow_at, slow_ms = 60, i, tid, sum = 0;
	unsigned long long t0, t1;
	int opt, sig, wait_start = 0;
	sigset_t set;

	while ((opt = getopt(argc, argv, "+ws:")) != -1) {
		switch (opt) {
		case 'w': wait_start = 1; break;
		case 's': slow_ms = number(optarg); break;
		default:
			fprintf(stderr, "usage: slow_call [-w] [-s SLOW_MS] N SLOW_AT\n");
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: slow_call [-w] [-s SLOW_MS] N SLOW_AT\n");
		return 2;
	}
	n = number(argv[optind]);
	slow_at = number(argv[optind + 1]);
	tid = syscall(SYS_gettid);
	printf("pid %d\ntid %ld\n", (int)getpid(), tid);
	if (wait_start) {
		/* blocked before "ready", so that the signal cannot come first */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready\n");
		fflush(stdout);
		if (sigwait(&set, &sig))
			return 1;
	}
	fflush(stdout);
	for (i = 1; i <= n; i++) {
		t0 = now_ns();
		sum += frec_slow_fn(i, slow_at, slow_ms);
		t1 = now_ns();
		printf("call %ld entry %llu return %llu\n", i, t0, t1);
	}
	/* tid and n are locals: a USDT argument libbpf can read (a register
	 * or the stack, not a global's %rip-relative address) */
	DTRACE_PROBE2(frec_slow, once, tid, n);
	printf("fired %ld\ndone\n", tid);
	return sum == n * (n + 1) ? 0 : 1;
}
