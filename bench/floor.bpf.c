// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor programs of the system benchmark (bench/bench_system.py): what
 * the cheapest honest recorder on sched_switch and sched_waking costs, to
 * measure frecd's programs against in the same paired rounds.
 *
 *   empty  returns at once: the cost of a tp_btf program being there
 *   clock  reads bpf_ktime_get_boot_ns(), as every timestamped record must
 *   ring   also reserves, fills and submits a 32-byte ringbuf record,
 *          without a wakeup (the consumer drains on a timer, as frecd
 *          does: a wakeup per record would add switches to the workload)
 *
 * bench/floor.c attaches one pair. The counters are plain globals, not
 * atomics nor per-CPU maps: the workload runs on one CPU, and they only
 * need to say that the programs ran (a lost increment does not matter),
 * at the price of one store.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct floor_rec {
	__u64 ts;
	__u32 cpu_or_pid;
	__u32 kind;
	__u64 a;
	__u64 b;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} floor_ring SEC(".maps");

__u64 clock_runs;
__u64 clock_last;
__u64 ring_records;
__u64 ring_full;

static __always_inline int clock_once(void)
{
	clock_last = bpf_ktime_get_boot_ns();
	clock_runs++;
	return 0;
}

static __always_inline int ring_once(__u32 kind, __u32 pid)
{
	struct floor_rec *r;
	__u64 ts = bpf_ktime_get_boot_ns();

	r = bpf_ringbuf_reserve(&floor_ring, sizeof(*r), 0);
	if (!r) {
		ring_full++;
		return 0;
	}
	r->ts = ts;
	r->cpu_or_pid = pid;
	r->kind = kind;
	r->a = 0;
	r->b = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	ring_records++;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_empty_switch)
{
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(fl_empty_waking)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_clock_switch)
{
	return clock_once();
}

SEC("tp_btf/sched_waking")
int BPF_PROG(fl_clock_waking)
{
	return clock_once();
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_ring_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return ring_once(1, next->pid);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(fl_ring_waking, struct task_struct *p)
{
	return ring_once(2, p->pid);
}
