// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
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
	if (!d->seen || !d->now) {
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
	free(d);
}

long long frecd_drops__poll(struct frecd_drops *d, struct frec_recorder *rec, __u64 now)
{
	__u32 key = FREC_CNT_DROPPED;
	long long lost = 0;
	int cpu;

	if (bpf_map_lookup_elem(d->fd, &key, d->now))
		return -errno;
	for (cpu = 0; cpu < d->ncpus; cpu++) {
		__u64 delta = d->now[cpu] - d->seen[cpu];

		if (!delta)
			continue;
		d->seen[cpu] = d->now[cpu];
		frec_recorder__add_lost(rec, cpu, delta, now);
		lost += delta;
	}
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

__u64 frecd_drops__filtered(struct frecd_drops *d)
{
	__u32 key = FREC_CNT_FILTERED;
	__u64 sum = 0;
	int cpu;

	if (bpf_map_lookup_elem(d->fd, &key, d->now))
		return 0;
	for (cpu = 0; cpu < d->ncpus; cpu++)
		sum += d->now[cpu];
	return sum;
}
