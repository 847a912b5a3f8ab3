// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <frec/recorder.h>
#include "frecd/clock.h"
#include "frecd/log.h"
#include "frecd/losslog.h"
#include "frecd/proc.h"
#include "frecd/procinfo.h"

/* Command lines longer than this are cut (the recorder keeps as much). */
#define CMDLINE_MAX	4096
/* Execs waiting for their command line: a burst of execs while one read
 * is slow fits; beyond, they are counted and dropped. */
#define REQ_MAX		1024
/* Results waiting for the loop: the thread waits for room, never the loop. */
#define RES_MAX		64
#define STUCK_NS	(1000000000ull)

/* RES_STALE: a RES_CMDLINE that frecd_procinfo__forget() took back. */
enum { RES_NAME, RES_CMDLINE, RES_SEEDED, RES_STALE };

struct result {
	int kind;
	__u32 tid, tgid;
	char comm[16];
	char cmdline[CMDLINE_MAX];
};

struct frecd_procinfo {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* the thread waits on it for work and for room */
	int efd;
	bool stop;
	/* Under lock. */
	__u32 req[REQ_MAX];
	unsigned int req_head, req_count;
	struct result res[RES_MAX];
	unsigned int res_head, res_count;
	__u64 misses;
	__u64 busy_since;	/* CLOCK_MONOTONIC start of the read in progress, 0: none */
	__u32 busy_tgid;
	/* A command line of busy_tgid is being read or waits for room in
	 * res; stale: frecd_procinfo__forget() took it back, not posted. */
	bool busy, busy_stale;
	/* The loop's own. */
	__u64 warned_since;	/* busy_since of the read last logged as stuck */
	struct frecd_losslog miss_log;	/* CLOCK_MONOTONIC */
	unsigned int names, cmdlines;	/* applied from the seed */
	bool seeding;
	/* The thread's own. */
	char buf[CMDLINE_MAX];
};

/* Queue one result, waiting for room. -ECANCELED when stopping. */
static int post(struct frecd_procinfo *p, int kind, __u32 tid, __u32 tgid, const char *s)
{
	struct result *r;
	__u64 one = 1;
	bool wake;

	pthread_mutex_lock(&p->lock);
	while (p->res_count == RES_MAX && !p->stop)
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->stop) {
		pthread_mutex_unlock(&p->lock);
		return -ECANCELED;
	}
	if (kind == RES_CMDLINE) {
		bool stale = p->busy_stale;

		p->busy = false;
		if (stale) {	/* its pid has a new process */
			pthread_mutex_unlock(&p->lock);
			return 0;
		}
	}
	r = &p->res[(p->res_head + p->res_count) % RES_MAX];
	r->kind = kind;
	r->tid = tid;
	r->tgid = tgid;
	if (kind == RES_NAME)
		snprintf(r->comm, sizeof(r->comm), "%s", s);
	else if (kind == RES_CMDLINE)
		snprintf(r->cmdline, sizeof(r->cmdline), "%s", s);
	wake = p->res_count++ == 0;
	pthread_mutex_unlock(&p->lock);
	if (wake && write(p->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is far from empty; the loop wakes anyway */
	}
	return 0;
}

/* Read and post one command line (kernel threads have an empty one). */
static int read_cmdline(struct frecd_procinfo *p, __u32 tgid)
{
	int n;

	pthread_mutex_lock(&p->lock);
	p->busy_since = frecd_clock__mono_ns();
	p->busy_tgid = tgid;
	p->busy = true;
	p->busy_stale = false;
	pthread_mutex_unlock(&p->lock);
	n = frecd_proc__cmdline(tgid, p->buf, sizeof(p->buf));
	pthread_mutex_lock(&p->lock);
	p->busy_since = 0;
	if (n < 0)	/* it exited: nothing to say */
		p->busy = false;
	pthread_mutex_unlock(&p->lock);
	/* post() ends busy under the same lock that queues the result (or
	 * drops it, stale), so a forget() finds it in one place or the other */
	return n < 0 ? 0 : post(p, RES_CMDLINE, tgid, tgid, p->buf);
}

/* The next requested tgid; with wait, until there is one. false: stopping
 * (or none, without wait). */
static bool next_request(struct frecd_procinfo *p, bool wait, __u32 *tgid)
{
	bool got = false;

	pthread_mutex_lock(&p->lock);
	while (wait && !p->req_count && !p->stop)
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->req_count && !p->stop) {
		*tgid = p->req[p->req_head];
		p->req_head = (p->req_head + 1) % REQ_MAX;
		p->req_count--;
		got = true;
	}
	pthread_mutex_unlock(&p->lock);
	return got;
}

/* Execs first, between two processes of the seed: they are the news. */
static int serve_requests(struct frecd_procinfo *p)
{
	__u32 tgid;
	int ret = 0;

	while (!ret && next_request(p, false, &tgid))
		ret = read_cmdline(p, tgid);
	return ret;
}

static int seed_name(void *ctx, __u32 tid, __u32 tgid, const char *comm)
{
	return post(ctx, RES_NAME, tid, tgid, comm);
}

static int seed_cmdline(void *ctx, __u32 tgid)
{
	struct frecd_procinfo *p = ctx;
	int ret = serve_requests(p);

	return ret ? ret : read_cmdline(p, tgid);
}

static void *procinfo_main(void *arg)
{
	struct frecd_procinfo *p = arg;
	__u32 tgid;

	/* The seed: names first (cheap, and what a snapshot needs most),
	 * then the command lines, each of which may block. */
	if (frecd_proc__for_each_thread(seed_name, p) == -ECANCELED ||
	    frecd_proc__for_each_process(seed_cmdline, p) == -ECANCELED ||
	    post(p, RES_SEEDED, 0, 0, NULL))
		return NULL;
	while (next_request(p, true, &tgid))
		if (read_cmdline(p, tgid))
			break;
	return NULL;
}

struct frecd_procinfo *frecd_procinfo__new(void)
{
	struct frecd_procinfo *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	p->seeding = true;
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->efd < 0) {
		err = errno;
		free(p);
		errno = err;
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	err = pthread_create(&p->thread, NULL, procinfo_main, p);
	if (err) {
		close(p->efd);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		free(p);
		errno = err;
		return NULL;
	}
	return p;
}

void frecd_procinfo__free(struct frecd_procinfo *p)
{
	struct timespec until;
	__u32 tgid;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	tgid = p->busy_tgid;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += 1;
	/* the monotonic clock: a step of the wall clock changes nothing */
	if (pthread_clockjoin_np(p->thread, NULL, CLOCK_MONOTONIC, &until)) {
		/* Stuck in the kernel: exiting ends the read. Leave it its
		 * memory rather than pull that from under it. */
		log_warn("not waiting for the /proc reader: its read of /proc/%u/cmdline is stuck",
			 tgid);
		return;
	}
	close(p->efd);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

int frecd_procinfo__fd(const struct frecd_procinfo *p)
{
	return p ? p->efd : -1;
}

int frecd_procinfo__want_cmdline(struct frecd_procinfo *p, __u32 tgid)
{
	int ret = 0;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	/* One waiting read per process: it reads the newest command line.
	 * (The read under way may be older than an exec just seen: not it.)
	 * A process a stuck read makes every seal ask for waits here once. */
	for (unsigned int i = 0; i < p->req_count; i++)
		if (p->req[(p->req_head + i) % REQ_MAX] == tgid)
			goto out;
	if (p->req_count == REQ_MAX) {
		p->misses++;
		ret = -ENOSPC;
	} else {
		p->req[(p->req_head + p->req_count) % REQ_MAX] = tgid;
		p->req_count++;
		pthread_cond_signal(&p->cond);
	}
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void frecd_procinfo__forget(struct frecd_procinfo *p, __u32 tgid)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->busy && p->busy_tgid == tgid)
		p->busy_stale = true;
	for (unsigned int i = 0; i < p->res_count; i++) {
		struct result *r = &p->res[(p->res_head + i) % RES_MAX];

		if (r->kind == RES_CMDLINE && r->tgid == tgid)
			r->kind = RES_STALE;
	}
	pthread_mutex_unlock(&p->lock);
}

static void apply_one(struct frecd_procinfo *p, struct frec_recorder *rec, const struct result *r)
{
	switch (r->kind) {
	case RES_NAME:
		if (!frec_recorder__seed_thread(rec, r->tid, r->tgid, r->comm) && p->seeding)
			p->names++;
		break;
	case RES_CMDLINE:
		if (!frec_recorder__set_cmdline(rec, r->tgid, r->cmdline) && p->seeding)
			p->cmdlines++;
		break;
	case RES_SEEDED:
		p->seeding = false;
		/* Info, not debug: until now a snapshot names the threads and
		 * processes that ran before frecd only as far as the seed got. */
		log_info("names: %u threads and %u command lines read from /proc",
			 p->names, p->cmdlines);
		break;
	case RES_STALE:
		break;
	}
}

void frecd_procinfo__apply(struct frecd_procinfo *p, struct frec_recorder *rec)
{
	__u64 n;

	if (!p)
		return;
	if (read(p->efd, &n, sizeof(n)) < 0) {
		/* EAGAIN: nothing new since the last call; look anyway */
	}
	/* Under the lock: the thread holds it only briefly, never for a read,
	 * and applying a result is a copy. */
	pthread_mutex_lock(&p->lock);
	if (p->res_count) {
		while (p->res_count) {
			apply_one(p, rec, &p->res[p->res_head]);
			p->res_head = (p->res_head + 1) % RES_MAX;
			p->res_count--;
		}
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
}

void frecd_procinfo__tick(struct frecd_procinfo *p)
{
	__u64 now, since, misses;
	unsigned int waiting;
	__u32 tgid;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	since = p->busy_since;
	tgid = p->busy_tgid;
	waiting = p->req_count;
	misses = p->misses;
	pthread_mutex_unlock(&p->lock);
	/* After reading since: a read that began after an earlier clock
	 * read would be "stuck" for 2^64 ns less a little (it was warned
	 * of, with 18446744073.7 s). */
	now = frecd_clock__mono_ns();
	if (since && now - since >= STUCK_NS && since != p->warned_since) {
		log_warn("reading /proc/%u/cmdline has not returned for %.1f s (the process is stuck in the kernel); recording goes on, %u command lines wait behind it",
			 tgid, (now - since) / 1e9, waiting);
		p->warned_since = since;
	}
	frecd_losslog__proc_misses(&p->miss_log, misses, now, REQ_MAX);
}

bool frecd_procinfo__seeding(const struct frecd_procinfo *p)
{
	return p && p->seeding;
}

__u64 frecd_procinfo__misses(const struct frecd_procinfo *p)
{
	pthread_mutex_t *lock;
	__u64 n;

	if (!p)
		return 0;
	lock = (pthread_mutex_t *)&p->lock;
	pthread_mutex_lock(lock);
	n = p->misses;
	pthread_mutex_unlock(lock);
	return n;
}
