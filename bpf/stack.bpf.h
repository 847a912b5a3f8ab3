/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stacks (--stacks): the kernel and user stacks of the thread a record is
 * about, as a struct frec_rec_stack (include/frec/record.h) written into
 * the same CPU's ring right after that record, with its h.ts, h.tid and
 * h.cpu, so that frecd's recorder can attach it to that record and to no
 * other. For frec.bpf.c's sched_switch (the blocked prev, which is still
 * current there) and probe.bpf.c's hits (the user stack only: the kernel
 * one would be the uprobe path).
 *
 * The frames are captured into a per-CPU scratch, then copied into the ring
 * by bpf_ringbuf_output() with the size of the frames captured: a record
 * reserved for the full depth of both kinds would be 2 KiB of ring for
 * every blocking switch. A capture that fails leaves that kind with 0
 * frames, sets its FREC_STACK_*_ERR bit and counts FREC_CNT_STACK_ERR; a
 * record that finds no room in the ring is counted as a drop
 * (counters.bpf.h), as every other record is.
 *
 * Each object has its own scratch map. frec.bpf.c's is used by the
 * sched_switch programs alone, which run with interrupts off and never nest
 * on a CPU. probe.bpf.c's is used by probe programs, which may be preempted
 * (they run with only migration disabled) by another thread that hits a
 * probe on the same CPU: stack_emit_probe() detects that the
 * scratch changed hands during a capture, and the stack is then counted as
 * failed rather than written with another thread's frames. (A preemption
 * inside the final copy itself is not detected; it needs two preemptions
 * of probe programs on one CPU within a few hundred nanoseconds.)
 *
 * Knob, set by frecd between open and load: stack_depth, frames of each
 * kind (1..FREC_MAX_STACK_DEPTH). Whether stacks are captured at all is
 * the including object's knob, tested by its callers, so that with stacks
 * off the verifier drops every instruction of this file.
 *
 * Expects vmlinux.h, bpf_helpers.h and bpf_core_read.h first.
 */
#ifndef FREC_STACK_BPF_H
#define FREC_STACK_BPF_H

#include "frec/record.h"
#include "ring.bpf.h"
#include "task.bpf.h"

const volatile __u32 stack_depth = FREC_DEFAULT_STACK_DEPTH;
/*
 * Frames of the kernel stack that are the tracing path itself (this
 * program, bpf_trace_run*, the tracepoint's iterator), skipped by
 * bpf_get_stack(): how many depends on the kernel's build, so frecd counts
 * them in the first stacks it reads and writes this while the programs run
 * (and into each new set before it loads). Not a knob: read-write data.
 */
__u32 stack_kskip = 0;


/* A record and room for the most frames of both kinds after it. */
#define STACK_REC_MAX	(sizeof(struct frec_rec_stack) + 2 * FREC_MAX_STACK_DEPTH * sizeof(__u64))

struct stack_scratch {
	__u64 owner;		/* the thread capturing into it (probes only) */
	__u64 rec[STACK_REC_MAX / sizeof(__u64)];	/* a struct frec_rec_stack */
};

#define STACK_REC(s)	((struct frec_rec_stack *)(s)->rec)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_scratch);
} stack_scratch SEC(".maps");

/* The depth as the verifier sees it: a constant in 1..FREC_MAX_STACK_DEPTH. */
static __always_inline __u32 stack_frames(void)
{
	__u32 d = stack_depth;

	if (d < 1 || d > FREC_MAX_STACK_DEPTH)
		d = FREC_DEFAULT_STACK_DEPTH;
	return d;
}

static __always_inline struct stack_scratch *stack_scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stack_scratch, &zero);
}

/* Take the scratch for thread tid (probes: see the header comment). */
static __always_inline void stack_claim(struct stack_scratch *s, __u64 tid)
{
	s->owner = tid;
}

/* Still tid's: nothing else captured into it since stack_claim(). */
static __always_inline bool stack_owned(const struct stack_scratch *s, __u64 tid)
{
	return *(volatile const __u64 *)&s->owner == tid;
}

/*
 * One kind of stack into s->ips from frame `at` on: the number of frames,
 * 0 with err set into STACK_REC(s)->flags (and counted) on failure.
 */
static __always_inline __u32 stack_capture(void *ctx, struct stack_scratch *s, __u32 at,
					   __u64 flags, __u32 err)
{
	__u32 depth = stack_frames();
	long ret;

	if (at > FREC_MAX_STACK_DEPTH)
		return 0;
	ret = bpf_get_stack(ctx, &STACK_REC(s)->ips[at], depth * sizeof(__u64), flags);
	if (ret < 0) {
		STACK_REC(s)->flags |= err;
		count(FREC_CNT_STACK_ERR);
		return 0;
	}
	ret /= sizeof(__u64);
	return ret > depth ? depth : ret;
}

/*
 * Which program current runs (task_program()): the stacked thread is
 * current in both callers. Through bpf_get_current_task() and probe reads
 * on every kernel (bpf_get_current_task_btf() is 5.11's): a few reads
 * beside captures that take microseconds.
 */
static __always_inline void stack_image(struct stack_scratch *s)
{
	task_program((struct task_struct *)bpf_get_current_task(), false,
		     &STACK_REC(s)->proc_start_ns, &STACK_REC(s)->exec_id);
}

/*
 * Write s->rec (its frames captured, its header to be filled here) to this
 * CPU's ring as the stack of the record (ts, tid, tgid) just submitted.
 * The consumer's wakeup follows ring_submit()'s rule.
 */
static __always_inline void stack_output(struct stack_scratch *s, __u64 ts, __u32 tid,
					 __u32 tgid, __u32 kframes, __u32 uframes)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 size;
	void *rb;

	if (kframes > FREC_MAX_STACK_DEPTH || uframes > FREC_MAX_STACK_DEPTH)
		return;
	size = sizeof(struct frec_rec_stack) + (kframes + uframes) * sizeof(__u64);
	STACK_REC(s)->h.ts = ts;
	STACK_REC(s)->h.tid = tid;
	STACK_REC(s)->h.tgid = tgid;
	STACK_REC(s)->h.type = FREC_EV_STACK;
	STACK_REC(s)->h.cpu = cpu;
	STACK_REC(s)->h.size = size;
	STACK_REC(s)->kframes = kframes;
	STACK_REC(s)->uframes = uframes;
	stack_image(s);
	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb) {
		count_drop();
		return;
	}
	/* rec and ips are contiguous: the record is one copy */
	if (bpf_ringbuf_output(rb, s->rec, size, ring_wakeup_flags(size)))
		count_drop();
}

/*
 * The blocked prev's stacks at sched_switch (current is still prev):
 * kernel, then user unless prev has no user side (a kernel thread).
 */
static __always_inline void stack_emit_offcpu(void *ctx, __u64 ts, __u32 tid, __u32 tgid,
					 bool user)
{
	struct stack_scratch *s = stack_scratch_get();
	__u32 k, u = 0;

	if (!s)
		return;
	STACK_REC(s)->flags = 0;
	k = stack_capture(ctx, s, 0, stack_kskip & BPF_F_SKIP_FIELD_MASK, FREC_STACK_KERN_ERR);
	if (user)
		u = stack_capture(ctx, s, k, BPF_F_USER_STACK, FREC_STACK_USER_ERR);
	stack_output(s, ts, tid, tgid, k, u);
}

/* The user stack of the current thread at a probe hit (ctx: its pt_regs). */
static __always_inline void stack_emit_probe(void *ctx, __u64 ts)
{
	struct stack_scratch *s = stack_scratch_get();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 u;

	if (!s)
		return;
	stack_claim(s, id);
	STACK_REC(s)->flags = 0;
	u = stack_capture(ctx, s, 0, BPF_F_USER_STACK, FREC_STACK_USER_ERR);
	if (!stack_owned(s, id)) {
		/* another hit on this CPU took the scratch meanwhile: its
		 * frames, or a mix, are not this hit's */
		count(FREC_CNT_STACK_ERR);
		STACK_REC(s)->flags = FREC_STACK_USER_ERR;
		u = 0;
	}
	stack_output(s, ts, (__u32)id, id >> 32, 0, u);
}

#endif /* FREC_STACK_BPF_H */
