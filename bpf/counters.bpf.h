/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frec's per-CPU counters (enum frec_counter, include/frec/record.h) as its
 * BPF programs see them: the records that found no room in the ring, with
 * the times of the first and latest such drop, and the events a filter left
 * out. frecd reads and resets them; probe.bpf.c gets frecd's map with
 * bpf_map__reuse_fd(), so the definition here is a placeholder of the same
 * shape there.
 *
 * Any program may call these, from any context, nested or not: see below.
 * Like every header here, it expects vmlinux.h and bpf_helpers.h first.
 */
#ifndef FREC_COUNTERS_BPF_H
#define FREC_COUNTERS_BPF_H

#include "frec/record.h"

/* enum frec_counter, per CPU. The kernel keeps no count of failed
 * reserves, so this is the only record of drops. Per CPU is not enough to
 * make a plain increment safe: programs nest on a CPU (a hard-IRQ
 * sched_waking interrupts a uprobe or exec program, and uprobe programs
 * run with only migration disabled, so they can even be preempted), and a
 * nested program's increment between the outer one's load and store would
 * be lost. Adds are atomic (BPF_ATOMIC_ADD, without fetch: every kernel
 * since 5.10 has it). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FREC_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline __u64 *counter(__u32 which)
{
	return bpf_map_lookup_elem(&counters, &which);
}

static __always_inline void count(__u32 which)
{
	__u64 *c = counter(which);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/*
 * A record that found no room: counted, and its time kept, so that the
 * snapshot shows where the gap was rather than when frecd noticed it.
 * frecd sets FIRST_TS to 0 after each read; the first drop after that
 * sets it. The times are plain stores: a nested drop between the test and
 * the store can move first_ts later, or last_ts earlier, by the nested
 * program's run time, never outside the span of the drops themselves.
 */
static __always_inline void count_drop(void)
{
	__u64 ts = bpf_ktime_get_boot_ns();
	__u64 *first = counter(FREC_CNT_DROP_FIRST_TS);
	__u64 *last = counter(FREC_CNT_DROP_LAST_TS);

	count(FREC_CNT_DROPPED);
	if (first && !*first)
		*first = ts;
	if (last && *last < ts)
		*last = ts;
}

#endif /* FREC_COUNTERS_BPF_H */
