// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * probe_loop: the workload of the user probe benchmark.
 *
 *   probe_loop K
 *     calls frec_bench_target() K times, then fires the USDT probe
 *     frec_bench:tick K times, and prints
 *       call NS_PER_CALL
 *       usdt NS_PER_HIT
 *
 * Run it with nothing attached and with a uprobe, a uprobe + uretprobe or
 * the USDT probe attached (frecd --probe ...): the difference in ns per call
 * is the cost of one hit. Both loops run in every run, so one probe
 * configuration leaves the other loop's figure as a second baseline.
 *
 * frec_bench_target() is built with a frame pointer (bench/system.mk) and
 * keeps a volatile local so that it really sets up a frame: it starts with
 * push %rbp, which the kernel emulates on a uprobe hit instead of
 * single-stepping the instruction out of line, the cheap and common case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/sdt.h>

long frec_bench_target(long a, long b);
static volatile long sink;

__attribute__((noinline, used)) long frec_bench_target(long a, long b)
{
	volatile long sum = a + b;

	return sum;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long k, i, s = 0;
	char *end;
	double t0;

	if (argc != 2) {
		fprintf(stderr, "usage: probe_loop K\n");
		return 2;
	}
	errno = 0;
	k = strtol(argv[1], &end, 0);
	if (errno || *end || k <= 0) {
		fprintf(stderr, "probe_loop: K must be a positive number, not '%s'\n", argv[1]);
		return 2;
	}

	t0 = now_ns();
	for (i = 0; i < k; i++)
		s += frec_bench_target(i, 1);
	printf("call %.1f\n", (now_ns() - t0) / k);

	/* The arguments are locals (registers), which libbpf's USDT argument
	 * parser reads; a global would be a rip-relative operand it refuses. */
	t0 = now_ns();
	for (i = 0; i < k; i++)
		DTRACE_PROBE2(frec_bench, tick, i, s);
	printf("usdt %.1f\n", (now_ns() - t0) / k);
	sink = s;
	return 0;
}
