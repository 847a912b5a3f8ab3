/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The -p filter in the kernel: the scheduler programs' pid_filter hash map
 * (tgid -> 1), and what frecd last put in it, so that a change of -p is a
 * difference applied in place: the new tgids first, then the old ones
 * removed, so that no process wanted both before and after is left out in
 * between. Whether the programs filter at all is theirs (loader.c).
 *
 * The --cgroup filter likewise: the "cgroup_filter" array of {id, level},
 * ended by id 0 (bpf/filter_cgroup.bpf.h), rewritten in place with the new
 * entries written first, so that a cgroup wanted before and after is never
 * missing from the list the programs read, and its generation raised once
 * the list is complete (FREC_CGROUP_FILTER_GEN: the programs' memos of
 * verdicts are for one generation).
 *
 * Used by the loader on main's thread at start, then on the loop's thread
 * (a reload); never two at once.
 */
#ifndef FRECD_BPF_FILTER_H
#define FRECD_BPF_FILTER_H

#include <stddef.h>
#include <linux/types.h>
#include "../../bpf/frec.h"

struct frecd_bpf_filter;

/* Nothing set yet. NULL with errno set. */
struct frecd_bpf_filter *frecd_bpf_filter__new(void);
void frecd_bpf_filter__free(struct frecd_bpf_filter *f);

/* Whether the map takes npids tgids: 0, or -E2BIG with the limit in err. */
int frecd_bpf_filter__check(size_t npids, char *err, size_t errlen);

/* Make the map map_fd hold exactly pids (npids tgids, at most what
 * frecd_bpf_filter__check() allows). 0, or -errno with err filled; then the
 * map holds the new tgids added so far and the old ones not yet removed. */
int frecd_bpf_filter__set(struct frecd_bpf_filter *f, int map_fd, const __u32 *pids,
			  size_t npids, char *err, size_t errlen);

/* A new, empty map takes over: nothing in it was set. */
void frecd_bpf_filter__reset(struct frecd_bpf_filter *f);

/* The tgids as last set: *n of them, valid until the next set. */
const __u32 *frecd_bpf_filter__pids(const struct frecd_bpf_filter *f, size_t *n);

/* Whether the map takes n cgroups: 0, or -E2BIG with the limit in err. */
int frecd_bpf_filter__check_cgroups(size_t n, char *err, size_t errlen);

/* Make the array map_fd hold exactly cgroups (n entries, ids not 0, at
 * most FREC_MAX_CGROUP_FILTER). 0, or -errno with err filled. */
int frecd_bpf_filter__set_cgroups(struct frecd_bpf_filter *f, int map_fd,
				  const struct frec_cgroup_filter *cgroups, size_t n, char *err,
				  size_t errlen);

/* The cgroups as last set: *n of them, valid until the next set. */
const struct frec_cgroup_filter *frecd_bpf_filter__cgroups(const struct frecd_bpf_filter *f,
							   size_t *n);

#endif /* FRECD_BPF_FILTER_H */
