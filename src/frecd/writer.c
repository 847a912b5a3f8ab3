// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <frec/recorder.h>
#include "frecd/log.h"
#include "frecd/writer.h"

enum job_state { JOB_NONE, JOB_QUEUED, JOB_DONE };

struct frecd_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int efd;
	bool stop;
	__u64 delay_ns;		/* --debug-writer-delay-ms, fixed before the thread starts */
	enum job_state state;	/* under lock */
	struct frecd_snapshot_job job;
	struct frecd_snapshot_result res;
};

/* The job is taken and its window pinned: the loop sees the writer busy and
 * merges requests, and goes on recording, for as long as this lasts. */
static void debug_delay(__u64 ns)
{
	struct timespec until;

	log_info("snapshot writer: waiting %llu ms before writing the file (--debug-writer-delay-ms)",
		 (unsigned long long)(ns / 1000000));
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ns / 1000000000;
	until.tv_nsec += ns % 1000000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	/* an absolute end: a sleep that is interrupted resumes towards it */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

static void write_job(struct frecd_writer *w)
{
	struct frecd_snapshot_job *job = &w->job;
	struct frecd_snapshot_result *res = &w->res;
	struct frec_snapshot_opts wopts = {
		.sz = sizeof(wopts),
		.compress = (enum frec_compress)job->compress,
	};
	unsigned int attempt;
	struct stat st;
	int ret = 0;

	if (w->delay_ns)
		debug_delay(w->delay_ns);
	res->pin = job->pin;
	for (attempt = 0;; attempt++) {
		ret = frecd_snapname__make(res->name, sizeof(res->name), job->realtime_ns, attempt);
		if (ret)
			break;
		ret = frec_snapshot__write_opts(job->dirfd, res->name, &job->hdr, job->pin,
						&wopts);
		if (ret != -EEXIST)
			break;
	}
	res->err = ret;
	res->file_bytes = 0;
	if (!ret && !fstatat(job->dirfd, res->name, &st, AT_SYMLINK_NOFOLLOW))
		res->file_bytes = (__u64)st.st_size;
	close(job->dirfd);
}

static void *writer_main(void *arg)
{
	struct frecd_writer *w = arg;
	__u64 one = 1;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && w->state != JOB_QUEUED)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->state != JOB_QUEUED)
			break;	/* stopping, nothing to do */
		pthread_mutex_unlock(&w->lock);
		write_job(w);
		pthread_mutex_lock(&w->lock);
		w->state = JOB_DONE;
		if (write(w->efd, &one, sizeof(one)) < 0) {
			/* cannot happen with a counter far from overflow */
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct frecd_writer *frecd_writer__new(__u64 debug_delay_ns)
{
	struct frecd_writer *w;
	int ret;

	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		ret = errno;
		free(w);
		errno = ret;
		return NULL;
	}
	w->delay_ns = debug_delay_ns;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	ret = pthread_create(&w->thread, NULL, writer_main, w);
	if (ret) {
		close(w->efd);
		free(w);
		errno = ret;
		return NULL;
	}
	return w;
}

void frecd_writer__free(struct frecd_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	close(w->efd);
	free(w);
}

int frecd_writer__fd(const struct frecd_writer *w)
{
	return w->efd;
}

bool frecd_writer__busy(const struct frecd_writer *w)
{
	bool busy;

	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	busy = w->state != JOB_NONE;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
	return busy;
}

int frecd_writer__submit(struct frecd_writer *w, const struct frecd_snapshot_job *job)
{
	int ret = 0;

	pthread_mutex_lock(&w->lock);
	if (w->state != JOB_NONE) {
		ret = -EBUSY;
	} else {
		w->job = *job;
		w->state = JOB_QUEUED;
		pthread_cond_signal(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return ret;
}

int frecd_writer__collect(struct frecd_writer *w, struct frecd_snapshot_result *res)
{
	__u64 n;
	int done = 0;

	if (read(w->efd, &n, sizeof(n)) < 0) {
		/* EAGAIN: nothing signalled; the state below decides anyway */
	}
	pthread_mutex_lock(&w->lock);
	if (w->state == JOB_DONE) {
		*res = w->res;
		w->state = JOB_NONE;
		done = 1;
	}
	pthread_mutex_unlock(&w->lock);
	return done;
}
