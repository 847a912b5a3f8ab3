/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The scheduler's triggers (runq, offcpu, oncpu), evaluated by frec.bpf.c's
 * trigger programs on the events they record anyway: trig_on_wake() at
 * sched_waking and sched_wakeup_new, trig_on_switch() at sched_switch.
 *
 * - runq: a wakee is runnable from its waking; a preempted (or yielding)
 *   prev from its switch-out. Its wait ends at its switch-in, as runqlat
 *   measures it.
 * - offcpu: a prev that blocks, from its switch-out to its switch-in.
 * - oncpu: the per-CPU "oncpu" entry says who runs since when; the run
 *   ends at the switch-out. frecd's tick reads the entry for a run that
 *   goes on (bpf/trigger.h).
 *
 * Per-thread timestamps live in task storage or in an LRU hash by tid,
 * chosen by frecd at load (trig_task_storage; src/frecd/bpf_triggers.c):
 * task storage needs a task pointer the verifier knows (tp_btf's typed
 * arguments; a raw_tp program has numbers), and it allocates on first use
 * with the runqueue lock held: only from 6.4 ("bpf: Use
 * bpf_mem_cache_alloc/free in bpf_local_storage_elem") does that come from
 * BPF's own allocator, safe in any context; before (task storage for
 * tracing programs is 5.11), a kzalloc(GFP_ATOMIC) there may wake kswapd
 * onto the locked runqueue. So: task storage for tp_btf from 6.4, the
 * hash for raw_tp and older kernels. The LRU hash is
 * preallocated: an update never allocates. The map not chosen is made a
 * 1-entry hash and never touched (the knob prunes its path).
 *
 * Thread state is touched only with runq or offcpu armed, the oncpu entry
 * only with oncpu armed. Expects what frec.bpf.c includes, and
 * trigger.bpf.h.
 */
#ifndef FREC_TRIGGER_SCHED_BPF_H
#define FREC_TRIGGER_SCHED_BPF_H

#include "frec.h"
#include "trigger.bpf.h"
#include "task.bpf.h"
#include "filter_pid.bpf.h"

/* Knob: per-thread state in task storage (tp_btf only), else the hash. */
const volatile bool trig_task_storage = false;

/* Per kind, the triggers of that kind (bit id - 1), so that an event
 * looks only at its own kind's entries. Written by frecd with the table. */
__u32 trig_mask[FREC_TRIG__MAX];

struct trig_thread {
	__u64 waking_ts;	/* runnable since; 0: not known to be runnable */
	__u64 offcpu_ts;	/* blocked since; 0: not blocked */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct trig_thread);
} trig_task SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);			/* frecd sets FREC_TRIG_THREADS when used */
	__type(key, __u32);
	__type(value, struct trig_thread);
} trig_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct frec_oncpu);
} oncpu SEC(".maps");

#define TRIG_THREAD_KINDS	((1u << FREC_TRIG_RUNQ) | (1u << FREC_TRIG_OFFCPU))
#define TRIG_SWITCH_KINDS	(TRIG_THREAD_KINDS | (1u << FREC_TRIG_ONCPU))
#define TASK_DEAD_		0x0080

/* Thread t's (tid pid) timestamps, created if create and missing; NULL if
 * it has none (or no room). Never for the idle tasks (pid 0, one per CPU). */
static __always_inline struct trig_thread *trig_thread(struct task_struct *t, __u32 pid,
							bool create, const bool btf)
{
	struct trig_thread *tt, zero = {};

	if (btf && trig_task_storage)
		return bpf_task_storage_get(&trig_task, t, 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tt = bpf_map_lookup_elem(&trig_threads, &pid);
	if (tt || !create)
		return tt;
	bpf_map_update_elem(&trig_threads, &pid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&trig_threads, &pid);
}

/* sched_waking / sched_wakeup_new of p: runnable from now. A new thread
 * starts clean: in the hash, a reused tid may find its predecessor's entry. */
static __always_inline void trig_on_wake(__u64 now, struct task_struct *p, __u32 tgid,
					 __u32 self, bool new, const bool btf)
{
	struct trig_thread *tt;
	__u32 pid;

	if (!TRIG_ARMED(FREC_TRIG_RUNQ) || (self && tgid == self))
		return;
	pid = RD(btf, p, pid);
	if (!pid)
		return;
	tt = trig_thread(p, pid, true, btf);
	if (!tt)
		return;
	tt->waking_ts = now ? now : bpf_ktime_get_boot_ns();
	if (new)
		tt->offcpu_ts = 0;
}

/* Whether thread t of process tgid is left alone: frecd's own, or not
 * among -p's and --cgroup's (whose events are not recorded; not counted
 * here, the switch's record already was). */
static __always_inline bool trig_skip(__u32 tgid, struct task_struct *t, __u32 self,
				      const bool btf)
{
	if (self && tgid == self)
		return true;
	return !kept(tgid, t, btf);
}

/*
 * sched_switch from prev to next at now (the switch record's time, 0 when
 * it has none), after the switch's own record:
 * prev's run ends (oncpu) and its wait begins (runq if still runnable,
 * offcpu if it blocks); next's wait ends (runq, offcpu) and its run
 * begins. frecd's own threads, and those -p leaves out, are neither
 * measured nor fired for.
 */
static __always_inline void trig_on_switch(__u64 now, bool preempt, unsigned int state,
					   struct task_struct *prev, struct task_struct *next,
					   __u32 prev_tgid, __u32 next_tgid, __u32 self,
					   const bool btf)
{
	__u64 comm[2], start;
	__u32 prev_pid = RD(btf, prev, pid), next_pid = RD(btf, next, pid), zero = 0;
	bool prev_self = trig_skip(prev_tgid, prev, self, btf);
	bool next_self = trig_skip(next_tgid, next, self, btf);
	struct frec_oncpu *oc = NULL;
	struct trig_thread *tt;

	if (!now)	/* no record of the switch: its own time */
		now = bpf_ktime_get_boot_ns();
	if (TRIG_ARMED(FREC_TRIG_ONCPU)) {
		oc = bpf_map_lookup_elem(&oncpu, &zero);
		if (oc && oc->since_ts && oc->pid == prev_pid && prev_pid)
			trig_eval(FREC_TRIG_ONCPU, trig_mask[FREC_TRIG_ONCPU], now, oc->since_ts, 0,
				  prev_pid, prev_tgid, (const __u64 *)oc->comm, prev, btf);
	}
	if ((trig_kinds & TRIG_THREAD_KINDS) && prev_pid && !prev_self) {
		tt = trig_thread(prev, prev_pid, true, btf);
		if (tt) {
			if (preempt || !state) {
				/* still runnable: waits for the CPU from now */
				if (TRIG_ARMED(FREC_TRIG_RUNQ))
					tt->waking_ts = now;
			} else {
				/* a waking before it blocked (a wakeup that
				 * raced its sleep) is no wait of this sleep */
				tt->waking_ts = 0;
				if (TRIG_ARMED(FREC_TRIG_OFFCPU) && !(state & TASK_DEAD_))
					tt->offcpu_ts = now;
			}
		}
	}
	if ((trig_kinds & TRIG_THREAD_KINDS) && next_pid && !next_self) {
		tt = trig_thread(next, next_pid, false, btf);
		if (tt && (tt->waking_ts || tt->offcpu_ts)) {
			read_comm((char *)comm, next, btf);
			start = tt->waking_ts;
			tt->waking_ts = 0;
			if (TRIG_ARMED(FREC_TRIG_RUNQ) && start)
				trig_eval(FREC_TRIG_RUNQ, trig_mask[FREC_TRIG_RUNQ], now, start, 0,
					  next_pid, next_tgid, comm, next, btf);
			start = tt->offcpu_ts;
			tt->offcpu_ts = 0;
			if (TRIG_ARMED(FREC_TRIG_OFFCPU) && start)
				trig_eval(FREC_TRIG_OFFCPU, trig_mask[FREC_TRIG_OFFCPU], now, start, 0,
					  next_pid, next_tgid, comm, next, btf);
		}
	}
	if (oc) {
		oc->since_ts = next_pid && !next_self ? now : 0;
		oc->pid = next_pid;
		oc->tgid = next_tgid;
		read_comm(oc->comm, next, btf);
	}
}

#endif /* FREC_TRIGGER_SCHED_BPF_H */
