// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec's scheduler programs: one record per sched_switch, sched_waking,
 * sched_wakeup_new, fork, exec, exit, migration and rename (sched_wakeup on
 * request), written into one ring buffer that frecd drains on a timer.
 *
 * Every tracepoint has two programs with the same body: a tp_btf one (typed
 * arguments, cheapest) and a raw_tp twin. frecd loads the tp_btf set and
 * falls back to the raw_tp set, choosing with bpf_program__set_autoload(),
 * when the kernel cannot load tp_btf (no BTF for the attach point, or an
 * older verifier). Both read task_struct through CO-RE, so one object runs on
 * every kernel with BTF (or with --btf FILE for raw_tp).
 *
 * Program names start with "frec_" so that they can be told apart in
 * `bpftool prog show`; the kernel keeps only 15 characters of a name.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "frec/record.h"
#include "frec.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knobs, set by frecd between open and load. */
const volatile __u32 self_tgid = 0;		/* frecd: its events are left out but for switches */
const volatile bool filter_pids = false;	/* -p given: keep only pid_filter tgids */
const volatile bool switch_has_state_arg = true; /* sched_switch has prev_state (5.18+) */
const volatile __u64 wakeup_threshold = FREC_WAKEUP_THRESHOLD;

/* Size set by frecd from --ring-size (bpf_map__set_max_entries) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* enum frec_counter; per CPU so that counting needs no atomics. The kernel
 * keeps no count of failed reserves, so this is the only record of drops. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FREC_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

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

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

static __always_inline __u32 task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}

/*
 * prev_state as the sched_switch tracepoint reports it
 * (__trace_sched_switch_state() in include/trace/events/sched.h): a
 * preempted task is reported as TASK_REPORT_MAX whatever its state, otherwise
 * one bit for the highest reportable state. The values are those of 4.14 and
 * later, when TASK_REPORT_IDLE and TASK_REPORT_MAX got their present meaning.
 */
#define TASK_UNINTERRUPTIBLE_	0x0002
#define TASK_REPORT_		0x007f
#define TASK_REPORT_IDLE_	0x0080
#define TASK_REPORT_MAX_	0x0100
#define TASK_IDLE_		0x0402	/* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_RTLOCK_WAIT_	0x1000

static __always_inline __u64 reported_state(bool preempt, unsigned int state,
					    struct task_struct *prev)
{
	unsigned int s;

	if (preempt)
		return TASK_REPORT_MAX_;
	s = (state | BPF_CORE_READ(prev, exit_state)) & TASK_REPORT_;
	if (state == TASK_IDLE_)
		s = TASK_REPORT_IDLE_;
	else if (state == TASK_RTLOCK_WAIT_)
		s = TASK_UNINTERRUPTIBLE_;
	if (!s)
		return 0;
	/* keep the highest set bit, as 1 << (fls(s) - 1) does */
	s |= s >> 1;
	s |= s >> 2;
	s |= s >> 4;
	s |= s >> 8;
	return s - (s >> 1);
}

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
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

static __always_inline void *reserve(__u32 size, __u16 type)
{
	struct frec_rec_hdr *h;
	__u64 id;

	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		count(FREC_CNT_DROPPED);
		return NULL;
	}
	id = bpf_get_current_pid_tgid();
	h->ts = bpf_ktime_get_boot_ns();
	h->tid = (__u32)id;
	h->tgid = id >> 32;
	h->type = type;
	h->cpu = bpf_get_smp_processor_id();
	h->size = size;
	return h;
}

/*
 * No wakeup per record (see FREC_WAKEUP_THRESHOLD): one each time the data
 * waiting in the ring crosses another multiple of the threshold. Not one per
 * record above it: a forced wakeup costs an irq_work, and while frecd lags
 * (descheduled, or busy) every record would pay it, exactly when the machine
 * is busiest. AVAIL_DATA already counts this record (the reserve moved the
 * producer), so the crossing lies between avail - its ring bytes and avail;
 * one missed in a race with another CPU defers the drain to the next
 * crossing or to frecd's timer.
 */
static __always_inline void submit(void *rec)
{
	__u32 bytes = (((struct frec_rec_hdr *)rec)->size + 8 + 7) & ~7u; /* + ring header */
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u64 thr = wakeup_threshold;
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (thr && avail >= thr && avail / thr != (avail - bytes) / thr)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(rec, flags);
}

/*
 * The handlers. Each takes the tracepoint's arguments as u64s: tp_btf and
 * raw_tp programs both see them as an array of u64. All ctx fields are read
 * into locals first thing, because clang 14 may otherwise emit a load through
 * a modified ctx pointer, which the verifier rejects.
 */
static __always_inline int on_switch(__u64 *ctx)
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
	__u32 prev_tgid, next_tgid;

	prev_tgid = BPF_CORE_READ(prev, tgid);
	next_tgid = BPF_CORE_READ(next, tgid);
	/* Switches to and from frecd are kept: leaving out "X -> frecd" would
	 * lose X's switch out and leave a hole in the CPU's timeline. They are
	 * few (frecd wakes on a timer) and cause no wakeups of their own. */
	if (filtered(prev_tgid, next_tgid))
		return 0;
	if (!switch_has_state_arg)
		state = task_state(prev);
	r = reserve(sizeof(*r), FREC_EV_SCHED_SWITCH);
	if (!r)
		return 0;
	r->prev_pid = BPF_CORE_READ(prev, pid);
	r->prev_tgid = prev_tgid;
	r->next_pid = BPF_CORE_READ(next, pid);
	r->next_tgid = next_tgid;
	r->prev_prio = BPF_CORE_READ(prev, prio);
	r->next_prio = BPF_CORE_READ(next, prio);
	r->prev_state = reported_state(preempt, state, prev);
	BPF_CORE_READ_INTO(&r->prev_comm, prev, comm);
	BPF_CORE_READ_INTO(&r->next_comm, next, comm);
	submit(r);
	return 0;
}

/* sched_waking, sched_wakeup, sched_wakeup_new: the wakee; the waker is current. */
static __always_inline int on_wake(__u64 *ctx, __u16 type)
{
	struct task_struct *p = (void *)ctx[0];
	struct frec_rec_wake *r;
	__u32 tgid;

	tgid = BPF_CORE_READ(p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = reserve(sizeof(*r), type);
	if (!r)
		return 0;
	r->pid = BPF_CORE_READ(p, pid);
	r->tgid = tgid;
	r->prio = BPF_CORE_READ(p, prio);
	r->target_cpu = task_cpu(p);
	BPF_CORE_READ_INTO(&r->comm, p, comm);
	submit(r);
	return 0;
}

static __always_inline int on_fork(__u64 *ctx)
{
	struct task_struct *parent = (void *)ctx[0];
	struct task_struct *child = (void *)ctx[1];
	struct frec_rec_fork *r;
	__u32 parent_tgid, child_tgid;

	parent_tgid = BPF_CORE_READ(parent, tgid);
	child_tgid = BPF_CORE_READ(child, tgid);
	if (skip(parent_tgid, child_tgid))
		return 0;
	r = reserve(sizeof(*r), FREC_EV_PROCESS_FORK);
	if (!r)
		return 0;
	r->parent_pid = BPF_CORE_READ(parent, pid);
	r->parent_tgid = parent_tgid;
	r->child_pid = BPF_CORE_READ(child, pid);
	r->child_tgid = child_tgid;
	BPF_CORE_READ_INTO(&r->parent_comm, parent, comm);
	BPF_CORE_READ_INTO(&r->child_comm, child, comm);
	submit(r);
	return 0;
}

static __always_inline int on_exec(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 old_pid = ctx[1];
	struct linux_binprm *bprm = (void *)ctx[2];
	struct frec_rec_exec *r;
	__u32 tgid;

	tgid = BPF_CORE_READ(p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = reserve(sizeof(*r), FREC_EV_PROCESS_EXEC);
	if (!r)
		return 0;
	r->pid = BPF_CORE_READ(p, pid);
	r->old_pid = old_pid;
	/* begin_new_exec() has already set the new comm by now */
	BPF_CORE_READ_INTO(&r->comm, p, comm);
	__builtin_memset(r->filename, 0, sizeof(r->filename));
	bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), BPF_CORE_READ(bprm, filename));
	submit(r);
	return 0;
}

/* Fires for every thread that exits; since 6.16 it has a 2nd argument
 * (group_dead) that frec does not need. */
static __always_inline int on_exit(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	struct frec_rec_exit *r;
	__u32 tgid;

	tgid = BPF_CORE_READ(p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = reserve(sizeof(*r), FREC_EV_PROCESS_EXIT);
	if (!r)
		return 0;
	r->pid = BPF_CORE_READ(p, pid);
	r->tgid = tgid;
	r->prio = BPF_CORE_READ(p, prio);
	r->__pad = 0;
	BPF_CORE_READ_INTO(&r->comm, p, comm);
	submit(r);
	return 0;
}

/* Fires before the new name is copied in, so task->comm is still the old one. */
static __always_inline int on_rename(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	const char *comm = (const char *)ctx[1];
	struct frec_rec_rename *r;
	__u32 tgid;

	tgid = BPF_CORE_READ(p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = reserve(sizeof(*r), FREC_EV_TASK_RENAME);
	if (!r)
		return 0;
	r->pid = BPF_CORE_READ(p, pid);
	r->tgid = tgid;
	BPF_CORE_READ_INTO(&r->oldcomm, p, comm);
	__builtin_memset(r->newcomm, 0, sizeof(r->newcomm));
	bpf_probe_read_kernel_str(r->newcomm, sizeof(r->newcomm), comm);
	submit(r);
	return 0;
}

static __always_inline int on_migrate(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 dest_cpu = ctx[1];
	struct frec_rec_migrate *r;
	__u32 tgid;

	tgid = BPF_CORE_READ(p, tgid);
	if (skip(tgid, tgid))
		return 0;
	r = reserve(sizeof(*r), FREC_EV_MIGRATE_TASK);
	if (!r)
		return 0;
	r->pid = BPF_CORE_READ(p, pid);
	r->tgid = tgid;
	r->prio = BPF_CORE_READ(p, prio);
	r->orig_cpu = task_cpu(p);
	r->dest_cpu = dest_cpu;
	r->__pad = 0;
	BPF_CORE_READ_INTO(&r->comm, p, comm);
	submit(r);
	return 0;
}

/* The programs: a tp_btf one and its raw_tp twin per tracepoint. */
#define FREC_PROG_PAIR(tp, name, call)					\
SEC("tp_btf/" #tp)							\
int frec_##name(__u64 *ctx) { return call; }				\
SEC("raw_tp/" #tp)							\
int frec_raw_##name(__u64 *ctx) { return call; }

FREC_PROG_PAIR(sched_switch, switch, on_switch(ctx))
FREC_PROG_PAIR(sched_waking, waking, on_wake(ctx, FREC_EV_SCHED_WAKING))
FREC_PROG_PAIR(sched_wakeup, wakeup, on_wake(ctx, FREC_EV_SCHED_WAKEUP))
FREC_PROG_PAIR(sched_wakeup_new, wakeup_new, on_wake(ctx, FREC_EV_SCHED_WAKEUP_NEW))
FREC_PROG_PAIR(sched_process_fork, fork, on_fork(ctx))
FREC_PROG_PAIR(sched_process_exec, exec, on_exec(ctx))
FREC_PROG_PAIR(sched_process_exit, exit, on_exit(ctx))
FREC_PROG_PAIR(sched_migrate_task, migrate, on_migrate(ctx))
FREC_PROG_PAIR(task_rename, rename, on_rename(ctx))
