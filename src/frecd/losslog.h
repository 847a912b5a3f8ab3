/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How frecd warns that it lost something, without flooding the log when it
 * loses all the time: each kind of loss is a count that only grows, and a
 * warning names its increase since the last one: the first at once, then at
 * most one every FRECD_LOSSLOG_INTERVAL_NS; a forced one (at the end) says
 * what is left. The kinds:
 *  - drops: events the BPF side found no room for in its ring (the ring
 *    was full: the loop fell behind), with the longest wait between drains;
 *  - discards: events the recorder found no memory for (a snapshot held
 *    the window);
 *  - proc misses: execs whose command line the /proc reader's queue had no
 *    room for.
 * The snapshots count every lost event; these lines only say so.
 *
 * The state is the caller's, one struct per kind, and so is the clock (any
 * clock, the same for one struct). Threads: whichever owns the struct; in
 * frecd all three are the loop's.
 */
#ifndef FRECD_LOSSLOG_H
#define FRECD_LOSSLOG_H

#include <stdbool.h>
#include <linux/types.h>

#define FRECD_LOSSLOG_INTERVAL_NS	(5ull * 1000000000)

struct frecd_losslog {
	__u64 logged;		/* the count as of the last warning */
	__u64 logged_at;	/* when, 0: never */
	__u64 gap_max_ns;	/* drops: the longest wait between drains since */
};

/* A wait of gap_ns between two drains, for the next drop warning. */
void frecd_losslog__drain_gap(struct frecd_losslog *l, __u64 gap_ns);

/* lost: records dropped since start; ring_bytes: --ring-size, for the fix. */
void frecd_losslog__drops(struct frecd_losslog *l, __u64 lost, __u64 now, bool force,
			  __u64 ring_bytes);
/* discarded: the recorder's events_discarded; max_bytes: --max-size. */
void frecd_losslog__discards(struct frecd_losslog *l, __u64 discarded, __u64 now, bool force,
			     __u64 max_bytes);
/* misses: requests dropped since start; queue: how many the queue holds. */
void frecd_losslog__proc_misses(struct frecd_losslog *l, __u64 misses, __u64 now,
				unsigned int queue);

#endif /* FRECD_LOSSLOG_H */
