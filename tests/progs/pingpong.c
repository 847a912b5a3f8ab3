// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two threads named "ping" and "pong" pass a byte back and forth through two
 * pipes, exactly N times (or for S seconds with -s S), so that the test knows
 * how they were scheduled.
 *
 *   pingpong [-w] [-s SECONDS] [N]
 *
 * Prints "pid PID", "ping TID", "pong TID" once both threads exist and are
 * named, then "done ROUNDS" when the exchange is over. The threads then block
 * until stdin reaches EOF, so that the test can read their context switch
 * counts in /proc/PID/task/TID/status while they still exist; then the
 * program exits. With -w the exchange starts only after a line is read from
 * stdin (so threads can exist before frecd starts).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long rounds = 1000;
static double seconds;		/* > 0: run for this long instead of rounds */
static int ab[2], ba[2], start[2], done[2], quit[2];
static pid_t tids[2];
static long rounds_done;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void xread(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		die("read");
}

static void xwrite(int fd)
{
	if (write(fd, "x", 1) != 1)
		die("write");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *thread_main(void *arg)
{
	long i, n = 0;
	int me = (int)(long)arg;
	double end = 0;
	char c;

	tids[me] = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), me ? "pong" : "ping");
	xwrite(done[1]);	/* named */
	xread(start[0]);
	if (seconds > 0)
		end = now() + seconds;
	for (i = 0;; i++) {
		if (me == 0) {
			/* ping decides when to stop: a 0 byte ends pong's loop */
			if (seconds > 0 ? (i % 256 == 0 && now() >= end) : i == rounds) {
				if (write(ab[1], "", 1) != 1)
					die("write");
				break;
			}
			xwrite(ab[1]);
			xread(ba[0]);
			n++;
		} else {
			if (read(ab[0], &c, 1) != 1)
				die("read");
			if (c == '\0')
				break;
			xwrite(ba[1]);
		}
	}
	if (me == 0)
		rounds_done = n;
	xwrite(done[1]);
	/* stay alive (blocked) until the test has read our counters */
	if (read(quit[0], &c, 1) < 0)
		die("read");
	return NULL;
}

int main(int argc, char **argv)
{
	char line[64];
	pthread_t t[2];
	int opt, wait_go = 0;

	while ((opt = getopt(argc, argv, "ws:")) != -1) {
		switch (opt) {
		case 'w': wait_go = 1; break;
		case 's': seconds = atof(optarg); break;
		default:
			fprintf(stderr, "usage: pingpong [-w] [-s SECONDS] [N]\n");
			return 2;
		}
	}
	if (optind < argc)
		rounds = atol(argv[optind]);
	if (pipe(ab) || pipe(ba) || pipe(start) || pipe(done) || pipe(quit))
		die("pipe");
	if (pthread_create(&t[0], NULL, thread_main, (void *)0L) ||
	    pthread_create(&t[1], NULL, thread_main, (void *)1L))
		die("pthread_create");
	xread(done[0]);
	xread(done[0]);
	printf("pid %d\nping %d\npong %d\n", (int)getpid(), (int)tids[0], (int)tids[1]);
	fflush(stdout);
	if (wait_go && !fgets(line, sizeof(line), stdin))
		die("stdin");
	xwrite(start[1]);
	xwrite(start[1]);
	xread(done[0]);
	xread(done[0]);
	printf("done %ld\n", rounds_done);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	close(quit[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return 0;
}
