// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * probe_target: calls functions and fires a USDT probe an exact number of
 * times with known arguments, for the user probe tests.
 *
 *   probe_target [-n] [-c CPU] [-t THREADS] N M A B
 *     prints "ready PID", waits for SIGUSR1 (so that frecd is attached before
 *     the first call; -n: do not wait), then in each of THREADS threads (all
 *     on CPU with -c: all its records go to that CPU's ring buffer):
 *       for i in 1..N: frec_target_fp(A, B, i)    returns A + B + i
 *                      frec_target_nofp(A, B, i)  returns A * B + i
 *                      frec_lib_mul(A, i)         returns A * i (libfrectarget.so)
 *       for i in 1..M: USDT frec_target:tick(i, A, B)
 *     fires USDT frec_target:global(N) once (with an argument libbpf cannot
 *     read), prints "done" and exits 0.
 *
 *   probe_target [-n] -b K
 *     benchmark: K calls of each function and K USDT hits, timed; prints
 *     "NAME WALL_NS CPU_NS" per call, for fp, nofp, lib and usdt. Run it with
 *     and without probes attached: the difference is the cost of one hit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

#include "probe/target.h"

static long n_calls, m_hits, arg_a, arg_b;
static volatile long sink;

static void usage(void)
{
	fprintf(stderr, "usage: probe_target [-n] [-c CPU] [-t THREADS] N M A B\n"
			"       probe_target [-n] -b K\n");
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "probe_target: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static void *worker(void *arg)
{
	/* Locals, not the globals: a global would make the USDT argument
	 * "sym(%rip)", which libbpf's USDT argument parser does not take. */
	long i, s = 0, a = arg_a, b = arg_b;

	for (i = 1; i <= n_calls; i++) {
		s += frec_target_fp(a, b, i);
		s += frec_target_nofp(a, b, i);
		s += frec_lib_mul(a, i);
	}
	for (i = 1; i <= m_hits; i++)
		DTRACE_PROBE3(frec_target, tick, i, a, b);
	sink += s;
	return NULL;
}

static double ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Wall time and this thread's CPU time: a uprobe hit is handled in the
 * thread that hits it, so the CPU time holds its whole cost and none of the
 * time spent waiting for a CPU on a busy machine. */
struct stamp {
	double wall, cpu;
};

static struct stamp stamp(void)
{
	struct stamp s = { ns(CLOCK_MONOTONIC), ns(CLOCK_THREAD_CPUTIME_ID) };

	return s;
}

static void report(const char *name, struct stamp t0, long k)
{
	struct stamp t1 = stamp();

	printf("%s %.1f %.1f\n", name, (t1.wall - t0.wall) / k, (t1.cpu - t0.cpu) / k);
}

static void bench(long k)
{
	struct stamp t0;
	long i, s = 0;

	t0 = stamp();
	for (i = 0; i < k; i++)
		s += frec_target_fp(1, 2, i);
	report("fp", t0, k);
	t0 = stamp();
	for (i = 0; i < k; i++)
		s += frec_target_nofp(1, 2, i);
	report("nofp", t0, k);
	t0 = stamp();
	for (i = 0; i < k; i++)
		s += frec_lib_mul(3, i);
	report("lib", t0, k);
	t0 = stamp();
	for (i = 0; i < k; i++)
		DTRACE_PROBE3(frec_target, tick, i, 1, 2);
	report("usdt", t0, k);
	sink += s;
}

int main(int argc, char **argv)
{
	long threads = 1, bench_k = 0, cpu = -1, i;
	int wait_start = 1, opt, sig;
	pthread_t *tids;
	sigset_t set;

	while ((opt = getopt(argc, argv, "+nc:t:b:")) != -1) {
		switch (opt) {
		case 'n': wait_start = 0; break;
		case 'c': cpu = number(optarg); break;
		case 't': threads = number(optarg); break;
		case 'b': bench_k = number(optarg); break;
		default: usage();
		}
	}
	if (bench_k > 0) {
		if (optind != argc)
			usage();
	} else {
		if (argc - optind != 4 || threads < 1)
			usage();
		n_calls = number(argv[optind]);
		m_hits = number(argv[optind + 1]);
		arg_a = number(argv[optind + 2]);
		arg_b = number(argv[optind + 3]);
	}

	if (cpu >= 0) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus)) {	/* threads inherit it */
			fprintf(stderr, "probe_target: -c %ld: %s\n", cpu, strerror(errno));
			return 2;
		}
	}
	if (wait_start) {
		/* Block the signal before saying "ready", so that it cannot come
		 * before sigwait() is there to take it. */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (sigwait(&set, &sig))
			return 1;
	}
	if (bench_k > 0) {
		bench(bench_k);
		return 0;
	}

	tids = calloc(threads, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	/* A global as a USDT argument is "N@sym(%rip)": the probe that
	 * frecd must refuse, with a message, because libbpf cannot read it. */
	DTRACE_PROBE1(frec_target, global, n_calls);
	printf("done\n");
	return 0;
}
