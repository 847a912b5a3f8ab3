// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "../../bpf/frec.h"
#include "frecd/bpf_filter.h"

struct frecd_bpf_filter {
	__u32 pids[FREC_MAX_PID_FILTER];	/* the map's keys, as set */
	size_t npids;
};

struct frecd_bpf_filter *frecd_bpf_filter__new(void)
{
	return calloc(1, sizeof(struct frecd_bpf_filter));
}

void frecd_bpf_filter__free(struct frecd_bpf_filter *f)
{
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
}

const __u32 *frecd_bpf_filter__pids(const struct frecd_bpf_filter *f, size_t *n)
{
	*n = f->npids;
	return f->pids;
}
