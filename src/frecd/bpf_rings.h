/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's BPF ring buffers: one BPF_MAP_TYPE_RINGBUF per possible CPU, each
 * an equal power-of-two share of --ring-size (at least a page), made once at
 * start. Every set of programs writes into them through an array of rings
 * (the programs' `rings` map): the scheduler programs (loader.c) in both
 * attempts (tp_btf, raw_tp) and after every reload, and the probes
 * (probe_attach.c). ring.h reads them. Also the rule both sets of programs
 * wake the loop by.
 *
 * Made and freed on main's thread; read-only afterwards, so any thread may
 * call the accessors.
 */
#ifndef FRECD_BPF_RINGS_H
#define FRECD_BPF_RINGS_H

#include <stddef.h>
#include <linux/types.h>

struct frecd_bpf_rings;

/* total: all CPUs' rings together. NULL with errno set, and the cause and
 * the fix in err (a refusal for want of privileges: caps.h). */
struct frecd_bpf_rings *frecd_bpf_rings__new(__u64 total, char *err, size_t errlen);
void frecd_bpf_rings__free(struct frecd_bpf_rings *r);

/* The rings' map fds, *n of them (CPU i's is the i-th), *bytes each. */
const int *frecd_bpf_rings__fds(const struct frecd_bpf_rings *r, size_t *n, __u64 *bytes);

/* Put every CPU's ring into a set of programs' array map (array_fd): before
 * any of them is attached, since a CPU without one counts its records as
 * dropped. 0 or -errno with err filled. */
int frecd_bpf_rings__fill(const struct frecd_bpf_rings *r, int array_fd, char *err,
			  size_t errlen);

/*
 * The programs' wakeup threshold for rings of ring_bytes each (0: not
 * known): FREC_WAKEUP_THRESHOLD, or a quarter of a smaller ring, so that a
 * wakeup comes well before the ring is full.
 */
__u64 frecd_bpf_rings__wakeup_threshold(__u64 ring_bytes);

#endif /* FRECD_BPF_RINGS_H */
