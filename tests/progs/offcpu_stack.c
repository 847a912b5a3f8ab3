// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * offcpu_stack: a thread that blocks a known number of times on a known
 * path, for the stack tests.
 *
 *   offcpu_stack [-n N] [-m MS]
 *     starts a thread named "stk_worker" that calls
 *     stk_outer -> stk_middle -> stk_inner -> nanosleep(MS ms) N times
 *     (default 10 x 20 ms), then reads its own context-switch counts and
 *     exits; prints "pid P", "tid T" (the worker), "voluntary V" and
 *     "nonvoluntary W" (the kernel's counts for the worker, read by the
 *     worker as its last act) and "done", then exits 0.
 *
 * stk_inner makes the nanosleep system call itself (inline on x86-64):
 * through libc, whose wrapper has no frame pointer, a frame-pointer walk
 * would skip stk_inner (the wrapper's return address is not on the frame
 * chain). The functions are noinline and noclone, so that each frame is
 * the symbol of its name; the program is built with a frame pointer
 * (tests/progs/Makefile.inc), and its stripped copy keeps the build-id.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "sleep_inline.h"

long stk_inner(long i);
long stk_middle(long i);
long stk_outer(long i);

static long nblocks = 10, block_ms = 20;
static pid_t worker_tid;
static long vol = -1, nonvol = -1;

__attribute__((noinline, noclone)) long stk_inner(long i)
{
	long r = sleep_ns(block_ms * 1000000);

	__asm__ __volatile__("" ::: "memory");
	return r + i;
}

__attribute__((noinline, noclone)) long stk_middle(long i)
{
	long r = stk_inner(i);

	__asm__ __volatile__("" ::: "memory");
	return r + 1;
}

__attribute__((noinline, noclone)) long stk_outer(long i)
{
	long r = stk_middle(i);

	__asm__ __volatile__("" ::: "memory");
	return r + 1;
}

static void read_switches(void)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)worker_tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "voluntary_ctxt_switches: %ld", &vol);
		sscanf(line, "nonvoluntary_ctxt_switches: %ld", &nonvol);
	}
	fclose(f);
}

static void *worker(void *arg)
{
	long i, sum = 0;

	(void)arg;
	worker_tid = (pid_t)syscall(SYS_gettid);
	/* named before its first block, so that every one is stk_worker's */
	pthread_setname_np(pthread_self(), "stk_worker");
	for (i = 1; i <= nblocks; i++)
		sum += stk_outer(i);
	/* the counts before /proc's read could block the thread once more */
	read_switches();
	return (void *)sum;
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end || v < 0) {
		fprintf(stderr, "offcpu_stack: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int c;

	while ((c = getopt(argc, argv, "n:m:")) != -1) {
		switch (c) {
		case 'n':
			nblocks = number(optarg);
			break;
		case 'm':
			block_ms = number(optarg);
			break;
		default:
			fprintf(stderr, "usage: offcpu_stack [-n N] [-m MS]\n");
			return 2;
		}
	}
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "offcpu_stack: pthread_create failed\n");
		return 1;
	}
	pthread_join(t, NULL);
	printf("pid %d\ntid %d\nvoluntary %ld\nnonvoluntary %ld\ndone\n", (int)getpid(),
	       (int)worker_tid, vol, nonvol);
	return vol < 0 ? 1 : 0;
}
