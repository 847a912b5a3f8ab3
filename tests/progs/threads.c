// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many threads at once, for the task table's counts:
 *
 *   threads N   start N threads (1 to 10000), each of which runs once and
 *               blocks; print "ready" once all have run, then wait for a
 *               line on stdin (or its end), let them all go, join them,
 *               print "done" and exit 0
 *
 * Each thread leaves the CPU at least once (its block), so the recorder
 * sees every one of them in a switch while all are alive.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long started;
static int go;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	started++;
	pthread_cond_broadcast(&cond);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0, i;
	pthread_attr_t attr;
	pthread_t *t;
	int c;

	if (n < 1 || n > 10000) {
		fprintf(stderr, "usage: threads N (1 to 10000)\n");
		return 2;
	}
	t = calloc(n, sizeof(*t));
	/* Small stacks: 10000 threads should not need 80 GiB of address space. */
	if (!t || pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 64 * 1024)) {
		fprintf(stderr, "threads: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], &attr, thread_main, NULL)) {
			fprintf(stderr, "threads: pthread_create failed after %ld\n", i);
			return 1;
		}
	}
	pthread_mutex_lock(&lock);
	while (started < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	printf("ready\n");
	fflush(stdout);
	while ((c = getchar()) != EOF && c != '\n')
		;
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
