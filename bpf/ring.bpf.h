/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frec's ring buffers as its BPF programs see them, shared by frec.bpf.c and
 * probe.bpf.c: one BPF ring buffer per CPU, in an array of maps indexed by
 * CPU number; a record that finds no room is counted (counters.bpf.h).
 *
 * Why per CPU: with one ring shared by all CPUs every record takes the
 * ring's spinlock and moves its producer position's cache line between
 * CPUs. On a context-switch benchmark that contention was most of frec's
 * cost. A CPU's ring is written by that CPU only, so records in it are in
 * time order, which is what lets frecd cut every ring at one timestamp
 * when it seals a generation (src/frecd/ring.c).
 *
 * frecd sizes the array (possible CPUs) and the template ring before load,
 * creates one ring per CPU and puts it into the array before it attaches
 * any program. probe.bpf.c gets frecd's maps with bpf_map__reuse_fd(): its
 * definitions here are placeholders of the same shape.
 *
 * A program reserves, fills the record's own fields and submits, all in
 * one run: ring_reserve() then ring_submit(). A record that others follow
 * with its time (a stack, a trigger's firing) is submitted after them:
 * they lie behind it in the ring, and frecd, which waits at a cut for a
 * reserved record stamped before it, takes them all in the same drain.
 * Submitted first, a drain could take it alone, and a seal at that cut
 * would make the followers late (lost).
 */
#ifndef FREC_RING_BPF_H
#define FREC_RING_BPF_H

#include "frec/record.h"
#include "frec.h"
#include "counters.bpf.h"

/* Submit without waking the consumer unless this much waits (frec.h);
 * frecd lowers it to a quarter of a small ring. */
const volatile __u64 wakeup_threshold = FREC_WAKEUP_THRESHOLD;

struct frec_ring_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);		/* frecd sets the real size */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);			/* frecd sets: possible CPUs */
	__type(key, __u32);
	__array(values, struct frec_ring_map);
} rings SEC(".maps");

/*
 * A record of size bytes in this CPU's ring, its header filled in for the
 * thread tid of process tgid (the type's fields are the caller's), or NULL,
 * counted as a drop, to hand to ring_submit(). For callers that have
 * the current thread's ids at hand (sched_switch: current is prev), which
 * saves a helper call; the rest use ring_reserve().
 */
static __always_inline void *ring_reserve_as(__u32 size, __u16 type, __u32 tid, __u32 tgid)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct frec_rec_hdr *h;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb) {	/* a CPU frecd made no ring for */
		count_drop();
		return NULL;
	}
	h = bpf_ringbuf_reserve(rb, size, 0);
	if (!h) {
		count_drop();
		return NULL;
	}
	/* The time after the reserve: a CPU's records are then in time order
	 * in its ring, which frecd's cut at seal time relies on. */
	h->ts = bpf_ktime_get_boot_ns();
	h->tid = tid;
	h->tgid = tgid;
	h->type = type;
	h->cpu = cpu;
	h->size = size;
	return h;
}

/* ring_reserve_as() for the current thread. */
static __always_inline void *ring_reserve(__u32 size, __u16 type)
{
	__u64 id = bpf_get_current_pid_tgid();

	return ring_reserve_as(size, type, (__u32)id, id >> 32);
}

/*
 * The flags to submit a record of size bytes with: no wakeup per record
 * (see FREC_WAKEUP_THRESHOLD), but one each time this CPU has written
 * another wakeup_threshold bytes to its ring. Not one per record past a
 * fill level: a forced wakeup costs an irq_work, several microseconds in a
 * VM, and while frecd lags (descheduled, or busy) every record would pay
 * it, exactly when the machine is busiest.
 *
 * Counted in a per-CPU slot rather than asked of the ring: the ring's
 * fill level (bpf_ringbuf_query()) is a helper call that reads the
 * consumer's position, which frecd writes from another CPU, and cost
 * about 22 ns a record here, a tenth of the program (bench/floor.bpf.c,
 * "query" against "wide"). Bytes written bound bytes waiting, so a burst
 * still wakes frecd at least every threshold's worth. The slot's update
 * is a plain load and store: a program nested on this CPU can lose the
 * other's bytes, which moves one wakeup by a record, never skips a
 * threshold's worth of them.
 */
static __always_inline __u64 ring_wakeup_flags(__u32 size)
{
	__u64 *w = counter(FREC_CNT_RING_BYTES);
	__u64 thr = wakeup_threshold, n;

	if (!w || !thr)
		return BPF_RB_NO_WAKEUP;
	n = *w + ((size + 8 + 7) & ~7u);	/* + the ring's header, padded */
	if (n < thr) {
		*w = n;
		return BPF_RB_NO_WAKEUP;
	}
	*w = 0;
	return BPF_RB_FORCE_WAKEUP;
}

static __always_inline void ring_submit(void *rec)
{
	bpf_ringbuf_submit(rec, ring_wakeup_flags(((struct frec_rec_hdr *)rec)->size));
}

#endif /* FREC_RING_BPF_H */
