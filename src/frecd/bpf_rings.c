// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../../bpf/frec.h"
#include "frecd/bpf_rings.h"
#include "frecd/caps.h"
#include "frecd/log.h"

struct frecd_bpf_rings {
	int *fds;		/* one ring per possible CPU */
	size_t n;
	__u64 bytes;		/* each */
};

struct frecd_bpf_rings *frecd_bpf_rings__new(__u64 total, char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	int ncpus = libbpf_num_possible_cpus();
	struct frecd_bpf_rings *r;
	__u64 each;
	size_t i;
	int ret;

	if (ncpus <= 0) {
		snprintf(err, errlen, "cannot count the possible CPUs: %s", strerror(-ncpus));
		errno = ncpus ? -ncpus : EINVAL;
		return NULL;
	}
	for (each = (__u64)page; each * 2 <= total / ncpus; each *= 2)
		;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fds = calloc(ncpus, sizeof(*r->fds));
	if (!r->fds) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->bytes = each;
	for (i = 0; i < (size_t)ncpus; i++, r->n++) {
		r->fds[i] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "frec_ring", 0, 0, each, NULL);
		if (r->fds[i] < 0) {
			ret = r->fds[i];
			if (ret == -EPERM)
				frecd_caps__error(err, errlen);
			else
				snprintf(err, errlen, "cannot create a %llu-byte BPF ring buffer for CPU %zu: %s%s",
					 (unsigned long long)each, i, strerror(-ret),
					 ret == -ENOMEM ? ": lower --ring-size" : "");
			frecd_bpf_rings__free(r);
			errno = -ret;
			return NULL;
		}
	}
	log_debug("%zu ring buffers of %llu bytes, one per CPU", r->n, (unsigned long long)each);
	return r;
}

void frecd_bpf_rings__free(struct frecd_bpf_rings *r)
{
	if (!r)
		return;
	while (r->n)
		close(r->fds[--r->n]);
	free(r->fds);
	free(r);
}

const int *frecd_bpf_rings__fds(const struct frecd_bpf_rings *r, size_t *n, __u64 *bytes)
{
	*n = r->n;
	*bytes = r->bytes;
	return r->fds;
}

int frecd_bpf_rings__fill(const struct frecd_bpf_rings *r, int array_fd, char *err,
			  size_t errlen)
{
	__u32 i;

	for (i = 0; i < r->n; i++)
		if (bpf_map_update_elem(array_fd, &i, &r->fds[i], BPF_ANY)) {
			snprintf(err, errlen, "cannot hand the ring buffers to the programs: %s",
				 strerror(errno));
			return -errno;
		}
	return 0;
}

__u64 frecd_bpf_rings__wakeup_threshold(__u64 ring_bytes)
{
	if (ring_bytes && ring_bytes / 4 < FREC_WAKEUP_THRESHOLD)
		return ring_bytes / 4;
	return FREC_WAKEUP_THRESHOLD;
}
