// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "../../bpf/frec.h"
#include "frecd/bpf_filter.h"

struct frecd_bpf_filter {
	__u32 pids[FREC_MAX_PID_FILTER];	/* the map's keys, as set */
	size_t npids;
	struct frec_cgroup_filter cgroups[FREC_MAX_CGROUP_FILTER];	/* the array, as set */
	size_t ncgroups;
	/* A one-slot array of maps and the map it holds: writing the slot is
	 * how grace_period() waits (-1: not made yet, -2: could not be). */
	int gp_outer, gp_inner;
};

struct frecd_bpf_filter *frecd_bpf_filter__new(void)
{
	struct frecd_bpf_filter *f = calloc(1, sizeof(*f));

	if (f)
		f->gp_outer = f->gp_inner = -1;
	return f;
}

void frecd_bpf_filter__free(struct frecd_bpf_filter *f)
{
	if (!f)
		return;
	if (f->gp_outer >= 0)
		close(f->gp_outer);
	if (f->gp_inner >= 0)
		close(f->gp_inner);
	free(f);
}

int frecd_bpf_filter__check(size_t npids, char *err, size_t errlen)
{
	if (npids <= FREC_MAX_PID_FILTER)
		return 0;
	snprintf(err, errlen, "too many processes to filter (at most %d)", FREC_MAX_PID_FILTER);
	return -E2BIG;
}

int frecd_bpf_filter__set(struct frecd_bpf_filter *f, int map_fd, const __u32 *pids,
			  size_t npids, char *err, size_t errlen)
{
	__u8 one = 1;
	size_t i, j;

	for (i = 0; i < npids; i++)
		if (bpf_map_update_elem(map_fd, &pids[i], &one, BPF_ANY)) {
			snprintf(err, errlen, "cannot fill the pid filter: %s", strerror(errno));
			return -errno;
		}
	for (i = 0; i < f->npids; i++) {
		for (j = 0; j < npids && pids[j] != f->pids[i]; j++)
			;
		if (j == npids && bpf_map_delete_elem(map_fd, &f->pids[i]) && errno != ENOENT) {
			snprintf(err, errlen, "cannot update the pid filter: %s", strerror(errno));
			return -errno;
		}
	}
	memcpy(f->pids, pids, npids * sizeof(*pids));
	f->npids = npids;
	return 0;
}

void frecd_bpf_filter__reset(struct frecd_bpf_filter *f)
{
	f->npids = 0;
	f->ncgroups = 0;
}

const __u32 *frecd_bpf_filter__pids(const struct frecd_bpf_filter *f, size_t *n)
{
	*n = f->npids;
	return f->pids;
}

int frecd_bpf_filter__check_cgroups(size_t n, char *err, size_t errlen)
{
	if (n <= FREC_MAX_CGROUP_FILTER)
		return 0;
	snprintf(err, errlen, "too many cgroups to filter: at most %d --cgroup",
		 FREC_MAX_CGROUP_FILTER);
	return -E2BIG;
}

static bool has_cgroup(const struct frec_cgroup_filter *list, size_t n, __u64 id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i].id == id)
			return true;
	return false;
}

static int put(int map_fd, size_t i, const struct frec_cgroup_filter *e, char *err,
	       size_t errlen)
{
	__u32 key = i;

	if (i >= FREC_MAX_CGROUP_FILTER)
		return 0;	/* the list is full: no end marker needed */
	if (bpf_map_update_elem(map_fd, &key, e, BPF_ANY)) {
		snprintf(err, errlen, "cannot fill the cgroup filter: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The maps grace_period() writes, made at its first call: 0, or -errno
 * (then it never tries again). */
static int gp_maps(struct frecd_bpf_filter *f)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int inner, outer;

	if (f->gp_outer >= 0)
		return 0;
	if (f->gp_outer == -2)
		return -EOPNOTSUPP;
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "frecd_gp_inner", 4, 4, 1, NULL);
	if (inner < 0)
		goto fail;
	opts.inner_map_fd = inner;
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "frecd_gp", 4, 4, 1, &opts);
	if (outer < 0) {
		close(inner);
		goto fail;
	}
	f->gp_inner = inner;
	f->gp_outer = outer;
	return 0;
fail:
	f->gp_outer = -2;
	return -errno;
}

/*
 * An RCU grace period: every BPF program run that began before it has
 * ended, and every run that begins after it sees what was written before
 * it. Writing a map into an array of maps from user space returns only
 * once every non-sleepable program that could be running has finished
 * (kernel/bpf/syscall.c, maybe_wait_bpf_programs(): synchronize_rcu(),
 * since commit 1ae80cf31938, "bpf: wait for running BPF programs when
 * updating map-in-map"), which is the guarantee wanted here, and holds
 * with nohz_full CPUs too. Where those maps cannot be made,
 * membarrier(MEMBARRIER_CMD_GLOBAL), which is synchronize_rcu() but refused
 * with nohz_full; where that is refused too, a pause far longer than any
 * program's run stands in for it. frecd sets the list at start too, with
 * or without --cgroup: the maps are made and one wait (some 0.2 ms) spent
 * then, before any program runs; not worth a flag to skip.
 */
static void grace_period(struct frecd_bpf_filter *f)
{
	struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };
	__u32 key = 0;

	if (!gp_maps(f) && !bpf_map_update_elem(f->gp_outer, &key, &f->gp_inner, BPF_ANY))
		return;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	nanosleep(&pause, NULL);
}

/*
 * The list as written is complete (or as far as a failed write got): raise
 * its generation (FREC_CGROUP_FILTER_GEN), so that the scheduler programs'
 * memos forget the verdicts of the lists before. After a grace period, so
 * that a program that reads the new generation reads the new list too,
 * whatever the CPU's memory order (bpf/filter_cgroup.bpf.h). From what the
 * map holds, not from a count of ours: the map outlives a reload's objects
 * and this struct's resets, and a generation must never come back.
 */
static int raise_gen(struct frecd_bpf_filter *f, int map_fd, char *err, size_t errlen)
{
	struct frec_cgroup_filter g = { 0 };
	__u32 key = FREC_CGROUP_FILTER_GEN;
	int ret;

	grace_period(f);
	if (bpf_map_lookup_elem(map_fd, &key, &g))
		goto err;
	if (++g.id == 0)	/* 0 is "no list yet": never a generation */
		g.id = 1;
	if (bpf_map_update_elem(map_fd, &key, &g, BPF_ANY))
		goto err;
	return 0;
err:
	ret = -errno;
	snprintf(err, errlen, "cannot raise the cgroup filter's generation: %s", strerror(-ret));
	return ret;
}

/* Write the list final (nfinal entries, the last nadded of them new) over
 * f's in place; see the header. 0 or -errno with err filled. */
static int write_list(const struct frecd_bpf_filter *f, int map_fd,
		      const struct frec_cgroup_filter *final, size_t nfinal, size_t nadded,
		      char *err, size_t errlen)
{
	struct frec_cgroup_filter end = { 0 };
	size_t i, at;
	int ret;

	/* First the new ones after the old list (when there is room), so
	 * that for a moment the programs read both lists. */
	if (nadded && f->ncgroups + nadded <= FREC_MAX_CGROUP_FILTER) {
		at = f->ncgroups;
		for (i = nfinal - nadded; i < nfinal; i++)
			if ((ret = put(map_fd, at++, &final[i], err, errlen)))
				return ret;
		if ((ret = put(map_fd, at, &end, err, errlen)))
			return ret;
	}
	for (i = 0; i < nfinal; i++)
		if ((ret = put(map_fd, i, &final[i], err, errlen)))
			return ret;
	return put(map_fd, nfinal, &end, err, errlen);
}

int frecd_bpf_filter__set_cgroups(struct frecd_bpf_filter *f, int map_fd,
				  const struct frec_cgroup_filter *cgroups, size_t n, char *err,
				  size_t errlen)
{
	struct frec_cgroup_filter final[FREC_MAX_CGROUP_FILTER];
	size_t i, nfinal = 0, nadded = 0;
	char gen_err[128];
	int ret, gen_ret;

	ret = frecd_bpf_filter__check_cgroups(n, err, errlen);
	if (ret)
		return ret;
	/* The final list: the kept entries in their old order, then the new
	 * ones. Writing slot i then only ever overwrites an entry that is
	 * gone or already in its place (i <= its old slot). */
	for (i = 0; i < f->ncgroups; i++)
		if (has_cgroup(cgroups, n, f->cgroups[i].id))
			final[nfinal++] = f->cgroups[i];
	for (i = 0; i < n; i++)
		if (!has_cgroup(f->cgroups, f->ncgroups, cgroups[i].id) &&
		    !has_cgroup(final, nfinal, cgroups[i].id))
			final[nfinal + nadded++] = cgroups[i];
	nfinal += nadded;
	ret = write_list(f, map_fd, final, nfinal, nadded, err, errlen);
	/* raised even after a failed write: the verdicts of the old list
	 * must not outlive a list the programs now read partly changed */
	gen_ret = raise_gen(f, map_fd, gen_err, sizeof(gen_err));
	if (ret)
		return ret;
	if (gen_ret) {
		snprintf(err, errlen, "%s", gen_err);
		return gen_ret;
	}
	memcpy(f->cgroups, final, nfinal * sizeof(*final));
	f->ncgroups = nfinal;
	return 0;
}

const struct frec_cgroup_filter *frecd_bpf_filter__cgroups(const struct frecd_bpf_filter *f,
							   size_t *n)
{
	*n = f->ncgroups;
	return f->cgroups;
}
