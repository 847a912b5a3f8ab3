/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's BPF ring buffers: one BPF_MAP_TYPE_RINGBUF per CPU online at
 * start, each an equal power-of-two share of --ring-size but no less than
 * --ring-min (which then raises the total), made once at start. A CPU that
 * comes online later has no ring: its records are counted as dropped on it
 * (bpf/ring.bpf.h) and frecd says once that a restart records it
 * (frecd_bpf_rings__check_online()). Every set of programs writes into
 * them through an array of rings, one slot per possible CPU,
 * (the programs' `rings` map): the scheduler programs (loader.c) in both
 * attempts (tp_btf, raw_tp) and after every reload, and the probes
 * (probe_attach.c). ring.h reads them. Also the rule both sets of programs
 * wake the loop by.
 *
 * Made and freed on main's thread; read-only afterwards (but for
 * frecd_bpf_rings__check_online(), the loop's), so any thread may call the
 * other accessors.
 */
#ifndef FRECD_BPF_RINGS_H
#define FRECD_BPF_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frecd_bpf_rings;

/*
 * Each ring's size, pure: total (--ring-size) shared among nonline CPUs of
 * npossible, rounded down to a power of two, at least floor (--ring-min,
 * rounded up to a power of two) and at least a page. 0 when nonline is 0 or
 * more than npossible. The rings then take nonline times that, which is
 * more than total when the floor raised it.
 */
__u64 frecd_bpf_rings__share(size_t nonline, size_t npossible, __u64 total, __u64 floor,
			     __u64 page);

/*
 * A CPU list as the kernel writes it in sysfs ("0-3,8,10-11\n") into
 * set, one bool per CPU below n (CPUs at or above n are ignored). The number
 * of CPUs set, or -EINVAL for a malformed list. Pure.
 */
int frecd_bpf_rings__parse_cpus(const char *list, bool *set, size_t n);

/* total: all CPUs' rings together (--ring-size), floor: the least a CPU's
 * ring gets (--ring-min). NULL with errno set, and the cause and the fix in
 * err (a refusal for want of privileges: caps.h). */
struct frecd_bpf_rings *frecd_bpf_rings__new(__u64 total, __u64 floor, char *err, size_t errlen);
void frecd_bpf_rings__free(struct frecd_bpf_rings *r);

/* The rings' map fds, *n of them (one per CPU online at start, in CPU
 * order), *bytes each. */
const int *frecd_bpf_rings__fds(const struct frecd_bpf_rings *r, size_t *n, __u64 *bytes);
/* The slots of the programs' array: the possible CPUs. */
size_t frecd_bpf_rings__slots(const struct frecd_bpf_rings *r);

/* The rings' shape, for the log and frec status. */
struct frecd_bpf_rings_info {
	__u32 cpus;		/* rings: CPUs online at start */
	__u32 possible;		/* CPUs the kernel may bring online */
	__u64 each;		/* bytes a ring */
	__u64 total;		/* cpus * each: what the rings take */
	__u64 asked;		/* --ring-size */
	__u64 floor;		/* --ring-min */
	__u32 late_cpus;	/* CPUs online now that have no ring */
};
void frecd_bpf_rings__info(const struct frecd_bpf_rings *r, struct frecd_bpf_rings_info *info);

/*
 * Read the online CPUs again (a small sysfs file): a CPU online now that
 * has no ring gets one clear line in the log, once, saying that frecd must
 * be restarted to record it. The number of such CPUs. The loop's thread,
 * on its tick.
 */
__u32 frecd_bpf_rings__check_online(struct frecd_bpf_rings *r);

/* Put every ring into its CPU's slot of a set of programs' array map
 * (array_fd): before any of them is attached, since a CPU without one counts
 * its records as dropped. 0 or -errno with err filled. */
int frecd_bpf_rings__fill(const struct frecd_bpf_rings *r, int array_fd, char *err,
			  size_t errlen);

/*
 * The programs' wakeup threshold for rings of ring_bytes each: a quarter
 * of the ring (FREC_WAKEUP_SHARE), so that a wakeup comes well before the
 * ring is full (0, not known: FREC_WAKEUP_THRESHOLD).
 */
__u64 frecd_bpf_rings__wakeup_threshold(__u64 ring_bytes);

#endif /* FRECD_BPF_RINGS_H */
