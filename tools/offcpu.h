/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU time by stack, for frec report --offcpu and frec export --format
 * pprof: a block is a thread's blocking switch-out (prev_state S or D, not
 * preempted, not dead) whose event carries a stack (frec_walk__stacks()),
 * until that thread's next switch-in on any CPU. Blocks are summed per
 * (thread, stack): count, total and longest time, clipped to [lo, hi].
 *
 * Stacks are compared by content, not by a generation's index, so a thread
 * blocking on the same path in many generations is one row; a stack is the
 * kernel frames then the user frames, innermost first, named through
 * --debug-dir first (frames.h), and copied: it outlives its generation.
 *
 * Blocks whose switch carried no stack (not captured, or not asked for)
 * count only in the totals, so that a report can say how much of the
 * off-CPU time its stacks explain.
 *
 * Nothing is guessed where data is missing: records lost (on any CPU, since
 * the switch-in may be on any), a gap or a damaged generation forget the
 * open blocks; a block still open at the end, or whose thread exits, counts
 * nothing. Single-threaded.
 */
#ifndef FREC_TOOLS_OFFCPU_H
#define FREC_TOOLS_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <frec/snapshot.h>

struct frec_walk;
struct frec_debugsym;
struct frec_offcpu;

struct frec_offcpu_stack {
	__u32 nframes;		/* all of them */
	__u32 nkernel;		/* the first nkernel are kernel frames */
	const struct frec_frame *frames;	/* innermost first */
};

struct frec_offcpu_row {
	__u32 tid, pid;
	char comm[FREC_COMM_LEN];	/* the thread's name at its first block */
	__u32 stack;			/* frec_offcpu__stack() */
	__u64 count, total_ns, max_ns;
};

struct frec_offcpu_totals {
	__u64 blocks, total_ns;			/* every block, with a stack or not */
	__u64 blocks_with_stack, with_stack_ns;	/* those in the rows */
};

struct frec_offcpu_opts {
	bool has_tid, has_pid;
	__u32 tid, pid;			/* only these threads */
	__u64 lo, hi;			/* the time range (inclusive); hi 0: no end */
	struct frec_debugsym *ds;	/* may be NULL */
};

/* NULL on ENOMEM. opts is copied. */
struct frec_offcpu *frec_offcpu__new(const struct frec_offcpu_opts *opts);
void frec_offcpu__free(struct frec_offcpu *oc);

/* The time range, once known (report: at its first generation). */
void frec_offcpu__set_range(struct frec_offcpu *oc, __u64 lo, __u64 hi);
/* A generation begins; damaged: one was skipped just before. */
void frec_offcpu__gen(struct frec_offcpu *oc, bool damaged);
/* Each event, in time order, as the walker returned it last. 0 or -ENOMEM. */
int frec_offcpu__event(struct frec_offcpu *oc, struct frec_walk *w, const struct frec_event *ev);

/* The rows, largest total first (ties: more blocks, then lower tid), after
 * frec_offcpu__finish(). */
void frec_offcpu__finish(struct frec_offcpu *oc);
size_t frec_offcpu__nrows(const struct frec_offcpu *oc);
const struct frec_offcpu_row *frec_offcpu__row(const struct frec_offcpu *oc, size_t i);
void frec_offcpu__totals(const struct frec_offcpu *oc, struct frec_offcpu_totals *t);
size_t frec_offcpu__nstacks(const struct frec_offcpu *oc);
const struct frec_offcpu_stack *frec_offcpu__stack(const struct frec_offcpu *oc, __u32 id);

/* Whether a switch's prev blocked (S or D, not preempted, not dead). */
static inline bool frec_offcpu__blocking(__u64 prev_state)
{
	return (prev_state & 0x3) && !(prev_state & 0x100) && !(prev_state & 0x30);
}

#endif /* FREC_TOOLS_OFFCPU_H */
