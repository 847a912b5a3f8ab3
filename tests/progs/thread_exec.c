// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exec from a thread other than the leader, as Go's syscall.Exec does: the
 * kernel kills the leader, and the exec'ing thread takes over the pid.
 *
 *   thread_exec PATH [ARG...]  print "pid PID" and "tid TID" (the thread
 *                              that execs), then exec PATH from that thread
 *   thread_exec --spin MS      wake every 10 ms for MS ms, then exit 0 (an
 *                              exec target that runs in every generation)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static char **exec_argv;

static void *exec_thread(void *arg)
{
	(void)arg;
	printf("pid %d\ntid %ld\n", (int)getpid(), (long)syscall(SYS_gettid));
	fflush(stdout);
	execv(exec_argv[0], exec_argv);
	perror("execv");
	_exit(127);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc == 3 && !strcmp(argv[1], "--spin")) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		for (long ms = atol(argv[2]); ms > 0; ms -= 10)
			nanosleep(&ts, NULL);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: thread_exec PATH [ARG...] | thread_exec --spin MS\n");
		return 2;
	}
	exec_argv = argv + 1;
	if (pthread_create(&t, NULL, exec_thread, NULL)) {
		fprintf(stderr, "thread_exec: pthread_create failed\n");
		return 1;
	}
	/* The leader waits to be killed by the exec. */
	for (;;)
		pause();
}
