// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec's scheduler programs: one record per sched_switch, sched_waking,
 * sched_wakeup_new, fork, exec, exit, migration and rename (sched_wakeup on
 * request), written into the current CPU's ring buffer (ring.bpf.h), which
 * frecd drains on a timer.
 *
 * Every tracepoint has two programs with the same body: a tp_btf one (typed
 * arguments, cheapest) and a raw_tp twin. frecd loads the tp_btf set and
 * falls back to the raw_tp set, choosing with bpf_program__set_autoload(),
 * when the kernel cannot load tp_btf (no BTF for the attach point, or an
 * older verifier). Both find task_struct's fields through CO-RE, so one
 * object runs on every kernel with BTF (or with --btf FILE for raw_tp); the
 * tp_btf set reads them with plain loads (its arguments are typed pointers
 * the verifier lets it dereference), the raw_tp set needs
 * bpf_probe_read_kernel() for each: see RD() in task.bpf.h.
 *
 * With --stacks offcpu, frecd loads sched_switch's stack twin instead,
 * which also writes the stacks of a thread that blocks (stack.bpf.h).
 *
 * Program names start with "frec_" so that they can be told apart in
 * `bpftool prog show`; the kernel keeps only 15 characters of a name.
 */
#include "vmlinux.h"
/* The scheduler's tracepoints run with preemption off: the --cgroup
 * check may keep its memo here (filter_cgroup.bpf.h). */
#define FREC_FILTER_MEMO 1
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "frec/record.h"
#include "ring.bpf.h"
#include "task.bpf.h"
#include "switch_state.bpf.h"
#include "cgroup.bpf.h"
#include "cgroup_memo.bpf.h"
#include "filter_pid.bpf.h"
#include "filter_self.bpf.h"
#include "trigger_sched.bpf.h"
#include "stack.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knobs, set by frecd between open and load (and those of the headers:
 * wakeup_shift, filter_pids, filter_cgroups, cgroup_mode, kernel_version). */
const volatile __u32 self_tgid = 0;		/* frecd: its events are left out but for switches */
const volatile bool switch_has_state_arg = true; /* sched_switch has prev_state (5.18+) */
const volatile bool stack_offcpu = false;	/* --stacks offcpu: a blocked prev's stacks */

/*
 * Whether an event that concerns threads ta and tb of processes a and b (the
 * same twice when it concerns one) is left out: it is about frecd itself
 * (filter_self.bpf.h; not counted), or about none of the processes of -p
 * and cgroups of --cgroup (filter_pid.bpf.h). sched_switch is the exception
 * (see on_switch()).
 */
static __always_inline bool skip(__u32 a, struct task_struct *ta, __u32 b, struct task_struct *tb,
				 const bool btf)
{
	if (is_self(&self_tgid, a, b))
		return true;
	return filtered(a, ta, b, tb, btf);
}

/*
 * The handlers. Each takes the tracepoint's arguments as u64s: tp_btf and
 * raw_tp programs both see them as an array of u64. All ctx fields are read
 * into locals first thing, because clang 14 may otherwise emit a load through
 * a modified ctx pointer, which the verifier rejects.
 */
static __always_inline int on_switch(__u64 *ctx, const bool btf, const bool trig, const bool stk)
{
	bool preempt = ctx[0];
	struct task_struct *prev = (void *)ctx[1];
	struct task_struct *next = (void *)ctx[2];
	/* 5.18, "sched/tracing: Don't re-read p->state when emitting
	 * sched_switch event", added prev_state as the 4th argument. frecd
	 * sets the knob from the tracepoint's BTF prototype; where it is
	 * false the verifier never sees this read. */
	unsigned int state = switch_has_state_arg ? (unsigned int)ctx[3] : 0;
	struct frec_rec_switch *r;
	__u32 prev_pid, prev_tgid, next_tgid;
	__u64 ts;

	prev_tgid = RD(btf, prev, tgid);
	next_tgid = RD(btf, next, tgid);
	/* Switches to and from frecd are kept: leaving out "X -> frecd" would
	 * lose X's switch out and leave a hole in the CPU's timeline. They are
	 * few (frecd wakes on a timer) and cause no wakeups of their own. */
	if (filtered(prev_tgid, prev, next_tgid, next, btf)) {
		/* neither is measured, but the CPU's oncpu entry moves on */
		if (trig)
			trig_on_switch(0, preempt, 0, prev, next, prev_tgid, next_tgid, self_tgid, btf);
		return 0;
	}
	if (!switch_has_state_arg)
		state = task_state(prev, btf);
	/* The tracepoint fires in __schedule() before the context switch:
	 * current is prev, whose ids are at hand (no helper call). */
	prev_pid = RD(btf, prev, pid);
	r = ring_reserve_as(sizeof(*r), FREC_EV_SCHED_SWITCH, prev_pid, prev_tgid);
	if (!r) {
		if (trig)
			trig_on_switch(0, preempt, state, prev, next, prev_tgid, next_tgid, self_tgid, btf);
		return 0;
	}
	r->prev_pid = prev_pid;
	r->prev_tgid = prev_tgid;
	r->next_pid = RD(btf, next, pid);
	r->next_tgid = next_tgid;
	r->prev_prio = RD(btf, prev, prio);
	r->next_prio = RD(btf, next, prio);
	r->prev_state = reported_state(preempt, state, prev, btf);
	read_comm(r->prev_comm, prev, btf);
	read_comm(r->next_comm, next, btf);
	r->next_cgroup = task_cgroup_id_memo(next, btf);
	ts = r->h.ts;
	/* Stacks after the record they belong to (stack.bpf.h), in the
	 * stack twins only (stk): even a knob's test would cost the default
	 * programs instructions. frecd's own waits on its timer are left out. */
	if (stk && stack_offcpu && prev_tgid != self_tgid &&
	    switch_blocked(preempt, state, prev, btf))
		stack_emit_offcpu(ctx, ts, prev_pid, prev_tgid, switch_has_user(prev, btf));
	if (trig)
		trig_on_switch(ts, preempt, state, prev, next, prev_tgid, next_tgid, self_tgid, btf);
	/* last: what followed with its time is behind it (ring.bpf.h) */
	ring_submit(r);
	return 0;
}

/* sched_waking, sched_wakeup, sched_wakeup_new: the wakee; the waker is current. */
static __always_inline int on_wake(__u64 *ctx, __u16 type, const bool btf, const bool trig)
{
	struct task_struct *p = (void *)ctx[0];
	struct frec_rec_wake *r;
	__u32 tgid;
	__u64 ts;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, p, tgid, p, btf))
		return 0;
	r = ring_reserve(sizeof(*r), type);
	if (!r) {
		if (trig)
			trig_on_wake(0, p, tgid, self_tgid, type == FREC_EV_SCHED_WAKEUP_NEW, btf);
		return 0;
	}
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	r->prio = RD(btf, p, prio);
	r->target_cpu = task_cpu(p, btf);
	read_comm(r->comm, p, btf);
	ts = r->h.ts;
	ring_submit(r);
	if (trig)
		trig_on_wake(ts, p, tgid, self_tgid, type == FREC_EV_SCHED_WAKEUP_NEW, btf);
	return 0;
}

static __always_inline int on_fork(__u64 *ctx, const bool btf)
{
	struct task_struct *parent = (void *)ctx[0];
	struct task_struct *child = (void *)ctx[1];
	struct frec_rec_fork *r;
	__u32 parent_tgid, child_tgid;

	parent_tgid = RD(btf, parent, tgid);
	child_tgid = RD(btf, child, tgid);
	if (skip(parent_tgid, parent, child_tgid, child, btf))
		return 0;
	r = ring_reserve(sizeof(*r), FREC_EV_PROCESS_FORK);
	if (!r)
		return 0;
	r->parent_pid = RD(btf, parent, pid);
	r->parent_tgid = parent_tgid;
	r->child_pid = RD(btf, child, pid);
	r->child_tgid = child_tgid;
	read_comm(r->parent_comm, parent, btf);
	read_comm(r->child_comm, child, btf);
	r->child_cgroup = task_cgroup_id(child, btf);
	ring_submit(r);
	return 0;
}

static __always_inline int on_exec(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 old_pid = ctx[1];
	struct linux_binprm *bprm = (void *)ctx[2];
	struct frec_rec_exec *r;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, p, tgid, p, btf))
		return 0;
	r = ring_reserve(sizeof(*r), FREC_EV_PROCESS_EXEC);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->old_pid = old_pid;
	/* the stacks taken while the exec was under way already say it */
	task_program(p, btf, &r->proc_start_ns, &r->exec_id);
	/* begin_new_exec() has already set the new comm by now */
	read_comm(r->comm, p, btf);
	__builtin_memset(r->filename, 0, sizeof(r->filename));
	bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), RD(btf, bprm, filename));
	ring_submit(r);
	return 0;
}

/* Fires for every thread that exits; since 6.16 it has a 2nd argument
 * (group_dead) that frec does not need. */
static __always_inline int on_exit(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	struct frec_rec_exit *r;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, p, tgid, p, btf))
		return 0;
	r = ring_reserve(sizeof(*r), FREC_EV_PROCESS_EXIT);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	r->prio = RD(btf, p, prio);
	r->__pad = 0;
	read_comm(r->comm, p, btf);
	ring_submit(r);
	return 0;
}

/* Fires before the new name is copied in, so task->comm is still the old one. */
static __always_inline int on_rename(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	const char *comm = (const char *)ctx[1];
	struct frec_rec_rename *r;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, p, tgid, p, btf))
		return 0;
	r = ring_reserve(sizeof(*r), FREC_EV_TASK_RENAME);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	read_comm(r->oldcomm, p, btf);
	__builtin_memset(r->newcomm, 0, sizeof(r->newcomm));
	bpf_probe_read_kernel_str(r->newcomm, sizeof(r->newcomm), comm);
	ring_submit(r);
	return 0;
}

static __always_inline int on_migrate(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 dest_cpu = ctx[1];
	struct frec_rec_migrate *r;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, p, tgid, p, btf))
		return 0;
	r = ring_reserve(sizeof(*r), FREC_EV_MIGRATE_TASK);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	r->prio = RD(btf, p, prio);
	r->orig_cpu = task_cpu(p, btf);
	r->dest_cpu = dest_cpu;
	r->__pad = 0;
	read_comm(r->comm, p, btf);
	ring_submit(r);
	return 0;
}

/* The programs: a tp_btf one and its raw_tp twin per tracepoint; call
 * names btf, a constant in each. */
#define FREC_PROG_PAIR(tp, name, call)					\
SEC("tp_btf/" #tp)							\
int frec_##name(__u64 *ctx) { const bool btf = true; return call; }	\
SEC("raw_tp/" #tp)							\
int frec_raw_##name(__u64 *ctx) { const bool btf = false; return call; }

/*
 * Where triggers are evaluated (sched_switch, sched_waking,
 * sched_wakeup_new), a second pair does the same and the triggers' part
 * (trig true): frecd loads one pair or the other (src/frecd/loader.c), so
 * without a trigger the programs are those of a frec without triggers,
 * instruction for instruction. Within the trigger pair, the kinds not
 * armed are pruned by trig_kinds. Named "frec_trig_*" (the kernel keeps
 * 15 characters: "frec_trig_raw_w" for both wakes).
 */
#define FREC_PROG_QUAD(tp, name, call)					\
FREC_PROG_PAIR(tp, name, ({ const bool trig = false; call; }))		\
SEC("tp_btf/" #tp)							\
int frec_trig_##name(__u64 *ctx)					\
{ const bool btf = true, trig = true; return call; }			\
SEC("raw_tp/" #tp)							\
int frec_trig_raw_##name(__u64 *ctx)					\
{ const bool btf = false, trig = true; return call; }

/*
 * sched_switch has twice as many: each of the four above and its stack twin
 * (stk true, "frec_stk_*"), which also captures the stacks of a thread that
 * blocks (--stacks offcpu). frecd loads one of the eight.
 */
#define FREC_PROG_STK(sec, name, btf_, trig_)				\
SEC(sec)								\
int frec_stk_##name(__u64 *ctx)						\
{ const bool btf = btf_, trig = trig_, stk = true; return on_switch(ctx, btf, trig, stk); }

FREC_PROG_QUAD(sched_switch, switch, on_switch(ctx, btf, trig, false))
FREC_PROG_STK("tp_btf/sched_switch", switch, true, false)
FREC_PROG_STK("raw_tp/sched_switch", raw_switch, false, false)
FREC_PROG_STK("tp_btf/sched_switch", trig_switch, true, true)
FREC_PROG_STK("raw_tp/sched_switch", trig_raw_switch, false, true)
FREC_PROG_QUAD(sched_waking, waking, on_wake(ctx, FREC_EV_SCHED_WAKING, btf, trig))
FREC_PROG_PAIR(sched_wakeup, wakeup, on_wake(ctx, FREC_EV_SCHED_WAKEUP, btf, false))
FREC_PROG_QUAD(sched_wakeup_new, wakeup_new, on_wake(ctx, FREC_EV_SCHED_WAKEUP_NEW, btf, trig))
FREC_PROG_PAIR(sched_process_fork, fork, on_fork(ctx, btf))
FREC_PROG_PAIR(sched_process_exec, exec, on_exec(ctx, btf))
FREC_PROG_PAIR(sched_process_exit, exit, on_exit(ctx, btf))
FREC_PROG_PAIR(sched_migrate_task, migrate, on_migrate(ctx, btf))
FREC_PROG_PAIR(task_rename, rename, on_rename(ctx, btf))
