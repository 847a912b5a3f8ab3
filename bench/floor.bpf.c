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
 *   wide   the records frecd writes instead, with the same fields read
 *          from the same tasks (96 bytes a switch with both comms, 56 a
 *          waking with one), but nothing else: no filter, no cgroup, no
 *          per-CPU ring lookup, no fill query; what is left between it
 *          and frecd is what frecd does beyond the record
 *   query  wide, and the fill query frecd makes before each submit
 *          (bpf_ringbuf_query(), to wake its reader at a threshold)
 *
 * ring, wide and query are steps apart by one thing each, so that what
 * one costs is the difference between two of them in the same run (the
 * system benchmark's "bpfcost" section prints ns per run of each).
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

/* The shapes of frecd's sched_switch and sched_waking records
 * (include/frec/record.h), spelled out here so that the floor builds
 * alone. */
struct wide_switch {
	__u64 ts;
	__u32 tid, tgid;
	__u16 type, cpu;
	__u32 size;
	__u32 prev_pid, prev_tgid, next_pid, next_tgid;
	__s32 prev_prio, next_prio;
	__u64 prev_state;
	char prev_comm[16], next_comm[16];
	__u64 next_cgroup;
};

struct wide_wake {
	__u64 ts;
	__u32 tid, tgid;
	__u16 type, cpu;
	__u32 size;
	__u32 pid, tgid2;
	__s32 prio, target_cpu;
	char comm[16];
};

static __always_inline void copy_comm(char *dst, struct task_struct *p)
{
	((__u64 *)dst)[0] = *(const __u64 *)&p->comm[0];
	((__u64 *)dst)[1] = *(const __u64 *)&p->comm[8];
}

/* frecd's submit (bpf/ring.bpf.h, ring_submit()): a wakeup only where
 * the waiting bytes cross a threshold, which never happens here (the
 * threshold is far above what a drain every DRAIN_MS leaves). */
static __always_inline void wide_submit(void *r, __u32 size, const bool query)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (query) {
		__u64 avail = bpf_ringbuf_query(&floor_ring, BPF_RB_AVAIL_DATA);
		__u64 thr = 1ull << 40, bytes = (size + 8 + 7) & ~7u;

		if (avail >= thr && avail / thr != (avail - bytes) / thr)
			flags = BPF_RB_FORCE_WAKEUP;
	}
	bpf_ringbuf_submit(r, flags);
	ring_records++;
}

static __always_inline int wide_switch_once(struct task_struct *prev, struct task_struct *next,
					    const bool query)
{
	struct wide_switch *r = bpf_ringbuf_reserve(&floor_ring, sizeof(*r), 0);

	if (!r) {
		ring_full++;
		return 0;
	}
	r->ts = bpf_ktime_get_boot_ns();
	r->tid = prev->pid;
	r->tgid = prev->tgid;
	r->type = 1;
	r->cpu = bpf_get_smp_processor_id();
	r->size = sizeof(*r);
	r->prev_pid = r->tid;
	r->prev_tgid = r->tgid;
	r->next_pid = next->pid;
	r->next_tgid = next->tgid;
	r->prev_prio = prev->prio;
	r->next_prio = next->prio;
	r->prev_state = prev->__state;
	copy_comm(r->prev_comm, prev);
	copy_comm(r->next_comm, next);
	r->next_cgroup = 0;
	wide_submit(r, sizeof(*r), query);
	return 0;
}

static __always_inline int wide_wake_once(struct task_struct *p, const bool query)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct wide_wake *r = bpf_ringbuf_reserve(&floor_ring, sizeof(*r), 0);

	if (!r) {
		ring_full++;
		return 0;
	}
	r->ts = bpf_ktime_get_boot_ns();
	r->tid = (__u32)id;
	r->tgid = id >> 32;
	r->type = 2;
	r->cpu = bpf_get_smp_processor_id();
	r->size = sizeof(*r);
	r->pid = p->pid;
	r->tgid2 = p->tgid;
	r->prio = p->prio;
	r->target_cpu = p->thread_info.cpu;
	copy_comm(r->comm, p);
	wide_submit(r, sizeof(*r), query);
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

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_wide_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return wide_switch_once(prev, next, false);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(fl_wide_waking, struct task_struct *p)
{
	return wide_wake_once(p, false);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_query_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return wide_switch_once(prev, next, true);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(fl_query_waking, struct task_struct *p)
{
	return wide_wake_once(p, true);
}
