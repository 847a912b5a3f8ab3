// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Perfetto trace's per-CPU FtraceEventBundles (perfetto.h): every event
 * frec recorded on a CPU goes into that CPU's bundle, flushed as one packet
 * when it is full, when records were lost and at a generation's end.
 *
 * sched_switch and sched_waking go in the compact_sched arrays (timestamps
 * delta-encoded, comms interned per bundle), the other scheduler events as
 * full FtraceEvents (and perfetto_tasks.c's task events, through
 * pexport__event_begin()); a bundle following lost records has lost_events
 * set.
 *
 * Switches: trace_processor takes a compact switch's prev from the switch
 * before it on the CPU (and skips the first compact switch of each CPU of
 * the trace, having none). So a switch is written as a full
 * FtraceEvent.sched_switch, with the prev the kernel named, when what
 * trace_processor would infer is not that prev: the first switch of each CPU,
 * the first after records were lost, and a broken chain (cpu_chain.h). At a
 * break the run of the thread switched in ends at its last event seen on the
 * CPU with a switch to the idle task written there (state R: frec does not
 * know it), so that the CPU shows nothing where nothing is known; the kernel's
 * switch follows, which trace_processor counts in its stats as
 * mismatched_sched_switch_tids. After lost records, a run that the next
 * switch does not continue ends the same way, at the loss.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "percpu.h"
#include "perfetto.h"
#include "walk.h"

/* FtraceEventBundle */
#define FB_CPU			1
#define FB_EVENT		2
#define FB_LOST_EVENTS		3
#define FB_COMPACT_SCHED	4
/* CompactSched */
#define CS_SWITCH_TS		1
#define CS_SWITCH_PREV_STATE	2
#define CS_SWITCH_NEXT_PID	3
#define CS_SWITCH_NEXT_PRIO	4
#define CS_INTERN_TABLE		5
#define CS_SWITCH_NEXT_COMM	6
#define CS_WAKING_TS		7
#define CS_WAKING_PID		8
#define CS_WAKING_TARGET_CPU	9
#define CS_WAKING_PRIO		10
#define CS_WAKING_COMM		11
/* FtraceEvent and its scheduler events */
#define FE_TIMESTAMP		1
#define FE_PID			2
#define FE_SCHED_SWITCH		4
#define FE_SCHED_WAKEUP		17
#define FE_SCHED_WAKEUP_NEW	114
#define FE_MIGRATE_TASK		491

/* Keep packets of moderate size: flush a CPU's bundle at this many events. */
#define BUNDLE_MAX_EVENTS	16384

/* Comms are at most 15 bytes: an interned comm is its 16 bytes zero-padded,
 * compared and hashed as two words. */
struct comm_key {
	uint64_t a, b;
};

struct intern {
	struct comm_key *keys;
	__u32 n, cap;
	__u32 *slots;		/* index + 1, 0 = empty */
	__u32 nslots;		/* power of two */
};

struct pbundle {
	struct frec_pb sw_ts, sw_state, sw_pid, sw_prio, sw_comm;
	struct frec_pb wk_ts, wk_pid, wk_cpu, wk_prio, wk_comm;
	struct frec_pb events;	/* FtraceEvent messages, tagged as field 2 */
	__u64 last_sw, last_wk;
	__u32 nsw, nwk, nev;
	bool lost;		/* records were lost before this bundle's events */
	bool used;
	/* what trace_processor takes as the CPU's current thread after what
	 * was written: the next of the last switch */
	bool tp_known;
	__u32 tp_pid;
	__s32 tp_prio;
	bool lost_since;	/* records lost on the CPU since that switch */
	__u64 lost_ts;		/* the first of those losses */
	struct intern in;
	/* tid -> intern index + 1: most events name a thread already interned
	 * in the bundle, and this skips both the name lookup and the hashing.
	 * An exec or rename changes a name: that tid is forgotten. */
	struct frec_map by_tid;
};

/* ---- interning ---------------------------------------------------------- */

static inline struct comm_key comm_key(const char *s)
{
	union {
		struct comm_key k;
		char c[FREC_COMM_LEN];
	} u;
	int i;

	u.k.a = u.k.b = 0;
	for (i = 0; i < FREC_COMM_LEN - 1 && s[i]; i++)
		u.c[i] = s[i];
	return u.k;
}

static inline __u32 hash_key(struct comm_key k)
{
	return (__u32)(((k.a * 0x9E3779B97F4A7C15ull) ^ (k.b * 0xC2B2AE3D27D4EB4Full)) >> 32);
}

static void intern_reset(struct intern *in)
{
	in->n = 0;
	if (in->slots)
		memset(in->slots, 0, in->nslots * sizeof(*in->slots));
}

static int intern_grow(struct intern *in)
{
	__u32 nslots = in->nslots ? in->nslots * 2 : 64, i;
	__u32 *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < in->n; i++) {
		__u32 j = hash_key(in->keys[i]) & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = i + 1;
	}
	free(in->slots);
	in->slots = slots;
	in->nslots = nslots;
	return 0;
}

/* Index of comm in the bundle's intern table, added when new; -1 on ENOMEM. */
static long intern(struct intern *in, const char *comm)
{
	struct comm_key k = comm_key(comm);
	__u32 j;

	if ((in->n + 1) * 2 > in->nslots && intern_grow(in))
		return -1;
	for (j = hash_key(k) & (in->nslots - 1); in->slots[j]; j = (j + 1) & (in->nslots - 1)) {
		const struct comm_key *o = &in->keys[in->slots[j] - 1];

		if (o->a == k.a && o->b == k.b)
			return in->slots[j] - 1;
	}
	if (in->n == in->cap) {
		__u32 ncap = in->cap ? in->cap * 2 : 64;
		struct comm_key *nk = realloc(in->keys, ncap * sizeof(*nk));

		if (!nk)
			return -1;
		in->keys = nk;
		in->cap = ncap;
	}
	in->keys[in->n] = k;
	in->slots[j] = in->n + 1;
	return in->n++;
}

/* ---- bundles ------------------------------------------------------------ */

static struct frec_pb *bundle_pbs(struct pbundle *b, int i)
{
	struct frec_pb *all[] = { &b->sw_ts, &b->sw_state, &b->sw_pid, &b->sw_prio, &b->sw_comm,
				  &b->wk_ts, &b->wk_pid, &b->wk_cpu, &b->wk_prio, &b->wk_comm,
				  &b->events };

	return i < (int)(sizeof(all) / sizeof(all[0])) ? all[i] : NULL;
}

static void bundle_fini(struct pbundle *b)
{
	struct frec_pb *pb;
	int i;

	for (i = 0; (pb = bundle_pbs(b, i)); i++)
		frec_pb__fini(pb);
	free(b->in.keys);
	free(b->in.slots);
	frec_map__fini(&b->by_tid);
}

static int bundle_err(struct pbundle *b)
{
	struct frec_pb *pb;
	int i;

	for (i = 0; (pb = bundle_pbs(b, i)); i++)
		if (pb->err)
			return pb->err;
	return 0;
}

static struct pbundle *bundle_of(struct pexport *x, __u32 cpu)
{
	struct pbundle *b;

	if (cpu >= FREC_MAX_CPUS)
		return NULL;
	b = frec_percpu__grow(x->cpus, &x->ncpus, cpu, sizeof(*b));
	if (!b) {
		x->err = -ENOMEM;
		return NULL;
	}
	x->cpus = b;
	return &b[cpu];
}

static void packed(struct frec_pb *pkt, __u32 field, const struct frec_pb *arr)
{
	if (arr->len)
		frec_pb__bytes(pkt, field, arr->buf, arr->len);
}

static void flush_bundle(struct pexport *x, __u32 cpu)
{
	struct pbundle *b = &x->cpus[cpu];
	struct frec_pb *p = &x->pkt, *pb;
	__u32 i;
	int k, rc;

	if (!b->nsw && !b->nwk && !b->nev && !b->lost)
		return;
	if ((rc = bundle_err(b))) {
		x->err = rc;
		return;
	}
	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_FTRACE_EVENTS);
	frec_pb__uint(p, FB_CPU, cpu);
	if (b->nev) {
		/* already tagged as repeated field 2 */
		if (!frec_pb__reserve(p, b->events.len)) {
			memcpy(p->buf + p->len, b->events.buf, b->events.len);
			p->len += b->events.len;
		}
	}
	if (b->lost)
		frec_pb__uint(p, FB_LOST_EVENTS, 1);
	if (b->nsw || b->nwk) {
		frec_pb__begin(p, FB_COMPACT_SCHED);
		for (i = 0; i < b->in.n; i++)
			frec_pb__strn(p, CS_INTERN_TABLE, (const char *)&b->in.keys[i],
				      FREC_COMM_LEN);
		packed(p, CS_SWITCH_TS, &b->sw_ts);
		packed(p, CS_SWITCH_PREV_STATE, &b->sw_state);
		packed(p, CS_SWITCH_NEXT_PID, &b->sw_pid);
		packed(p, CS_SWITCH_NEXT_PRIO, &b->sw_prio);
		packed(p, CS_SWITCH_NEXT_COMM, &b->sw_comm);
		packed(p, CS_WAKING_TS, &b->wk_ts);
		packed(p, CS_WAKING_PID, &b->wk_pid);
		packed(p, CS_WAKING_TARGET_CPU, &b->wk_cpu);
		packed(p, CS_WAKING_PRIO, &b->wk_prio);
		packed(p, CS_WAKING_COMM, &b->wk_comm);
		frec_pb__end(p);
	}
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);

	for (k = 0; (pb = bundle_pbs(b, k)); k++)
		frec_pb__reset(pb);
	intern_reset(&b->in);
	frec_map__clear(&b->by_tid);
	b->nsw = b->nwk = b->nev = 0;
	b->lost = false;
}

static void maybe_flush(struct pexport *x, __u32 cpu)
{
	struct pbundle *b = &x->cpus[cpu];

	if (b->nsw + b->nwk + b->nev >= BUNDLE_MAX_EVENTS)
		flush_bundle(x, cpu);
}

struct frec_pb *pexport__event_begin(struct pexport *x, __u32 cpu, __u64 ts, __u32 pid)
{
	struct pbundle *b = bundle_of(x, cpu);
	struct frec_pb *p;

	if (!b)
		return NULL;
	p = &b->events;
	frec_pb__begin(p, FB_EVENT);
	frec_pb__uint(p, FE_TIMESTAMP, ts);
	frec_pb__uint(p, FE_PID, pid);
	return p;
}

void pexport__event_end(struct pexport *x, __u32 cpu)
{
	struct pbundle *b = &x->cpus[cpu];

	frec_pb__end(&b->events);	/* the event's field */
	frec_pb__end(&b->events);	/* the FtraceEvent */
	b->nev++;
}

void pexport__event_done(struct pexport *x, __u32 cpu)
{
	maybe_flush(x, cpu);
}

/* The intern index of a thread's current name in a CPU's bundle. */
static long comm_index(struct pexport *x, struct pbundle *b, __u32 tid, __u32 cpu)
{
	char buf[FREC_COMM_LEN + 8];
	uint64_t *slot = frec_map__get(&b->by_tid, tid);
	long idx;

	if (slot)
		return (long)*slot - 1;
	idx = intern(&b->in, frec_walk__comm(x->ew.w, tid, cpu, buf));
	if (idx < 0 || !(slot = frec_map__put(&b->by_tid, tid, NULL))) {
		x->err = -ENOMEM;
		return -1;
	}
	*slot = (uint64_t)idx + 1;
	return idx;
}

void pexport__forget_comm(struct pexport *x, __u32 tid)
{
	__u32 cpu;

	for (cpu = 0; cpu < x->ncpus; cpu++)
		frec_map__del(&x->cpus[cpu].by_tid, tid);
}

/* A sched_switch as a full FtraceEvent in the CPU's bundle. */
static void full_switch(struct pexport *x, struct pbundle *b, __u32 cpu, __u64 ts, __u32 prev,
			__s32 prev_prio, __u64 prev_state, __u32 next, __s32 next_prio)
{
	char buf[FREC_COMM_LEN + 8], buf2[FREC_COMM_LEN + 8];
	struct frec_pb *p = &b->events;

	frec_pb__begin(p, FB_EVENT);
	frec_pb__uint(p, FE_TIMESTAMP, ts);
	frec_pb__uint(p, FE_PID, prev);
	frec_pb__begin(p, FE_SCHED_SWITCH);
	frec_pb__string(p, 1, frec_walk__comm(x->ew.w, prev, cpu, buf));
	frec_pb__int(p, 2, (__s32)prev);
	frec_pb__int(p, 3, prev_prio);
	frec_pb__int(p, 4, (__s64)prev_state);
	frec_pb__string(p, 5, frec_walk__comm(x->ew.w, next, cpu, buf2));
	frec_pb__int(p, 6, (__s32)next);
	frec_pb__int(p, 7, next_prio);
	frec_pb__end(p);
	frec_pb__end(p);
	b->nev++;
	b->tp_known = true;
	b->tp_pid = next;
	b->tp_prio = next_prio;
	b->lost_since = false;
}

/* The idle task's prio, as the kernel's sched_switch prints it. */
#define IDLE_PRIO	120

void pexport__switch(struct pexport *x, const struct frec_event *ev, enum frec_chain_verdict v,
		     const struct frec_chain_run *run)
{
	struct pbundle *b = bundle_of(x, ev->cpu);
	long idx;

	if (!b)
		return;
	if (v != FREC_CHAIN_OK || !b->tp_known || b->tp_pid != ev->sw.prev_pid) {
		/* trace_processor would infer another prev: end what it takes
		 * as running where frec last knew of it, then say who the
		 * kernel named */
		if (v == FREC_CHAIN_BREAK && b->tp_known && b->tp_pid == run->tid && run->tid)
			full_switch(x, b, ev->cpu, run->last_ts, run->tid, run->prio, 0, 0, IDLE_PRIO);
		else if (b->tp_known && b->lost_since && b->tp_pid != ev->sw.prev_pid && b->tp_pid)
			full_switch(x, b, ev->cpu, b->lost_ts, b->tp_pid, b->tp_prio, 0, 0, IDLE_PRIO);
		full_switch(x, b, ev->cpu, ev->ts, ev->sw.prev_pid, ev->sw.prev_prio,
			    ev->sw.prev_state, ev->sw.next_pid, ev->sw.next_prio);
		maybe_flush(x, ev->cpu);
		return;
	}
	b->tp_pid = ev->sw.next_pid;
	b->tp_prio = ev->sw.next_prio;
	b->lost_since = false;
	idx = comm_index(x, b, ev->sw.next_pid, ev->cpu);
	if (idx < 0)
		return;
	/* first timestamp of the bundle absolute, then deltas */
	frec_pb__varint(&b->sw_ts, b->nsw ? ev->ts - b->last_sw : ev->ts);
	b->last_sw = ev->ts;
	frec_pb__varint(&b->sw_state, ev->sw.prev_state);
	/* int32 fields: negative values sign-extend to ten bytes */
	frec_pb__varint(&b->sw_pid, (__u64)(__s64)(__s32)ev->sw.next_pid);
	frec_pb__varint(&b->sw_prio, (__u64)(__s64)ev->sw.next_prio);
	frec_pb__varint(&b->sw_comm, (__u64)idx);
	b->nsw++;
	maybe_flush(x, ev->cpu);
}

void pexport__waking(struct pexport *x, const struct frec_event *ev)
{
	struct pbundle *b = bundle_of(x, ev->cpu);
	long idx;

	if (!b)
		return;
	/* the woken task's name is as on the waking CPU (pid 0 never wakes) */
	idx = comm_index(x, b, ev->wake.pid, ev->cpu);
	if (idx < 0)
		return;
	frec_pb__varint(&b->wk_ts, b->nwk ? ev->ts - b->last_wk : ev->ts);
	b->last_wk = ev->ts;
	frec_pb__varint(&b->wk_pid, (__u64)(__s64)(__s32)ev->wake.pid);
	frec_pb__varint(&b->wk_cpu, (__u64)(__s64)(__s32)ev->wake.target_cpu);
	frec_pb__varint(&b->wk_prio, (__u64)(__s64)ev->wake.prio);
	frec_pb__varint(&b->wk_comm, (__u64)idx);
	b->nwk++;
	maybe_flush(x, ev->cpu);
}

void pexport__sched_event(struct pexport *x, const struct frec_event *ev)
{
	char buf[FREC_COMM_LEN + 8];
	struct frec_pb *p;

	switch (ev->type) {
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		if (!(p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid)))
			return;
		frec_pb__begin(p, ev->type == FREC_EV_SCHED_WAKEUP ? FE_SCHED_WAKEUP : FE_SCHED_WAKEUP_NEW);
		frec_pb__string(p, 1, frec_walk__comm(x->ew.w, ev->wake.pid, ev->cpu, buf));
		frec_pb__int(p, 2, (__s32)ev->wake.pid);
		frec_pb__int(p, 3, ev->wake.prio);
		frec_pb__int(p, 4, 1);
		frec_pb__int(p, 5, (__s32)ev->wake.target_cpu);
		break;
	case FREC_EV_MIGRATE_TASK:
		if (!(p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid)))
			return;
		frec_pb__begin(p, FE_MIGRATE_TASK);
		frec_pb__string(p, 1, frec_walk__comm(x->ew.w, ev->migrate.pid, ev->cpu, buf));
		frec_pb__int(p, 2, (__s32)ev->migrate.pid);
		frec_pb__int(p, 3, ev->migrate.prio);
		frec_pb__int(p, 4, (__s32)ev->migrate.orig_cpu);
		frec_pb__int(p, 5, (__s32)ev->migrate.dest_cpu);
		break;
	default:
		return;
	}
	pexport__event_end(x, ev->cpu);
	pexport__event_done(x, ev->cpu);
}

static void lost_on(struct pexport *x, __u32 cpu, __u64 ts)
{
	struct pbundle *b = bundle_of(x, cpu);

	if (!b)
		return;
	/* lost_events says data was lost before the bundle's first event: end
	 * the current bundle here and flag the next one */
	flush_bundle(x, cpu);
	b->lost = true;
	if (!b->lost_since) {
		b->lost_since = true;
		b->lost_ts = ts;
	}
}

void pexport__lost(struct pexport *x, const struct frec_event *ev)
{
	if (frec_lost__add(&x->lost, ev->cpu, ev->lost.count)) {
		x->err = -ENOMEM;
		return;
	}
	/* Lost on no known CPU: every CPU may miss data. */
	if (ev->cpu == FREC_CPU_UNKNOWN) {
		for (__u32 c = 0; c < x->ncpus && !x->err; c++)
			lost_on(x, c, ev->ts);
		return;
	}
	lost_on(x, ev->cpu, ev->ts);
}

/* Nothing recorded on any CPU: marked, not counted. */
void pexport__gap(struct pexport *x, const struct frec_event *ev)
{
	for (__u32 c = 0; c < x->ncpus && !x->err; c++)
		lost_on(x, c, ev->ts);
}

void pexport__flush_all(struct pexport *x)
{
	for (__u32 cpu = 0; cpu < x->ncpus && !x->err; cpu++)
		flush_bundle(x, cpu);
}

void pexport__bundles_free(struct pexport *x)
{
	for (__u32 i = 0; i < x->ncpus; i++)
		bundle_fini(&x->cpus[i]);
	free(x->cpus);
	x->cpus = NULL;
	x->ncpus = 0;
}
