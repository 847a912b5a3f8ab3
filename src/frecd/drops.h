/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Lost events. The BPF programs count every failed ring buffer reserve per
 * CPU (FREC_CNT_DROPPED); the kernel keeps no count. Each drain reads the
 * counters and hands the increase on each CPU to the recorder, which writes
 * it as lost-events records into the open generation. The programs the
 * kernel itself skipped (recursion.h) are polled here too, more rarely.
 *
 * Threads: the loop's thread only.
 */
#ifndef FRECD_DROPS_H
#define FRECD_DROPS_H

#include <linux/types.h>

struct frec_recorder;
struct frecd_drops;

/* NULL with errno set. */
struct frecd_drops *frecd_drops__new(int counters_fd);
void frecd_drops__free(struct frecd_drops *d);

/* Read the counters; report increases to rec at time now. Returns the number
 * of records lost since the previous call, or -errno. At most once a second
 * (a system call per program), also the programs' recursion misses
 * (recursion.h), which are not in the returned number. */
long long frecd_drops__poll(struct frecd_drops *d, struct frec_recorder *rec, __u64 now);
/* The recursion misses now, whenever the last poll was: before a snapshot
 * seals the generation, and at the end. */
void frecd_drops__poll_recursion(struct frecd_drops *d, struct frec_recorder *rec, __u64 now);
/* Records lost since start, summed over CPUs. */
__u64 frecd_drops__total(const struct frecd_drops *d);
/* Records lost since start on each CPU: *ncpus entries, valid while d lives. */
const __u64 *frecd_drops__by_cpu(const struct frecd_drops *d, __u32 *ncpus);
/* Events the -p filter skipped since start (not losses). */
__u64 frecd_drops__filtered(struct frecd_drops *d);
/* Stack captures that failed since start (FREC_CNT_STACK_ERR), summed. */
__u64 frecd_drops__stack_errors(struct frecd_drops *d);

#endif /* FRECD_DROPS_H */
