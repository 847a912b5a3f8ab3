// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <frec/cgroup.h>
#include "frecd/cgroups.h"
#include "frecd/clock.h"
#include "frecd/log.h"

#define WALK_EVERY_MS	1000	/* a walk at most this often */
#define CHECK_EVERY_MS	10000	/* the check for vanished cgroups */
#define FULL_LOG_MS	5000	/* a full queue is logged at most this often */
#define BATCH		64	/* ids taken from the queue at once */
#define CHECK_BATCH	1024	/* entries checked per round */

enum { ST_FREE, ST_PENDING, ST_NAMED, ST_UNNAMED, ST_GONE };

struct entry {
	__u64 id;
	char *path;		/* named or gone; owned */
	__u64 last_seen;	/* the generation that last mentioned it */
	__u32 next;		/* hash chain, or the free list: index + 1, 0 ends */
	__u8 state;
	bool queued;		/* in the queue */
};

struct frecd_cgroups {
	const struct frecd_cgroupfs *fs;
	struct frec_cgroup_namer namer;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* the thread waits on it for work */
	/* Under lock. */
	bool stop;
	struct entry *ents;
	size_t cap, nused;
	__u32 *buckets;
	size_t nbuckets;	/* a power of two */
	__u32 free_head;
	__u64 queue[FRECD_CGROUPS_QUEUE];
	unsigned int qhead, qcount;
	__u64 gen;		/* the open generation, as the namer counts seals */
	bool in_seal;		/* name() calls since the last seen() */
	__u64 queue_full;
	struct frecd_cgroup_list targets;
	bool target_gone[FREC_MAX_CGROUP_FILTER];
	/* The thread's own. */
	__u64 last_walk_ms, last_check_ms, last_full_log_ms, full_logged;
	/* The recorder thread's: name()'s copies. */
	char path[PATH_MAX];
	char container[FREC_CONTAINER_ID_LEN];
};

static size_t bucket_of(const struct frecd_cgroups *c, __u64 id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & (c->nbuckets - 1);
}

static struct entry *find(struct frecd_cgroups *c, __u64 id)
{
	__u32 i = c->buckets[bucket_of(c, id)];

	while (i && c->ents[i - 1].id != id)
		i = c->ents[i - 1].next;
	return i ? &c->ents[i - 1] : NULL;
}

static void unlink_entry(struct frecd_cgroups *c, struct entry *e)
{
	__u32 *p = &c->buckets[bucket_of(c, e->id)];
	__u32 me = (__u32)(e - c->ents) + 1;

	while (*p && *p != me)
		p = &c->ents[*p - 1].next;
	if (*p)
		*p = e->next;
	free(e->path);
	memset(e, 0, sizeof(*e));
	e->next = c->free_head;
	c->free_head = me;
	c->nused--;
}

/* A new entry for id, or NULL: the table is full of cgroups not gone. */
static struct entry *insert(struct frecd_cgroups *c, __u64 id)
{
	struct entry *e, *old = NULL;
	size_t i, b;

	if (!c->free_head) {
		for (i = 0; i < c->cap; i++)
			if (c->ents[i].state == ST_GONE &&
			    (!old || c->ents[i].last_seen < old->last_seen))
				old = &c->ents[i];
		if (!old)
			return NULL;
		unlink_entry(c, old);
	}
	e = &c->ents[c->free_head - 1];
	c->free_head = e->next;
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->last_seen = c->gen;
	b = bucket_of(c, id);
	e->next = c->buckets[b];
	c->buckets[b] = (__u32)(e - c->ents) + 1;
	c->nused++;
	return e;
}

static void enqueue(struct frecd_cgroups *c, struct entry *e)
{
	if (c->qcount == FRECD_CGROUPS_QUEUE) {
		c->queue_full++;
		return;		/* asked again the next generation it is seen in */
	}
	c->queue[(c->qhead + c->qcount++) % FRECD_CGROUPS_QUEUE] = e->id;
	e->queued = true;
	if (c->qcount == 1)
		pthread_cond_signal(&c->cond);
}

static void namer_seen(void *ctx, __u64 id)
{
	struct frecd_cgroups *c = ctx;
	struct entry *e;

	pthread_mutex_lock(&c->lock);
	c->in_seal = false;
	e = find(c, id);
	if (!e && (e = insert(c, id)))
		e->state = ST_PENDING;
	if (e) {
		e->last_seen = c->gen;
		if (e->state == ST_PENDING && !e->queued)
			enqueue(c, e);
	}
	pthread_mutex_unlock(&c->lock);
}

static int namer_name(void *ctx, __u64 id, const char **path, const char **container)
{
	struct frecd_cgroups *c = ctx;
	struct entry *e;
	int ret = -ENOENT;

	pthread_mutex_lock(&c->lock);
	/* The first name() after the generation's seen()s: a seal, and the
	 * next generation is open. */
	if (!c->in_seal) {
		c->gen++;
		c->in_seal = true;
	}
	e = find(c, id);
	if (e && (e->state == ST_NAMED || e->state == ST_GONE) && e->path) {
		snprintf(c->path, sizeof(c->path), "%s", e->path);
		ret = 0;
	}
	pthread_mutex_unlock(&c->lock);
	if (ret)
		return ret;
	if (frec_cgroup__container(c->path, c->container, sizeof(c->container)))
		c->container[0] = '\0';
	*path = c->path;
	*container = c->container;
	return 0;
}

/* Under lock: id is named path (a copy), whatever it was. */
static void set_named(struct frecd_cgroups *c, struct entry *e, const char *path)
{
	char *copy;

	if (e->path && !strcmp(e->path, path) && e->state == ST_NAMED)
		return;
	copy = strdup(path);
	if (!copy) {
		if (e->state == ST_PENDING)
			e->state = ST_UNNAMED;
		return;
	}
	free(e->path);
	e->path = copy;
	e->state = ST_NAMED;
}

static int walk_one(void *ctx, __u64 id, const char *path)
{
	struct frecd_cgroups *c = ctx;
	struct entry *e;
	bool stop;

	pthread_mutex_lock(&c->lock);
	e = find(c, id);
	if (!e)
		e = insert(c, id);
	if (e)
		set_named(c, e, path);
	stop = c->stop;
	pthread_mutex_unlock(&c->lock);
	return stop ? 1 : 0;
}

static void walk_all(struct frecd_cgroups *c)
{
	int ret = frecd_cgroupfs__walk(c->fs, walk_one, c);

	c->last_walk_ms = frecd_clock__mono_ms();
	if (ret < 0)
		log_debug("cgroups: walking %s: %s", c->fs->mount, strerror(-ret));
}

/* Wait until ms or stop; true when stopping. Called with the lock held. */
static bool wait_until(struct frecd_cgroups *c, __u64 until_ms)
{
	struct timespec ts;
	__u64 now = frecd_clock__mono_ms();

	if (c->stop || now >= until_ms)
		return c->stop;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (until_ms - now) / 1000;
	ts.tv_nsec += (long)((until_ms - now) % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	return c->stop;
}

/* Name the ids taken from the queue: by handle, the rest by one walk. */
static void resolve(struct frecd_cgroups *c, const __u64 *ids, size_t n)
{
	char path[PATH_MAX];
	bool walk = false;
	struct entry *e;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = c->fs->by_handle ? frecd_cgroupfs__path(c->fs, ids[i], path, sizeof(path))
				       : -EOPNOTSUPP;
		if (ret == -EPERM || ret == -EOPNOTSUPP) {
			walk = true;
			continue;
		}
		pthread_mutex_lock(&c->lock);
		e = find(c, ids[i]);
		if (e && e->state == ST_PENDING) {
			if (!ret)
				set_named(c, e, path);
			else
				e->state = ST_UNNAMED;	/* gone already, or not in view */
		}
		pthread_mutex_unlock(&c->lock);
	}
	if (!walk)
		return;
	pthread_mutex_lock(&c->lock);
	/* enqueue() signals the same condition: wait out the whole second */
	while (frecd_clock__mono_ms() < c->last_walk_ms + WALK_EVERY_MS) {
		if (wait_until(c, c->last_walk_ms + WALK_EVERY_MS)) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
	}
	pthread_mutex_unlock(&c->lock);
	walk_all(c);
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < n; i++) {
		e = find(c, ids[i]);
		if (e && e->state == ST_PENDING)
			e->state = ST_UNNAMED;
	}
	pthread_mutex_unlock(&c->lock);
}

/* Whether the cgroup (id, path) still exists. */
static bool exists(const struct frecd_cgroupfs *fs, __u64 id, const char *path)
{
	char norm[PATH_MAX], err[256];
	__u64 got;
	__u32 level;

	if (frecd_cgroupfs__lookup(fs, path, &got, &level, norm, sizeof(norm), err, sizeof(err)))
		return false;
	return got == id;
}

/* The named entries no generation mentioned for two: vanished ones are
 * gone; gone ones unseen for two more seals are freed. */
static void check_gone(struct frecd_cgroups *c)
{
	__u64 *ids, gen;
	char **paths;
	size_t i, n = 0;
	struct entry *e;

	ids = calloc(CHECK_BATCH, sizeof(*ids));
	paths = calloc(CHECK_BATCH, sizeof(*paths));
	if (!ids || !paths)
		goto out;
	pthread_mutex_lock(&c->lock);
	gen = c->gen;
	for (i = 0; i < c->cap; i++) {
		e = &c->ents[i];
		if (e->state == ST_GONE && gen > e->last_seen + 2) {
			unlink_entry(c, e);
			continue;
		}
		if (e->state != ST_NAMED || gen < e->last_seen + 2 || n == CHECK_BATCH)
			continue;
		paths[n] = strdup(e->path);
		if (paths[n])
			ids[n++] = e->id;
	}
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < n; i++) {
		if (exists(c->fs, ids[i], paths[i]))
			continue;
		pthread_mutex_lock(&c->lock);
		e = find(c, ids[i]);
		if (e && e->state == ST_NAMED)
			e->state = ST_GONE;
		pthread_mutex_unlock(&c->lock);
	}
out:
	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
	free(ids);
}

/* A --cgroup target that vanished is said once: the filter is by id. */
static void check_targets(struct frecd_cgroups *c)
{
	struct frecd_cgroup_list t;
	bool gone[FREC_MAX_CGROUP_FILTER];
	size_t i;

	pthread_mutex_lock(&c->lock);
	t = c->targets;
	memcpy(gone, c->target_gone, sizeof(gone));
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < t.n; i++) {
		if (gone[i] || exists(c->fs, t.f[i].id, t.path[i]))
			continue;
		log_warn("cgroup %s is gone (id %llu): --cgroup filters by id; SIGHUP once it is re-created",
			 t.path[i], (unsigned long long)t.f[i].id);
		pthread_mutex_lock(&c->lock);
		if (c->targets.n == t.n && c->targets.f[i].id == t.f[i].id)
			c->target_gone[i] = true;
		pthread_mutex_unlock(&c->lock);
	}
}

static void *cgroups_main(void *arg)
{
	struct frecd_cgroups *c = arg;
	__u64 ids[BATCH], now, full;
	struct entry *e;
	size_t n;

	walk_all(c);
	c->last_check_ms = frecd_clock__mono_ms();
	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		if (!c->qcount)
			wait_until(c, frecd_clock__mono_ms() + 1000);
		for (n = 0; c->qcount && n < BATCH; n++) {
			ids[n] = c->queue[c->qhead];
			c->qhead = (c->qhead + 1) % FRECD_CGROUPS_QUEUE;
			c->qcount--;
			e = find(c, ids[n]);
			if (e)
				e->queued = false;
		}
		full = c->queue_full;
		pthread_mutex_unlock(&c->lock);
		if (n)
			resolve(c, ids, n);
		now = frecd_clock__mono_ms();
		if (now >= c->last_check_ms + CHECK_EVERY_MS) {
			check_gone(c);
			c->last_check_ms = now;
		}
		check_targets(c);
		if (full > c->full_logged && now >= c->last_full_log_ms + FULL_LOG_MS) {
			log_warn("cgroups: %llu cgroup ids could not be queued for naming (the queue of %d was full): they are written unnamed until asked again",
				 (unsigned long long)(full - c->full_logged), FRECD_CGROUPS_QUEUE);
			c->full_logged = full;
			c->last_full_log_ms = now;
		}
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct frecd_cgroups *frecd_cgroups__new(const struct frecd_cgroupfs *fs, size_t cap)
{
	struct frecd_cgroups *c;
	size_t i;
	int err;

	if (!cap)
		cap = FRECD_CGROUPS_CAP;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->fs = fs;
	c->cap = cap;
	for (c->nbuckets = 1; c->nbuckets < cap; c->nbuckets <<= 1)
		;
	c->ents = calloc(cap, sizeof(*c->ents));
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (!c->ents || !c->buckets) {
		frecd_cgroups__free(c);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < cap; i++)
		c->ents[i].next = i + 1 < cap ? (__u32)(i + 2) : 0;
	c->free_head = 1;
	c->namer.ctx = c;
	c->namer.seen = namer_seen;
	c->namer.name = namer_name;
	pthread_mutex_init(&c->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&c->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	err = pthread_create(&c->thread, NULL, cgroups_main, c);
	if (err) {
		frecd_cgroups__free(c);
		errno = err;
		return NULL;
	}
	c->started = true;
	return c;
}

void frecd_cgroups__free(struct frecd_cgroups *c)
{
	size_t i;

	if (!c)
		return;
	if (c->started) {
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		pthread_cond_signal(&c->cond);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->cond);
	}
	for (i = 0; c->ents && i < c->cap; i++)
		free(c->ents[i].path);
	free(c->ents);
	free(c->buckets);
	free(c);
}

const struct frec_cgroup_namer *frecd_cgroups__namer(struct frecd_cgroups *c)
{
	return &c->namer;
}

void frecd_cgroups__set_targets(struct frecd_cgroups *c, const struct frecd_cgroup_list *l)
{
	pthread_mutex_lock(&c->lock);
	c->targets = *l;
	memset(c->target_gone, 0, sizeof(c->target_gone));
	pthread_mutex_unlock(&c->lock);
}

void frecd_cgroups__counts(struct frecd_cgroups *c, struct frecd_cgroups_counts *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&c->lock);
	out->known = c->nused;
	out->queue_full = c->queue_full;
	for (i = 0; i < c->cap; i++) {
		if (c->ents[i].state == ST_PENDING)
			out->pending++;
		else if (c->ents[i].state == ST_UNNAMED)
			out->unnamed++;
	}
	pthread_mutex_unlock(&c->lock);
}
