/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The prev_state of a sched_switch, computed from the task's state bits as
 * the kernel's own tracepoint reports it, for the kernel frec runs on:
 * reported_state(). Part of that computation changed between kernels in
 * ways BTF does not show, so this header brings the kernel_version knob,
 * which frecd sets between open and load (src/frecd/kversion.c).
 *
 * For the sched_switch programs (tp_btf or raw_tp). Expects what task.bpf.h
 * expects.
 */
#ifndef FREC_SWITCH_STATE_BPF_H
#define FREC_SWITCH_STATE_BPF_H

#include "task.bpf.h"

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
 * Whether prev left the CPU blocked, for --stacks offcpu: not preempted,
 * sleeping (S or D: TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE), not in the
 * idle wait of kernel threads (TASK_NOLOAD, with TASK_UNINTERRUPTIBLE: the
 * I state) and not exiting (PF_EXITING, TASK_DEAD, an exit_state). These
 * values have been the same since 4.14; they are #defines, absent from
 * BTF, so they cannot be relocated like fields.
 */
#define TASK_INTERRUPTIBLE_	0x0001
#define TASK_DEAD_		0x0080
#define TASK_NOLOAD_		0x0400
#define PF_EXITING_		0x00000004
#define PF_KTHREAD_		0x00200000

static __always_inline bool switch_blocked(bool preempt, unsigned int state,
					   struct task_struct *prev, const bool btf)
{
	if (preempt)
		return false;
	if (!(state & (TASK_INTERRUPTIBLE_ | TASK_UNINTERRUPTIBLE_)) ||
	    (state & (TASK_NOLOAD_ | TASK_DEAD_)))
		return false;
	if (RD(btf, prev, exit_state))
		return false;
	return !(RD(btf, prev, flags) & PF_EXITING_);
}

/* Whether prev has a user side whose stack can be read: not a kernel
 * thread (they have no mm; a kernel thread borrowing one is still one). */
static __always_inline bool switch_has_user(struct task_struct *prev, const bool btf)
{
	return !(RD(btf, prev, flags) & PF_KTHREAD_) && RD(btf, prev, mm);
}

#endif /* FREC_SWITCH_STATE_BPF_H */
