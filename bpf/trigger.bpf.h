/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Triggers as the programs see them, shared by frec.bpf.c and probe.bpf.c:
 * the armed table ("triggers"), the per-trigger state ("trigger_state"),
 * the knob that says which kinds are armed, the filter and the firing
 * (bpf/trigger.h says what frecd and the programs agree on). The scheduler
 * side's own state is in trigger_sched.bpf.h.
 *
 * frecd creates both maps with the scheduler object and hands them to the
 * probe object with bpf_map__reuse_fd(), as it does the rings. It sets
 * trig_kinds between open and load: with it 0 every trigger path is dead
 * to the verifier, which removes it; trig_cgroups likewise prunes the
 * cgroup= check when no trigger has one.
 *
 * Any program may fire, from any context, nested or not: the only shared
 * writes are the state's, whose races bpf/trigger.h describes. Expects
 * vmlinux.h, bpf_helpers.h and bpf_core_read.h first.
 */
#ifndef FREC_TRIGGER_BPF_H
#define FREC_TRIGGER_BPF_H

#include "frec/record.h"
#include "trigger.h"
#include "ring.bpf.h"
#include "cgroup.bpf.h"
#include "filter_cgroup.bpf.h"

/* Knob, set by frecd between open and load: bit 1 << kind for each kind
 * (enum frec_trigger_kind) this object evaluates. */
const volatile __u32 trig_kinds = 0;
/* Knob: some trigger has cgroup= (the check is dead code otherwise). */
const volatile bool trig_cgroups = false;

#define TRIG_ARMED(kind)	(trig_kinds & (1u << (kind)))

/* Index id - 1; written by frecd, read-only here. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct frec_trigger_bpf);
} triggers SEC(".maps");

/* Index id - 1, one for all CPUs. Mappable, so that frecd can clear
 * supp_first_ts and supp_worst without writing back the count a program
 * may be adding to (an update of the whole value would lose that add). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FREC_MAX_TRIGGERS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct frec_trigger_state);
} trigger_state SEC(".maps");

/* Whether trigger t's filter lets the thread (tgid, comm) through: pid=
 * is a tgid, comm= the name up to and with its NUL (t->comm_mask), cgroup=
 * the cgroup of task (NULL: current) or one below it. */
static __always_inline bool trig_match(const struct frec_trigger_bpf *t, __u32 tgid,
				       const __u64 *comm, struct task_struct *task, const bool btf)
{
	const __u64 *want = (const __u64 *)t->comm, *mask = t->comm_mask;
	struct cgroup *cg;

	if (t->tgid && t->tgid != tgid)
		return false;
	if (t->comm[0] && (((want[0] ^ comm[0]) & mask[0]) | ((want[1] ^ comm[1]) & mask[1])))
		return false;
	if (trig_cgroups && t->cgroup_id) {
		/* Raw reads even on tp_btf: current is only a number, and 6.1's
		 * verifier refuses the typed cgroup pointer in this loop (the
		 * ancestor's address is computed from it). Only cgroup= pays. */
		if (!task)
			task = (struct task_struct *)bpf_get_current_task();
		cg = task_cgroup(task, false);
		if (!cg || !cgroup_under(cg, cgroup_level_of(cg, false), t->cgroup_id,
					 t->cgroup_level))
			return false;
	}
	return true;
}

/*
 * Trigger index i's condition held at now for the thread (pid, tgid,
 * comm). value is what was measured; for a duration, start is when it
 * began (value 0) and the record's value is now minus start, so that it
 * equals the recorded events' difference and frecd can tell a run it
 * fired for itself (an oncpu's h.ts - value == since_ts). now is the
 * event's own record's time, and the trigger record is stamped with it:
 * it follows that record in the CPU's ring, so time order holds, and that
 * record is submitted after it (ring.bpf.h), so one drain takes both.
 * Inside the cooldown no record is written, only counted (bpf/trigger.h);
 * else the record wakes frecd at once.
 */
static __always_inline void trig_fire(__u32 i, const struct frec_trigger_bpf *t, __u64 now,
				      __u64 start, __u64 value, __u32 pid, __u32 tgid,
				      const __u64 *comm)
{
	struct frec_rec_trigger *r;
	struct frec_trigger_state *st;
	__u32 key = i;

	st = bpf_map_lookup_elem(&trigger_state, &key);
	if (!st)
		return;
	if (t->cooldown_ns && st->last_fire_ts && now - st->last_fire_ts < t->cooldown_ns) {
		if (start)
			value = now - start;
		__sync_fetch_and_add(&st->suppressed, 1);
		if (!st->supp_first_ts)
			st->supp_first_ts = now;
		if (value > st->supp_worst) {
			st->supp_worst = value;
			st->supp_tid = pid;
			st->supp_tgid = tgid;
		}
		return;
	}
	st->last_fire_ts = now;
	r = ring_reserve(sizeof(*r), FREC_EV_TRIGGER);
	if (!r)
		return;
	r->trigger_id = i + 1;
	r->pid = pid;
	r->tgid = tgid;
	r->flags = 0;
	/* At the time of the event that completed the condition (the
	 * switch, the return), not of this reserve: the value is then exactly
	 * what the recorded events show, and h.ts - value is the start. */
	r->h.ts = now;
	r->value = start ? now - start : value;
	((__u64 *)r->comm)[0] = comm[0];
	((__u64 *)r->comm)[1] = comm[1];
	bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
}

/*
 * Fire every trigger of kind in mask (bit id - 1) whose filter matches the
 * thread (its task: NULL for current, see trig_match()): a duration (start set) when it exceeds the trigger's threshold,
 * a value (start 0) always. Not unrolled: the mask is usually one or two
 * bits, and the loop stops after the highest.
 */
static __always_inline void trig_eval(__u32 kind, __u32 mask, __u64 now, __u64 start,
				      __u64 value, __u32 pid, __u32 tgid, const __u64 *comm,
				      struct task_struct *task, const bool btf)
{
	__u64 i;	/* the loop's own, in a register: the verifier must see it grow */

#pragma clang loop unroll(disable)
	for (i = 0; i < FREC_MAX_TRIGGERS; i++) {
		const struct frec_trigger_bpf *t;
		__u32 key = i;

		if (!(mask >> i))
			break;
		if (!(mask & (1u << i)))
			continue;
		t = bpf_map_lookup_elem(&triggers, &key);
		if (!t || t->kind != kind || !trig_match(t, tgid, comm, task, btf))
			continue;
		if (start && now - start <= t->threshold_ns)
			continue;
		trig_fire(i, t, now, start, value, pid, tgid, comm);
	}
}

#endif /* FREC_TRIGGER_BPF_H */
