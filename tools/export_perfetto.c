// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format perfetto: a Perfetto trace, hand-encoded (field
 * numbers in shared/DESIGN.md section 7 and Perfetto's protos/perfetto/trace).
 *
 * Per generation, in time order:
 *  - one ProcessTree packet at the generation's start naming every process
 *    (with its command line) and thread of its task table;
 *  - per CPU, FtraceEventBundles: sched_switch and sched_waking in the
 *    compact_sched arrays (timestamps delta-encoded, comms interned per
 *    bundle), the other scheduler events as full FtraceEvents; a bundle
 *    following lost records has lost_events set;
 *  - probe hits as TrackEvents on one track per thread: SLICE_BEGIN at a
 *    uprobe whose function has a uretprobe, SLICE_END at its return (END
 *    closes the innermost open slice of the track, and the call stacks of
 *    calls.c keep them matched), INSTANT for USDT and unpaired hits. Entry
 *    arguments and the return value go in debug annotations.
 * No clock is set: Perfetto then takes timestamps as CLOCK_BOOTTIME, which is
 * what the BPF programs record.
 *
 * What trace_processor needs besides the events, written first:
 *  - system_info with the utsname's sysname and release (the header's
 *    kernel_release): without a release trace_processor decodes prev_state
 *    with Linux 4.4's bits, in which 0x80 (idle) reads as K and 0x100
 *    (preempted) as W. frec stores the bits of 4.14 and later. The machine
 *    is not in the snapshot header: it is left out rather than guessed
 *    (trace_processor only uses it for syscall tables, which frec has none
 *    of);
 *  - a ClockSnapshot pairing BOOTTIME and REALTIME (the header's offset), so
 *    that the UI can show wall-clock time;
 *  - FtraceStats at the start and the end (phase START_OF_TRACE with zeros,
 *    END_OF_TRACE with the records lost on each CPU as dropped_events):
 *    trace_processor's stats table then shows the losses as
 *    ftrace_cpu_dropped_events_delta, an error, per CPU. Records lost on no
 *    known CPU are only in the bundles' lost_events.
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
 *
 * Lifetimes: trace_processor starts threads and processes at task_newtask
 * and ends them at sched_process_free, so these are written beside the
 * kernel's sched_process_fork and sched_process_exit (free at the exit: frec
 * does not record the free). frec records no clone flags: task_newtask says
 * CLONE_THREAD when the child joined its parent's thread group, nothing
 * else. A process tree names a process's parent (ppid) when a fork seen
 * earlier in the walk created it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calls.h"
#include "cpu_chain.h"
#include "lost.h"
#include "map.h"
#include "out.h"
#include "pb.h"
#include "percpu.h"
#include "tools.h"
#include "walk.h"

/* TracePacket */
#define TP_FTRACE_EVENTS	1
#define TP_PROCESS_TREE		2
#define TP_CLOCK_SNAPSHOT	6
#define TP_TIMESTAMP		8
#define TP_SEQ_ID		10
#define TP_TRACK_EVENT		11
#define TP_SEQ_FLAGS		13
#define TP_FTRACE_STATS		34
#define TP_SYSTEM_INFO		45
#define TP_TRACK_DESCRIPTOR	60
#define SEQ_INCREMENTAL_STATE_CLEARED	1
/* SystemInfo, Utsname */
#define SI_UTSNAME		1
#define SI_NUM_CPUS		8
#define UTS_SYSNAME		1
#define UTS_RELEASE		3
/* ClockSnapshot, ClockSnapshot.Clock, builtin clock ids */
#define CLS_CLOCKS		1
#define CLS_PRIMARY_CLOCK	2
#define CLK_ID			1
#define CLK_TIMESTAMP		2
#define CLOCK_REALTIME_ID	1
#define CLOCK_BOOTTIME_ID	6
/* FtraceStats, FtraceCpuStats */
#define FS_PHASE		1
#define FS_CPU_STATS		2
#define FS_START_OF_TRACE	1
#define FS_END_OF_TRACE		2
#define FCS_CPU			1
#define FCS_DROPPED_EVENTS	8
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
/* FtraceEvent */
#define FE_TIMESTAMP		1
#define FE_PID			2
#define FE_SCHED_SWITCH		4
#define FE_SCHED_WAKEUP		17
#define FE_SCHED_WAKEUP_NEW	114
#define FE_TASK_NEWTASK		235
#define FE_TASK_RENAME		236
#define FE_PROCESS_EXEC		237
#define FE_PROCESS_EXIT		238
#define FE_PROCESS_FORK		239
#define FE_PROCESS_FREE		240
#define CLONE_THREAD_		0x00010000	/* include/uapi/linux/sched.h */
#define FE_MIGRATE_TASK		491
/* ProcessTree */
#define PT_PROCESSES		1
#define PT_THREADS		2
#define PT_PROC_PID		1
#define PT_PROC_PPID		2
#define PT_PROC_CMDLINE		3
#define PT_PROC_CMDLINE_IS_COMM	9
#define PT_THR_TID		1
#define PT_THR_NAME		2
#define PT_THR_TGID		3
/* TrackDescriptor, ThreadDescriptor */
#define TD_UUID			1
#define TD_THREAD		4
#define THD_PID			1
#define THD_TID			2
#define THD_NAME		5
/* TrackEvent, DebugAnnotation */
#define TE_DEBUG_ANNOTATIONS	4
#define TE_TYPE			9
#define TE_TRACK_UUID		11
#define TE_NAME			23
#define TE_SLICE_BEGIN		1
#define TE_SLICE_END		2
#define TE_INSTANT		3
#define DA_BOOL			2
#define DA_UINT			3
#define DA_INT			4
#define DA_NAME			10

#define SEQ_TRACKS		1	/* track descriptors and track events */
#define SEQ_KERNEL		2	/* ftrace bundles and process trees */

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

struct bundle {
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

struct pexport {
	struct frec_walk *w;
	struct frec_out *o;
	struct frec_pb pkt;
	struct bundle *cpus;
	__u32 ncpus;
	struct frec_calls *calls;
	struct frec_map tracks;		/* tid -> track uuid announced */
	struct frec_map seen;		/* tgids in the current process tree */
	struct frec_map ppids;		/* tgid -> ppid, from the forks walked */
	struct frec_chain *chain;
	struct frec_lost lost;		/* records lost, per CPU */
	__u64 last_ts;
	bool seq_started;
	__u64 events;
	int err;
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

static struct frec_pb *bundle_pbs(struct bundle *b, int i)
{
	struct frec_pb *all[] = { &b->sw_ts, &b->sw_state, &b->sw_pid, &b->sw_prio, &b->sw_comm,
				  &b->wk_ts, &b->wk_pid, &b->wk_cpu, &b->wk_prio, &b->wk_comm,
				  &b->events };

	return i < (int)(sizeof(all) / sizeof(all[0])) ? all[i] : NULL;
}

static void bundle_fini(struct bundle *b)
{
	struct frec_pb *pb;
	int i;

	for (i = 0; (pb = bundle_pbs(b, i)); i++)
		frec_pb__fini(pb);
	free(b->in.keys);
	free(b->in.slots);
	frec_map__fini(&b->by_tid);
}

static int bundle_err(struct bundle *b)
{
	struct frec_pb *pb;
	int i;

	for (i = 0; (pb = bundle_pbs(b, i)); i++)
		if (pb->err)
			return pb->err;
	return 0;
}

static struct bundle *bundle_of(struct pexport *x, __u32 cpu)
{
	struct bundle *b;

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

static void emit_packet(struct pexport *x)
{
	if (x->pkt.err) {
		x->err = x->pkt.err;
	} else {
		frec_out__write(x->o, x->pkt.buf, x->pkt.len);
		if (frec_out__error(x->o))
			x->err = frec_out__error(x->o);
	}
	frec_pb__reset(&x->pkt);
}

static void packed(struct frec_pb *pkt, __u32 field, const struct frec_pb *arr)
{
	if (arr->len)
		frec_pb__bytes(pkt, field, arr->buf, arr->len);
}

static void flush_bundle(struct pexport *x, __u32 cpu)
{
	struct bundle *b = &x->cpus[cpu];
	struct frec_pb *p = &x->pkt, *pb;
	__u32 i;
	int k, rc;

	if (!b->nsw && !b->nwk && !b->nev && !b->lost)
		return;
	if ((rc = bundle_err(b))) {
		x->err = rc;
		return;
	}
	frec_pb__begin(p, 1);			/* Trace.packet */
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
	emit_packet(x);

	for (k = 0; (pb = bundle_pbs(b, k)); k++)
		frec_pb__reset(pb);
	intern_reset(&b->in);
	frec_map__clear(&b->by_tid);
	b->nsw = b->nwk = b->nev = 0;
	b->lost = false;
}

static void maybe_flush(struct pexport *x, __u32 cpu)
{
	struct bundle *b = &x->cpus[cpu];

	if (b->nsw + b->nwk + b->nev >= BUNDLE_MAX_EVENTS)
		flush_bundle(x, cpu);
}

static const char *comm_of(struct pexport *x, __u32 tid, __u32 cpu, char *buf)
{
	return frec_walk__comm(x->w, tid, cpu, buf);
}

/* The intern index of a thread's current name in a CPU's bundle. */
static long comm_index(struct pexport *x, struct bundle *b, __u32 tid, __u32 cpu)
{
	char buf[FREC_COMM_LEN + 8];
	uint64_t *slot = frec_map__get(&b->by_tid, tid);
	long idx;

	if (slot)
		return (long)*slot - 1;
	idx = intern(&b->in, comm_of(x, tid, cpu, buf));
	if (idx < 0 || !(slot = frec_map__put(&b->by_tid, tid, NULL))) {
		x->err = -ENOMEM;
		return -1;
	}
	*slot = (uint64_t)idx + 1;
	return idx;
}

/* A thread's name changes: no bundle may use its old index for it again. */
static void forget_comm(struct pexport *x, __u32 tid)
{
	__u32 cpu;

	for (cpu = 0; cpu < x->ncpus; cpu++)
		frec_map__del(&x->cpus[cpu].by_tid, tid);
}

/* A sched_switch as a full FtraceEvent in the CPU's bundle. */
static void full_switch(struct pexport *x, struct bundle *b, __u32 cpu, __u64 ts, __u32 prev,
			__s32 prev_prio, __u64 prev_state, __u32 next, __s32 next_prio)
{
	char buf[FREC_COMM_LEN + 8], buf2[FREC_COMM_LEN + 8];
	struct frec_pb *p = &b->events;

	frec_pb__begin(p, FB_EVENT);
	frec_pb__uint(p, FE_TIMESTAMP, ts);
	frec_pb__uint(p, FE_PID, prev);
	frec_pb__begin(p, FE_SCHED_SWITCH);
	frec_pb__string(p, 1, comm_of(x, prev, cpu, buf));
	frec_pb__int(p, 2, (__s32)prev);
	frec_pb__int(p, 3, prev_prio);
	frec_pb__int(p, 4, (__s64)prev_state);
	frec_pb__string(p, 5, comm_of(x, next, cpu, buf2));
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

static void add_switch(struct pexport *x, const struct frec_event *ev,
		       enum frec_chain_verdict v, const struct frec_chain_run *run)
{
	struct bundle *b = bundle_of(x, ev->cpu);
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

static void add_waking(struct pexport *x, const struct frec_event *ev)
{
	struct bundle *b = bundle_of(x, ev->cpu);
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

static void add_ftrace_event(struct pexport *x, const struct frec_event *ev)
{
	struct bundle *b = bundle_of(x, ev->cpu);
	char buf[FREC_COMM_LEN + 8], buf2[FREC_COMM_LEN + 8];
	const char *comm;
	struct frec_pb *p;

	if (!b)
		return;
	p = &b->events;
	frec_pb__begin(p, FB_EVENT);
	frec_pb__uint(p, FE_TIMESTAMP, ev->ts);
	frec_pb__uint(p, FE_PID, ev->tid);
	switch (ev->type) {
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		frec_pb__begin(p, ev->type == FREC_EV_SCHED_WAKEUP ? FE_SCHED_WAKEUP : FE_SCHED_WAKEUP_NEW);
		frec_pb__string(p, 1, comm_of(x, ev->wake.pid, ev->cpu, buf));
		frec_pb__int(p, 2, (__s32)ev->wake.pid);
		frec_pb__int(p, 3, ev->wake.prio);
		frec_pb__int(p, 4, 1);
		frec_pb__int(p, 5, (__s32)ev->wake.target_cpu);
		break;
	case FREC_EV_PROCESS_FORK:
		frec_pb__begin(p, FE_PROCESS_FORK);
		frec_pb__string(p, 1, comm_of(x, ev->fork.parent_pid, ev->cpu, buf));
		frec_pb__int(p, 2, (__s32)ev->fork.parent_pid);
		comm = comm_of(x, ev->fork.child_pid, ev->cpu, buf2);
		frec_pb__string(p, 3, comm);
		frec_pb__int(p, 4, (__s32)ev->fork.child_pid);
		frec_pb__end(p);
		frec_pb__end(p);
		b->nev++;
		/* the same moment as trace_processor counts lifetimes */
		frec_pb__begin(p, FB_EVENT);
		frec_pb__uint(p, FE_TIMESTAMP, ev->ts);
		frec_pb__uint(p, FE_PID, ev->fork.parent_pid);
		frec_pb__begin(p, FE_TASK_NEWTASK);
		frec_pb__int(p, 1, (__s32)ev->fork.child_pid);
		frec_pb__string(p, 2, comm);
		if (frec_walk__tgid(x->w, ev->fork.child_pid) != ev->fork.child_pid)
			frec_pb__uint(p, 3, CLONE_THREAD_);
		break;
	case FREC_EV_PROCESS_EXEC:
		frec_pb__begin(p, FE_PROCESS_EXEC);
		frec_pb__strn(p, 1, ev->exec.filename, FREC_FILENAME_LEN);
		frec_pb__int(p, 2, (__s32)ev->exec.pid);
		frec_pb__int(p, 3, (__s32)ev->exec.old_pid);
		break;
	case FREC_EV_PROCESS_EXIT:
		frec_pb__begin(p, FE_PROCESS_EXIT);
		comm = comm_of(x, ev->exit.pid, ev->cpu, buf);
		frec_pb__string(p, 1, comm);
		frec_pb__int(p, 2, (__s32)ev->exit.pid);
		frec_pb__int(p, 3, (__s32)ev->exit.tgid);
		frec_pb__end(p);
		frec_pb__end(p);
		b->nev++;
		frec_pb__begin(p, FB_EVENT);
		frec_pb__uint(p, FE_TIMESTAMP, ev->ts);
		frec_pb__uint(p, FE_PID, ev->tid);
		frec_pb__begin(p, FE_PROCESS_FREE);
		frec_pb__string(p, 1, comm);
		frec_pb__int(p, 2, (__s32)ev->exit.pid);
		break;
	case FREC_EV_TASK_RENAME:
		frec_pb__begin(p, FE_TASK_RENAME);
		frec_pb__int(p, 1, (__s32)ev->rename.pid);
		/* the walker applies the rename after this event: the old name */
		frec_pb__string(p, 2, comm_of(x, ev->rename.pid, ev->cpu, buf));
		frec_pb__strn(p, 3, ev->rename.newcomm, FREC_COMM_LEN);
		break;
	case FREC_EV_MIGRATE_TASK:
		frec_pb__begin(p, FE_MIGRATE_TASK);
		frec_pb__string(p, 1, comm_of(x, ev->migrate.pid, ev->cpu, buf));
		frec_pb__int(p, 2, (__s32)ev->migrate.pid);
		frec_pb__int(p, 3, ev->migrate.prio);
		frec_pb__int(p, 4, (__s32)ev->migrate.orig_cpu);
		frec_pb__int(p, 5, (__s32)ev->migrate.dest_cpu);
		break;
	default:
		frec_pb__end(p);
		return;
	}
	frec_pb__end(p);
	frec_pb__end(p);
	b->nev++;
	maybe_flush(x, ev->cpu);
}

static void lost_on(struct pexport *x, __u32 cpu, __u64 ts)
{
	struct bundle *b = bundle_of(x, cpu);

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

static void add_lost(struct pexport *x, const struct frec_event *ev)
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

/* ---- process tree --------------------------------------------------------- */

/* A fork that made a new process: its parent is the forking thread's
 * process. */
static void learn_parent(struct pexport *x, const struct frec_event *ev)
{
	__u32 child = ev->fork.child_pid;
	uint64_t *slot;

	if (frec_walk__tgid(x->w, child) != child)
		return;		/* a thread of its parent's process */
	slot = frec_map__put(&x->ppids, child, NULL);
	if (!slot) {
		x->err = -ENOMEM;
		return;
	}
	*slot = frec_walk__tgid(x->w, ev->fork.parent_pid);
}

/* The parent process of tgid, 0 when not known: from the forks walked so
 * far. A ppid that the snapshot's process table may name is to be taken
 * here where no fork gives one. */
static __u32 ppid_of(const struct pexport *x, __u32 tgid)
{
	uint64_t *slot = frec_map__get(&x->ppids, tgid);

	return slot ? (__u32)*slot : 0;
}

static void ppid_field(struct frec_pb *p, const struct pexport *x, __u32 tgid)
{
	__u32 ppid = ppid_of(x, tgid);

	if (ppid)
		frec_pb__int(p, PT_PROC_PPID, (__s32)ppid);
}

static void cmdline_args(struct frec_pb *p, const char *cmdline)
{
	const char *s = cmdline, *e;

	/* the reader joins arguments with spaces; Perfetto wants them apart
	 * (the first names the process) */
	while (*s) {
		e = strchr(s, ' ');
		if (!e)
			e = s + strlen(s);
		if (e > s)
			frec_pb__bytes(p, PT_PROC_CMDLINE, s, (size_t)(e - s));
		s = *e ? e + 1 : e;
	}
}

static void process_tree(struct pexport *x)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(x->w);
	struct frec_gen *g = frec_walk__gen(x->w);
	struct frec_pb *p = &x->pkt;
	size_t i, n = frec_walk__nthreads(x->w);

	frec_pb__begin(p, 1);
	frec_pb__uint(p, TP_TIMESTAMP, gi->start_ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_PROCESS_TREE);
	frec_map__clear(&x->seen);
	for (i = 0; i < gi->nprocesses; i++) {
		const struct frec_process *pr = frec_gen__process_at(g, (__u32)i);

		if (!pr || !pr->cmdline || !pr->cmdline[0])
			continue;
		frec_pb__begin(p, PT_PROCESSES);
		frec_pb__int(p, PT_PROC_PID, (__s32)pr->tgid);
		ppid_field(p, x, pr->tgid);
		cmdline_args(p, pr->cmdline);
		frec_pb__end(p);
		if (!frec_map__put(&x->seen, pr->tgid, NULL))
			x->err = -ENOMEM;
	}
	/* every other process of a thread: named after its main thread (or
	 * the first of its threads), flagged as a comm, not a command line */
	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_walk__thread_at(x->w, i), *lead;
		bool created;

		if (!t->tid || !t->tgid || !frec_map__put(&x->seen, t->tgid, &created) || !created)
			continue;
		lead = frec_walk__thread(x->w, t->tgid);
		frec_pb__begin(p, PT_PROCESSES);
		frec_pb__int(p, PT_PROC_PID, (__s32)t->tgid);
		ppid_field(p, x, t->tgid);
		frec_pb__strn(p, PT_PROC_CMDLINE, lead ? lead->comm : t->comm, FREC_COMM_LEN);
		frec_pb__uint(p, PT_PROC_CMDLINE_IS_COMM, 1);
		frec_pb__end(p);
	}
	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_walk__thread_at(x->w, i);

		if (!t->tid)
			continue;	/* the idle tasks: Perfetto names them itself */
		frec_pb__begin(p, PT_THREADS);
		frec_pb__int(p, PT_THR_TID, (__s32)t->tid);
		frec_pb__strn(p, PT_THR_NAME, t->comm, FREC_COMM_LEN);
		if (t->tgid)
			frec_pb__int(p, PT_THR_TGID, (__s32)t->tgid);
		frec_pb__end(p);
	}
	frec_pb__end(p);
	frec_pb__end(p);
	emit_packet(x);
}

/* ---- probe slices ---------------------------------------------------------
 * Calls are written when they end (calls.c decides then what an entry was):
 * SLICE_BEGIN at the entry's timestamp and SLICE_END at the return's, one
 * after the other. trace_processor sorts packets by timestamp (ties keep
 * file order), so the slices of a thread nest as its calls did. */

static __u64 track_uuid(__u32 tgid, __u32 tid)
{
	/* one track per thread; a tid reused by another process gets another */
	return ((__u64)tgid << 32) | tid;
}

static __u64 thread_track(struct pexport *x, __u32 tgid, __u32 tid, __u64 ts, __u32 cpu)
{
	__u64 uuid = track_uuid(tgid, tid);
	uint64_t *slot;
	bool created;
	char buf[FREC_COMM_LEN + 8];
	struct frec_pb *p = &x->pkt;

	slot = frec_map__put(&x->tracks, tid, &created);
	if (!slot) {
		x->err = -ENOMEM;
		return uuid;
	}
	if (!created && *slot == uuid)
		return uuid;
	*slot = uuid;
	frec_pb__begin(p, 1);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_TRACKS);
	if (!x->seq_started) {
		frec_pb__uint(p, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		x->seq_started = true;
	}
	frec_pb__begin(p, TP_TRACK_DESCRIPTOR);
	frec_pb__uint(p, TD_UUID, uuid);
	frec_pb__begin(p, TD_THREAD);
	frec_pb__int(p, THD_PID, (__s32)tgid);
	frec_pb__int(p, THD_TID, (__s32)tid);
	frec_pb__string(p, THD_NAME, comm_of(x, tid, cpu, buf));
	frec_pb__end(p);
	frec_pb__end(p);
	frec_pb__end(p);
	emit_packet(x);
	return uuid;
}

static void track_event_begin(struct pexport *x, __u64 ts, __u64 uuid, int type, const char *name)
{
	struct frec_pb *p = &x->pkt;

	frec_pb__begin(p, 1);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_TRACKS);
	frec_pb__begin(p, TP_TRACK_EVENT);
	frec_pb__uint(p, TE_TYPE, (__u64)type);
	frec_pb__uint(p, TE_TRACK_UUID, uuid);
	if (name)
		frec_pb__string(p, TE_NAME, name);
}

static void track_event_end(struct pexport *x)
{
	frec_pb__end(&x->pkt);
	frec_pb__end(&x->pkt);
	emit_packet(x);
}

static void annotate_uint(struct frec_pb *p, const char *name, __u64 v)
{
	frec_pb__begin(p, TE_DEBUG_ANNOTATIONS);
	frec_pb__string(p, DA_NAME, name);
	frec_pb__uint(p, DA_UINT, v);
	frec_pb__end(p);
}

static void annotate_int(struct frec_pb *p, const char *name, __s64 v)
{
	frec_pb__begin(p, TE_DEBUG_ANNOTATIONS);
	frec_pb__string(p, DA_NAME, name);
	frec_pb__int(p, DA_INT, v);
	frec_pb__end(p);
}

static void annotate_true(struct frec_pb *p, const char *name)
{
	frec_pb__begin(p, TE_DEBUG_ANNOTATIONS);
	frec_pb__string(p, DA_NAME, name);
	frec_pb__uint(p, DA_BOOL, 1);
	frec_pb__end(p);
}

static void annotate_args(struct frec_pb *p, __u32 nargs, const __u64 *args)
{
	static const char *const names[FREC_MAX_PROBE_ARGS] = {
		"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	};
	__u32 i, n = nargs > FREC_MAX_PROBE_ARGS ? FREC_MAX_PROBE_ARGS : nargs;

	for (i = 0; i < n; i++)
		annotate_uint(p, names[i], args[i]);
}

static const char *fn_name(struct pexport *x, int fn, __u32 probe_id, char *buf, size_t len)
{
	const struct frec_fn *f = frec_calls__fn(x->calls, fn);

	if (f)
		return f->short_name;
	snprintf(buf, len, "probe #%u", probe_id);
	return buf;
}

/* A call that began at f and ended at ts (ret, or unfinished when NULL). */
static void slice(struct pexport *x, __u64 uuid, const struct frec_frame *f, __u64 ts,
		  const __s64 *ret, bool end)
{
	char buf[32];

	track_event_begin(x, f->ts, uuid, TE_SLICE_BEGIN, fn_name(x, f->fn, 0, buf, sizeof(buf)));
	annotate_args(&x->pkt, f->nargs, f->args);
	track_event_end(x);
	if (!end)
		return;		/* still running when the recording ends */
	track_event_begin(x, ts, uuid, TE_SLICE_END, NULL);
	if (ret)
		annotate_int(&x->pkt, "ret", *ret);
	else
		annotate_true(&x->pkt, "unfinished");
	track_event_end(x);
}

/* An entry that left the stack without its return. */
static void abandoned(struct pexport *x, __u64 uuid, const struct frec_call *c, __u64 ts)
{
	unsigned int i;
	char buf[32];

	for (i = 0; i < c->nabandoned; i++) {
		const struct frec_frame *f = &c->abandoned[i];
		const struct frec_fn *fn = frec_calls__fn(x->calls, f->fn);

		if (fn && fn->has_return && c->why != FREC_ABANDON_EVICT) {
			slice(x, uuid, f, ts, NULL, true);
			continue;
		}
		/* no return probe: the entry was just a hit */
		track_event_begin(x, f->ts, uuid, TE_INSTANT, fn_name(x, f->fn, 0, buf, sizeof(buf)));
		annotate_args(&x->pkt, f->nargs, f->args);
		if (fn && fn->has_return)
			annotate_true(&x->pkt, "unfinished");
		track_event_end(x);
	}
}

static void add_probe(struct pexport *x, const struct frec_event *ev)
{
	const struct frec_fn *fn;
	struct frec_call c;
	__u64 uuid;
	char name[160], buf[32];

	frec_calls__event(x->calls, ev, &c);
	uuid = thread_track(x, ev->tgid, ev->tid, ev->ts, ev->cpu);
	/* inner calls end before the one returning: their ENDs come first */
	abandoned(x, uuid, &c, ev->ts);
	switch (c.kind) {
	case FREC_CALL_ENTRY:
		break;		/* written when it ends */
	case FREC_CALL_RETURN:
		slice(x, uuid, c.entry, ev->ts, &ev->probe.ret, true);
		break;
	default:
		fn = frec_calls__fn(x->calls, c.fn);
		snprintf(name, sizeof(name), "%s%s", fn_name(x, c.fn, ev->probe.probe_id, buf, sizeof(buf)),
			 fn && ev->type == FREC_EV_URETPROBE ? " (return)" : "");
		track_event_begin(x, ev->ts, uuid, TE_INSTANT, name);
		annotate_args(&x->pkt, ev->probe.nargs, ev->probe.args);
		if (ev->type == FREC_EV_URETPROBE)
			annotate_int(&x->pkt, "ret", ev->probe.ret);
		track_event_end(x);
		break;
	}
}

static void thread_exit(struct pexport *x, const struct frec_event *ev)
{
	struct frec_call c;

	frec_calls__exit(x->calls, ev->exit.pid, &c);
	if (c.nabandoned)
		abandoned(x, thread_track(x, ev->exit.tgid, ev->exit.pid, ev->ts, ev->cpu), &c,
			  ev->ts);
}

/* The end of the recording: calls still open begin and never end. */
static void open_calls(struct pexport *x)
{
	const struct frec_frame *frames;
	unsigned int n, i;
	size_t pos = 0;
	__u32 tid, tgid;
	char buf[32];

	while (!x->err && frec_calls__next_open(x->calls, &pos, &tid, &tgid, &frames, &n)) {
		__u64 uuid = track_uuid(tgid, tid);

		for (i = 0; i < n; i++) {
			const struct frec_fn *fn = frec_calls__fn(x->calls, frames[i].fn);

			if (fn && fn->has_return) {
				slice(x, uuid, &frames[i], 0, NULL, false);
				continue;
			}
			track_event_begin(x, frames[i].ts, uuid, TE_INSTANT,
					  fn_name(x, frames[i].fn, 0, buf, sizeof(buf)));
			annotate_args(&x->pkt, frames[i].nargs, frames[i].args);
			track_event_end(x);
		}
	}
}

/* ---- driver --------------------------------------------------------------- */

static int export_gen(struct pexport *x)
{
	const struct frec_event *ev;
	__u32 cpu;
	int rc;

	if ((rc = frec_calls__gen(x->calls, frec_walk__gen(x->w))))
		return rc;
	process_tree(x);
	frec_chain__gen(x->chain, x->w);
	while (!x->err && (ev = frec_walk__next_event(x->w))) {
		struct frec_chain_run run;
		enum frec_chain_verdict v = frec_chain__event(x->chain, ev, &run);

		x->events++;
		if (ev->ts > x->last_ts)
			x->last_ts = ev->ts;
		switch (ev->type) {
		case FREC_EV_SCHED_SWITCH:
			add_switch(x, ev, v, &run);
			break;
		case FREC_EV_SCHED_WAKING:
			add_waking(x, ev);
			break;
		case FREC_EV_PROCESS_EXIT:
			add_ftrace_event(x, ev);
			thread_exit(x, ev);
			break;
		case FREC_EV_PROCESS_EXEC:
			add_ftrace_event(x, ev);
			forget_comm(x, ev->exec.pid);
			break;
		case FREC_EV_TASK_RENAME:
			add_ftrace_event(x, ev);
			forget_comm(x, ev->rename.pid);
			break;
		case FREC_EV_PROCESS_FORK:
			add_ftrace_event(x, ev);
			learn_parent(x, ev);
			/* a child the table did not name takes its parent's name */
			forget_comm(x, ev->fork.child_pid);
			break;
		case FREC_EV_SCHED_WAKEUP:
		case FREC_EV_SCHED_WAKEUP_NEW:
		case FREC_EV_MIGRATE_TASK:
			add_ftrace_event(x, ev);
			break;
		case FREC_EV_UPROBE:
		case FREC_EV_URETPROBE:
		case FREC_EV_USDT:
			add_probe(x, ev);
			break;
		case FREC_EV_LOST:
			add_lost(x, ev);
			break;
		case FREC_EV_GAP:	/* nothing recorded on any CPU: marked, not counted */
			for (__u32 c = 0; c < x->ncpus && !x->err; c++)
				lost_on(x, c, ev->ts);
			break;
		default:
			break;
		}
	}
	/* memory stays bounded by one generation: flush every CPU */
	for (cpu = 0; cpu < x->ncpus && !x->err; cpu++)
		flush_bundle(x, cpu);
	if (!x->err)
		x->err = frec_chain__error(x->chain);
	return x->err;
}

/* ---- what trace_processor needs to read the rest right -------------------- */

static void system_info(struct pexport *x)
{
	const struct frec_header *h = frec_walk__header(x->w);
	struct frec_pb *p = &x->pkt;

	frec_pb__begin(p, 1);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_SYSTEM_INFO);
	frec_pb__begin(p, SI_UTSNAME);
	frec_pb__string(p, UTS_SYSNAME, "Linux");
	if (h->kernel_release[0])
		frec_pb__strn(p, UTS_RELEASE, h->kernel_release, sizeof(h->kernel_release));
	frec_pb__end(p);
	if (h->ncpus)
		frec_pb__uint(p, SI_NUM_CPUS, h->ncpus);
	frec_pb__end(p);
	frec_pb__end(p);
	emit_packet(x);
}

/* BOOTTIME, the trace's clock, at t and REALTIME then: the header's offset. */
static void clock_snapshot(struct pexport *x, __u64 t)
{
	const struct frec_header *h = frec_walk__header(x->w);
	struct frec_pb *p = &x->pkt;
	__s64 real = (__s64)t + h->boottime_to_realtime_ns;

	if (!h->boottime_to_realtime_ns || real < 0)
		return;		/* not known: the UI shows boot time only */
	frec_pb__begin(p, 1);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_CLOCK_SNAPSHOT);
	frec_pb__begin(p, CLS_CLOCKS);
	frec_pb__uint(p, CLK_ID, CLOCK_BOOTTIME_ID);
	frec_pb__uint(p, CLK_TIMESTAMP, t);
	frec_pb__end(p);
	frec_pb__begin(p, CLS_CLOCKS);
	frec_pb__uint(p, CLK_ID, CLOCK_REALTIME_ID);
	frec_pb__uint(p, CLK_TIMESTAMP, (__u64)real);
	frec_pb__end(p);
	frec_pb__uint(p, CLS_PRIMARY_CLOCK, CLOCK_BOOTTIME_ID);
	frec_pb__end(p);
	frec_pb__end(p);
	emit_packet(x);
}

/* Records lost per CPU, where trace_processor's stats table shows them: the
 * difference between the END and START phases. */
static void ftrace_stats(struct pexport *x, int phase, __u64 ts)
{
	const struct frec_header *h = frec_walk__header(x->w);
	struct frec_pb *p = &x->pkt;
	/* at the start nothing is counted yet: the header's CPUs */
	__u32 cpu, n = frec_lost__ncpus(&x->lost, h);

	frec_pb__begin(p, 1);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_FTRACE_STATS);
	frec_pb__uint(p, FS_PHASE, (__u64)phase);
	for (cpu = 0; cpu < n; cpu++) {
		frec_pb__begin(p, FS_CPU_STATS);
		frec_pb__uint(p, FCS_CPU, cpu);
		frec_pb__uint(p, FCS_DROPPED_EVENTS,
			      phase == FS_END_OF_TRACE ? frec_lost__cpu(&x->lost, cpu) : 0);
		frec_pb__end(p);
	}
	frec_pb__end(p);
	frec_pb__end(p);
	emit_packet(x);
}

int frec_export_perfetto__run(const char *path, const struct frec_export_opts *opts, FILE *out,
			      FILE *err, struct frec_export_stats *st)
{
	struct frec_walk_opts wo = { .sorted = true };
	struct pexport x;
	int status, rc = 0;
	__u32 i;

	memset(&x, 0, sizeof(x));
	frec_pb__init(&x.pkt);
	frec_map__init(&x.tracks);
	frec_map__init(&x.seen);
	frec_map__init(&x.ppids);
	frec_lost__init(&x.lost);
	x.w = frec_walk__open(path, &wo, err, &status);
	if (!x.w)
		return status;
	x.calls = frec_calls__new();
	x.chain = frec_chain__new();
	x.o = frec_out__new(out, opts && opts->gzip);
	if (!x.calls || !x.chain || !x.o) {
		rc = -ENOMEM;
	} else {
		bool started = false;

		system_info(&x);
		while (!rc && frec_walk__next_gen(x.w) > 0) {
			if (!started) {
				__u64 t0 = frec_walk__gen_info(x.w)->start_ts;

				started = true;
				clock_snapshot(&x, t0);
				ftrace_stats(&x, FS_START_OF_TRACE, t0);
				x.last_ts = t0;
			}
			rc = export_gen(&x);
		}
		if (!rc) {
			open_calls(&x);
			rc = x.err;
		}
		if (!rc && started) {
			ftrace_stats(&x, FS_END_OF_TRACE, x.last_ts);
			rc = x.err;
		}
	}
	if (x.o) {
		uint64_t bytes = 0;
		int rc2 = frec_out__close(x.o, &bytes);

		if (!rc)
			rc = rc2;
		if (st)
			st->bytes = bytes;
	}
	if (rc) {
		fprintf(err, "frec: %s: export: %s\n", path, strerror(-rc));
		frec_walk__fail(x.w);
	}
	if (st)
		st->events = x.events;
	for (i = 0; i < x.ncpus; i++)
		bundle_fini(&x.cpus[i]);
	free(x.cpus);
	frec_calls__free(x.calls);
	frec_map__fini(&x.tracks);
	frec_map__fini(&x.seen);
	frec_map__fini(&x.ppids);
	frec_chain__free(x.chain);
	frec_lost__fini(&x.lost);
	frec_pb__fini(&x.pkt);
	return frec_walk__close(x.w);
}
