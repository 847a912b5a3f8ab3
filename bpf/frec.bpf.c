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
 * bpf_probe_read_kernel() for each: see RD().
 *
 * Program names start with "frec_" so that they can be told apart in
 * `bpftool prog show`; the kernel keeps only 15 characters of a name.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "frec/record.h"
#include "ring.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knobs, set by frecd between open and load. */
const volatile __u32 self_tgid = 0;		/* frecd: its events are left out but for switches */
const volatile bool filter_pids = false;	/* -p given: keep only pid_filter tgids */
const volatile bool switch_has_state_arg = true; /* sched_switch has prev_state (5.18+) */

/* tgids given with -p; filled by frecd after load and before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FREC_MAX_PID_FILTER);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

/*
 * Kernel drift, handled with CO-RE "flavours" (the ___suffix is ignored when
 * matching against the running kernel's BTF):
 * - 5.14, "sched: Change task_struct::state": state became __state (unsigned int).
 * - 5.16, "sched: move CPU field back into thread_info if THREAD_INFO_IN_TASK":
 *   task_cpu() reads thread_info.cpu; before, task_struct::cpu.
 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/*
 * Field f of the kernel object p points to. btf is a constant in every
 * caller once inlined: true in the tp_btf programs, where p is a typed
 * pointer from the tracepoint's arguments and a plain load does (the
 * verifier turns it into a fault-safe one); false in the raw_tp ones, where p
 * is just a number to the verifier and every read is a helper call. The
 * member offsets are CO-RE relocated either way. Measured on sched_switch:
 * the seven helper calls it made were a visible part of frec's cost.
 */
#define RD(btf, p, f) ((btf) ? (p)->f : BPF_CORE_READ(p, f))

/*
 * A task's comm into dst (FREC_COMM_LEN bytes, 8-aligned in every record):
 * in tp_btf, two plain 8-byte loads, which the verifier allows inside a char
 * array of a typed pointer; in raw_tp, one bpf_probe_read_kernel(). The
 * kernel keeps comm NUL-terminated and NUL-padded, as the helper would copy it.
 */
static __always_inline void read_comm(char *dst, struct task_struct *p, const bool btf)
{
	if (btf) {
		((__u64 *)dst)[0] = *(const __u64 *)&p->comm[0];
		((__u64 *)dst)[1] = *(const __u64 *)&p->comm[8];
	} else {
		BPF_CORE_READ_INTO((char (*)[FREC_COMM_LEN])dst, p, comm);
	}
}

static __always_inline unsigned int task_state(struct task_struct *t, const bool btf)
{
	if (bpf_core_field_exists(t->__state))
		return RD(btf, t, __state);
	return RD(btf, (struct task_struct___pre514 *)t, state);
}

static __always_inline __u32 task_cpu(struct task_struct *t, const bool btf)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return RD(btf, t, thread_info.cpu);
	return RD(btf, (struct task_struct___pre516 *)t, cpu);
}

/*
 * prev_state as the sched_switch tracepoint reports it
 * (__trace_sched_switch_state(), include/trace/events/sched.h): a preempted
 * task is reported as TASK_REPORT_MAX whatever its state, otherwise one bit,
 * that of the highest reportable state in (state | exit_state) & TASK_REPORT,
 * as __task_state_index() (include/linux/sched.h; task_state_index() before
 * 5.18) picks it after folding three states:
 * - TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD) is reported as I, not D;
 * - TASK_RTLOCK_WAIT (5.15, "sched: Introduce TASK_RTLOCK_WAIT"; PREEMPT_RT
 *   only) as D;
 * - TASK_FROZEN (6.1, "freezer,sched: Rewrite core freezer logic") as D
 *   since "freezer, sched: Report frozen tasks as 'D' instead of 'R'"
 *   (f718faf3940e, 6.13; in stable 6.12.8, 6.6.69 and 6.1.123); before, it
 *   has no reportable bit and is reported as R.
 * The first two are tested by equality until "sched/core: Report correct
 * state for TASK_IDLE | TASK_FREEZABLE" (0d6b35283bcf, 6.6; in stable
 * 6.1.123) tests them by mask, so that a flag beside them (TASK_FREEZABLE,
 * 6.1) no longer turns I into D. Neither change shows in BTF: the kernel's
 * version decides, kernel_version as frecd read it (0: unknown, taken as
 * the newest). The bits are unused before the kernels that define them
 * (0x1000 was TASK_STATE_MAX, 0x8000 free), so testing them there changes
 * nothing. The values are those of 4.14 and later, when TASK_REPORT_IDLE
 * and TASK_REPORT_MAX got their present meaning.
 */
#define TASK_UNINTERRUPTIBLE_	0x0002
#define TASK_REPORT_		0x007f
#define TASK_REPORT_IDLE_	0x0080
#define TASK_REPORT_MAX_	0x0100
#define TASK_IDLE_		0x0402	/* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_RTLOCK_WAIT_	0x1000
#define TASK_FROZEN_		0x8000

/* Knob, set by frecd between open and load: LINUX_VERSION_CODE, 0 if unknown. */
const volatile __u32 kernel_version = 0;

#define KV_(a, b, c)		(((a) << 16) + ((b) << 8) + (c))
/* kernel_version is at least a.b.c, or in the stable series a.b at least a.b.c */
#define KV_SINCE_(a, b, c)	(kernel_version >= KV_(a, b, c) && kernel_version < KV_(a, (b) + 1, 0))

static __always_inline bool state_by_mask(void)
{
	return !kernel_version || kernel_version >= KV_(6, 6, 0) || KV_SINCE_(6, 1, 123);
}

static __always_inline bool frozen_as_d(void)
{
	/* only ever with state_by_mask(): 6.1.123 took both changes */
	return !kernel_version || kernel_version >= KV_(6, 13, 0) || KV_SINCE_(6, 12, 8) ||
	       KV_SINCE_(6, 6, 69) || KV_SINCE_(6, 1, 123);
}

static __always_inline __u64 reported_state(bool preempt, unsigned int state,
					    struct task_struct *prev, const bool btf)
{
	unsigned int s;

	if (preempt)
		return TASK_REPORT_MAX_;
	s = (state | RD(btf, prev, exit_state)) & TASK_REPORT_;
	if (state_by_mask()) {
		if ((state & TASK_IDLE_) == TASK_IDLE_)
			s = TASK_REPORT_IDLE_;
		if ((state & TASK_RTLOCK_WAIT_) || (frozen_as_d() && (state & TASK_FROZEN_)))
			s = TASK_UNINTERRUPTIBLE_;
	} else {
		if (state == TASK_IDLE_)
			s = TASK_REPORT_IDLE_;
		if (state == TASK_RTLOCK_WAIT_)
			s = TASK_UNINTERRUPTIBLE_;
	}
	if (!s)
		return 0;
	/* keep the highest set bit, as 1 << (fls(s) - 1) does */
	s |= s >> 1;
	s |= s >> 2;
	s |= s >> 4;
	s |= s >> 8;
	return s - (s >> 1);
}

/*
 * Whether an event that concerns processes a and b (b == a when it concerns
 * one) is left out because of -p: it concerns none of those processes.
 */
static __always_inline bool filtered(__u32 a, __u32 b)
{
	if (!filter_pids)
		return false;
	if (bpf_map_lookup_elem(&pid_filter, &a) || (b != a && bpf_map_lookup_elem(&pid_filter, &b)))
		return false;
	count(FREC_CNT_FILTERED);
	return true;
}

/*
 * ... or because it is about frecd itself: its wakeups would otherwise be
 * recorded and drained, and woken for, in a loop. sched_switch is the
 * exception (see on_switch()).
 */
static __always_inline bool skip(__u32 a, __u32 b)
{
	if (self_tgid && (a == self_tgid || b == self_tgid))
		return true;
	return filtered(a, b);
}

/*
 * The handlers. Each takes the tracepoint's arguments as u64s: tp_btf and
 * raw_tp programs both see them as an array of u64. All ctx fields are read
 * into locals first thing, because clang 14 may otherwise emit a load through
 * a modified ctx pointer, which the verifier rejects.
 */
static __always_inline int on_switch(__u64 *ctx, const bool btf)
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
	void *ring;
	__u32 prev_tgid, next_tgid;

	prev_tgid = RD(btf, prev, tgid);
	next_tgid = RD(btf, next, tgid);
	/* Switches to and from frecd are kept: leaving out "X -> frecd" would
	 * lose X's switch out and leave a hole in the CPU's timeline. They are
	 * few (frecd wakes on a timer) and cause no wakeups of their own. */
	if (filtered(prev_tgid, next_tgid))
		return 0;
	if (!switch_has_state_arg)
		state = task_state(prev, btf);
	r = ring_reserve(&ring, sizeof(*r), FREC_EV_SCHED_SWITCH);
	if (!r)
		return 0;
	r->prev_pid = RD(btf, prev, pid);
	r->prev_tgid = prev_tgid;
	r->next_pid = RD(btf, next, pid);
	r->next_tgid = next_tgid;
	r->prev_prio = RD(btf, prev, prio);
	r->next_prio = RD(btf, next, prio);
	r->prev_state = reported_state(preempt, state, prev, btf);
	read_comm(r->prev_comm, prev, btf);
	read_comm(r->next_comm, next, btf);
	ring_submit(ring, r);
	return 0;
}

/* sched_waking, sched_wakeup, sched_wakeup_new: the wakee; the waker is current. */
static __always_inline int on_wake(__u64 *ctx, __u16 type, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	struct frec_rec_wake *r;
	void *ring;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = ring_reserve(&ring, sizeof(*r), type);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	r->prio = RD(btf, p, prio);
	r->target_cpu = task_cpu(p, btf);
	read_comm(r->comm, p, btf);
	ring_submit(ring, r);
	return 0;
}

static __always_inline int on_fork(__u64 *ctx, const bool btf)
{
	struct task_struct *parent = (void *)ctx[0];
	struct task_struct *child = (void *)ctx[1];
	struct frec_rec_fork *r;
	void *ring;
	__u32 parent_tgid, child_tgid;

	parent_tgid = RD(btf, parent, tgid);
	child_tgid = RD(btf, child, tgid);
	if (skip(parent_tgid, child_tgid))
		return 0;
	r = ring_reserve(&ring, sizeof(*r), FREC_EV_PROCESS_FORK);
	if (!r)
		return 0;
	r->parent_pid = RD(btf, parent, pid);
	r->parent_tgid = parent_tgid;
	r->child_pid = RD(btf, child, pid);
	r->child_tgid = child_tgid;
	read_comm(r->parent_comm, parent, btf);
	read_comm(r->child_comm, child, btf);
	ring_submit(ring, r);
	return 0;
}

static __always_inline int on_exec(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 old_pid = ctx[1];
	struct linux_binprm *bprm = (void *)ctx[2];
	struct frec_rec_exec *r;
	void *ring;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = ring_reserve(&ring, sizeof(*r), FREC_EV_PROCESS_EXEC);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->old_pid = old_pid;
	/* begin_new_exec() has already set the new comm by now */
	read_comm(r->comm, p, btf);
	__builtin_memset(r->filename, 0, sizeof(r->filename));
	bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), RD(btf, bprm, filename));
	ring_submit(ring, r);
	return 0;
}

/* Fires for every thread that exits; since 6.16 it has a 2nd argument
 * (group_dead) that frec does not need. */
static __always_inline int on_exit(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	struct frec_rec_exit *r;
	void *ring;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = ring_reserve(&ring, sizeof(*r), FREC_EV_PROCESS_EXIT);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	r->prio = RD(btf, p, prio);
	r->__pad = 0;
	read_comm(r->comm, p, btf);
	ring_submit(ring, r);
	return 0;
}

/* Fires before the new name is copied in, so task->comm is still the old one. */
static __always_inline int on_rename(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	const char *comm = (const char *)ctx[1];
	struct frec_rec_rename *r;
	void *ring;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = ring_reserve(&ring, sizeof(*r), FREC_EV_TASK_RENAME);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	read_comm(r->oldcomm, p, btf);
	__builtin_memset(r->newcomm, 0, sizeof(r->newcomm));
	bpf_probe_read_kernel_str(r->newcomm, sizeof(r->newcomm), comm);
	ring_submit(ring, r);
	return 0;
}

static __always_inline int on_migrate(__u64 *ctx, const bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 dest_cpu = ctx[1];
	struct frec_rec_migrate *r;
	void *ring;
	__u32 tgid;

	tgid = RD(btf, p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = ring_reserve(&ring, sizeof(*r), FREC_EV_MIGRATE_TASK);
	if (!r)
		return 0;
	r->pid = RD(btf, p, pid);
	r->tgid = tgid;
	r->prio = RD(btf, p, prio);
	r->orig_cpu = task_cpu(p, btf);
	r->dest_cpu = dest_cpu;
	r->__pad = 0;
	read_comm(r->comm, p, btf);
	ring_submit(ring, r);
	return 0;
}

/* The programs: a tp_btf one and its raw_tp twin per tracepoint; call
 * names btf, a constant in each. */
#define FREC_PROG_PAIR(tp, name, call)					\
SEC("tp_btf/" #tp)							\
int frec_##name(__u64 *ctx) { const bool btf = true; return call; }	\
SEC("raw_tp/" #tp)							\
int frec_raw_##name(__u64 *ctx) { const bool btf = false; return call; }

FREC_PROG_PAIR(sched_switch, switch, on_switch(ctx, btf))
FREC_PROG_PAIR(sched_waking, waking, on_wake(ctx, FREC_EV_SCHED_WAKING, btf))
FREC_PROG_PAIR(sched_wakeup, wakeup, on_wake(ctx, FREC_EV_SCHED_WAKEUP, btf))
FREC_PROG_PAIR(sched_wakeup_new, wakeup_new, on_wake(ctx, FREC_EV_SCHED_WAKEUP_NEW, btf))
FREC_PROG_PAIR(sched_process_fork, fork, on_fork(ctx, btf))
FREC_PROG_PAIR(sched_process_exec, exec, on_exec(ctx, btf))
FREC_PROG_PAIR(sched_process_exit, exit, on_exit(ctx, btf))
FREC_PROG_PAIR(sched_migrate_task, migrate, on_migrate(ctx, btf))
FREC_PROG_PAIR(task_rename, rename, on_rename(ctx, btf))
