// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <frec/recorder.h>
#include "frecd/drops.h"
#include "frecd/recursion.h"

/* How often the recursion misses are read: a system call per program. */
#define RECURSION_POLL_NS	1000000000ull

struct frecd_drops {
	int fd;
	int ncpus;
	__u64 total;
	__u64 *seen;	/* per CPU, as of the previous poll */
	__u64 *now;	/* per CPU, scratch for the lookup */
	__u64 *first, *last;	/* per CPU: the drops' times (FREC_CNT_DROP_*_TS) */
	__u64 *zero;		/* per CPU zeros, to clear FIRST_TS */
	__u64 prev_poll;	/* when the previous poll read the counters */
	__u64 recursion_polled;	/* CLOCK_BOOTTIME of the last read, 0: never */
};

struct frecd_drops *frecd_drops__new(int counters_fd)
{
	struct frecd_drops *d;
	int ncpus;

	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		errno = ncpus ? -ncpus : EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->fd = counters_fd;
	d->ncpus = ncpus;
	d->seen = calloc(ncpus, sizeof(__u64));
	d->now = calloc(ncpus, sizeof(__u64));
	d->first = calloc(ncpus, sizeof(__u64));
	d->last = calloc(ncpus, sizeof(__u64));
	d->zero = calloc(ncpus, sizeof(__u64));
	if (!d->seen || !d->now || !d->first || !d->last || !d->zero) {
		frecd_drops__free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void frecd_drops__free(struct frecd_drops *d)
{
	if (!d)
		return;
	free(d->seen);
	free(d->now);
	free(d->first);
	free(d->last);
	free(d->zero);
	free(d);
}

/*
 * The drops' times: FIRST_TS is set by the first drop after frecd cleared
 * it, so it is read and cleared only when a CPU's count rose. Clearing
 * writes every CPU's slot: a drop between the read and the clear loses its
 * first_ts. The next poll then sees a count that rose with first_ts 0,
 * and starts the span at prev_poll, when frecd last read the counts: the
 * earliest that drop can have been. (Should later drops have set first_ts
 * again meanwhile, the span starts at the first of those.)
 */
static void drop_times(struct frecd_drops *d)
{
	__u32 first = FREC_CNT_DROP_FIRST_TS, last = FREC_CNT_DROP_LAST_TS;

	if (bpf_map_lookup_elem(d->fd, &first, d->first) ||
	    bpf_map_lookup_elem(d->fd, &last, d->last)) {
		memset(d->first, 0, sizeof(__u64) * d->ncpus);
		memset(d->last, 0, sizeof(__u64) * d->ncpus);
		return;
	}
	bpf_map_update_elem(d->fd, &first, d->zero, BPF_ANY);
}

long long frecd_drops__poll(struct frecd_drops *d, struct frec_recorder *rec, __u64 now)
{
	__u32 key = FREC_CNT_DROPPED;
	long long lost = 0;
	bool timed = false;
	int cpu;

	if (bpf_map_lookup_elem(d->fd, &key, d->now))
		return -errno;
	for (cpu = 0; cpu < d->ncpus; cpu++) {
		__u64 delta = d->now[cpu] - d->seen[cpu];
		__u64 first, last;

		if (!delta)
			continue;
		if (!timed) {
			drop_times(d);
			timed = true;
		}
		d->seen[cpu] = d->now[cpu];
		first = d->first[cpu] >= d->prev_poll ? d->first[cpu] : d->prev_poll;
		last = d->last[cpu] > first ? d->last[cpu] : first;
		if (first)
			frec_recorder__add_lost_span(rec, cpu, delta, first, last, now);
		else	/* the first poll, and the time was lost: noticed now */
			frec_recorder__add_lost(rec, cpu, delta, now);
		lost += delta;
	}
	d->prev_poll = now;
	d->total += lost;
	if (!d->recursion_polled || now - d->recursion_polled >= RECURSION_POLL_NS)
		frecd_drops__poll_recursion(d, rec, now);
	return lost;
}

void frecd_drops__poll_recursion(struct frecd_drops *d, struct frec_recorder *rec, __u64 now)
{
	frecd_recursion__poll(rec, now);
	d->recursion_polled = now;
}

__u64 frecd_drops__total(const struct frecd_drops *d)
{
	return d->total;
}

const __u64 *frecd_drops__by_cpu(const struct frecd_drops *d, __u32 *ncpus)
{
	*ncpus = d->ncpus;
	return d->seen;
}

static __u64 counter_sum(struct frecd_drops *d, __u32 key)
{
	__u64 sum = 0;
	int cpu;

	if (bpf_map_lookup_elem(d->fd, &key, d->now))
		return 0;
	for (cpu = 0; cpu < d->ncpus; cpu++)
		sum += d->now[cpu];
	return sum;
}

__u64 frecd_drops__filtered(struct frecd_drops *d)
{
	return counter_sum(d, FREC_CNT_FILTERED);
}

__u64 frecd_drops__stack_errors(struct frecd_drops *d)
{
	return counter_sum(d, FREC_CNT_STACK_ERR);
}
