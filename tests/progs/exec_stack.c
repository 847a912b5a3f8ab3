// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * exec_stack: a process that blocks on a known path, floods its CPU's ring,
 * then execs another build of itself and blocks on another path: for the
 * test of an exec whose record frecd lost (test_stacks_lost_exec.sh).
 *
 *   exec_stack a GO1 GO2 GO3 ASTOP DONE NEXT FLOOD
 *     pins itself to CPU 0 and prints "pid P"; once GO1 (a FIFO) is opened
 *     for writing and closed, blocks in es_a_outer -> es_a_middle ->
 *     es_a_inner -> nanosleep(50 ms) again and again, printing "a-done"
 *     after the third time, until the file ASTOP exists; once GO2 is
 *     opened, sleeps FLOOD times for 20 us (the test stalls frecd's drain
 *     first: those records fill the ring), then execs NEXT b GO3 DONE.
 *   exec_stack b GO3 DONE
 *     once GO3 is, blocks in es_b_outer -> es_b_middle -> es_b_inner ->
 *     nanosleep(50 ms) again and again, printing "b-done" after the third
 *     time, until the file DONE exists, and exits 0.
 *
 * (Blocking on until told: frecd names a generation's frames when it seals
 * it, and only once it has read the process's mappings; the test waits
 * for a snapshot that names them.)
 *
 * Built twice without PIE (tests/progs/Makefile.inc), both at the same
 * address: exec_stack_a with the a chain first, exec_stack_b with the b
 * chain first (EXEC_STACK_B_FIRST). The chains are the same code, so each
 * of b's functions in exec_stack_b is where its a twin is in exec_stack_a:
 * named with exec_stack_a's symbols, the b stacks would read es_a_*.
 * Frame pointers and inline system calls as in offcpu_stack.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "sleep_inline.h"

long es_a_inner(long i);
long es_a_middle(long i);
long es_a_outer(long i);
long es_b_inner(long i);
long es_b_middle(long i);
long es_b_outer(long i);

#define CHAIN(x)								\
__attribute__((noinline, noclone)) long es_##x##_inner(long i)		\
{									\
	long r = sleep_ns(50 * 1000000);				\
									\
	__asm__ __volatile__("" ::: "memory");				\
	return r + i;							\
}									\
__attribute__((noinline, noclone)) long es_##x##_middle(long i)		\
{									\
	long r = es_##x##_inner(i);					\
									\
	__asm__ __volatile__("" ::: "memory");				\
	return r + 1;							\
}									\
__attribute__((noinline, noclone)) long es_##x##_outer(long i)		\
{									\
	long r = es_##x##_middle(i);					\
									\
	__asm__ __volatile__("" ::: "memory");				\
	return r + 1;							\
}

#ifdef EXEC_STACK_B_FIRST
CHAIN(b)
CHAIN(a)
#else
CHAIN(a)
CHAIN(b)
#endif

/* Wait until the test opens path for writing and closes it. */
static void wait_go(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

/* Block in chain until the file stop exists, at least 3 times; say
 * "said" after the third. */
static long block_until(long (*chain)(long), const char *stop, const char *said)
{
	long i, sum = 0;

	for (i = 1; i <= 3 || access(stop, F_OK); i++) {
		sum += chain(i);
		if (i == 3) {
			printf("%s\n", said);
			fflush(stdout);
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	long i, sum, flood;

	if (argc == 9 && !strcmp(argv[1], "a")) {
		pin_cpu0();
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		wait_go(argv[2]);
		sum = block_until(es_a_outer, argv[5], "a-done");
		wait_go(argv[3]);
		flood = strtol(argv[8], NULL, 10);
		for (i = 0; i < flood; i++)
			sleep_ns(20000);
		execl(argv[7], argv[7], "b", argv[4], argv[6], (char *)NULL);
		perror(argv[7]);
		return sum == -1 ? 2 : 1;
	}
	if (argc == 4 && !strcmp(argv[1], "b")) {
		wait_go(argv[2]);
		sum = block_until(es_b_outer, argv[3], "b-done");
		return sum == -1;
	}
	fprintf(stderr, "usage: exec_stack a GO1 GO2 GO3 ASTOP DONE NEXT FLOOD | exec_stack b GO3 DONE\n");
	return 2;
}
