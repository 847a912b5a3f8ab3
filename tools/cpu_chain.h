/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The chain of context switches on each CPU, for every tool that follows
 * who runs where (report, info, both exporters): one place decides when a
 * switch does not follow from the one before it.
 *
 * Each sched_switch names the thread leaving the CPU (prev) and the one
 * taking it (next), so on a CPU the prev of a switch is the next of the
 * switch before. On some hypervisors the kernel reports a switch into a
 * thread and never the switch out of it: the following switch on that CPU
 * names another prev. frec records what the kernel said; the tools must not
 * turn that into a run of the thread from its switch-in to the next switch.
 * A broken chain is told here with what is known of the thread's run: when
 * it was switched in and the last event it was seen running on that CPU
 * (the event's current thread). The tools end the run there and count the
 * rest as unknown.
 *
 * What resets the chain of a CPU (the next switch is then a START, not a
 * break): the first switch seen on it, records lost on it (or on no known
 * CPU), and a damaged generation skipped by the walker.
 *
 * Feed every event in time order (a sorted walk); not thread-safe, one
 * instance per walk.
 */
#ifndef FREC_TOOLS_CPU_CHAIN_H
#define FREC_TOOLS_CPU_CHAIN_H

#include <stdbool.h>
#include <frec/event.h>

struct frec_walk;
struct frec_chain;

enum frec_chain_verdict {
	FREC_CHAIN_NONE = 0,	/* not a switch (or on no CPU frec knows) */
	FREC_CHAIN_OK,		/* prev is the thread switched in before */
	FREC_CHAIN_START,	/* nothing known of the CPU before this switch */
	FREC_CHAIN_BREAK,	/* prev is not the thread switched in before */
};

/* The run of the thread on a CPU as last switched in. */
struct frec_chain_run {
	__u32 tid;		/* next_pid of the switch */
	__s32 prio;		/* its next_prio */
	__u64 in_ts;		/* when it was switched in */
	__u64 last_ts;		/* its last event on that CPU (>= in_ts) */
};

/* NULL with errno set on ENOMEM. */
struct frec_chain *frec_chain__new(void);
void frec_chain__free(struct frec_chain *c);

/* Call after each frec_walk__next_gen() that returned 1: a damaged
 * generation skipped before this one resets every CPU. */
void frec_chain__gen(struct frec_chain *c, const struct frec_walk *w);

/* Take the next event. For a sched_switch, the verdict; for a BREAK, *run
 * (when not NULL) is the run it ends. Lost records reset their CPU (every
 * CPU for FREC_CPU_UNKNOWN). 0 on ENOMEM is reported as FREC_CHAIN_NONE and
 * by frec_chain__error(). */
enum frec_chain_verdict frec_chain__event(struct frec_chain *c, const struct frec_event *ev,
					  struct frec_chain_run *run);

/* The run on cpu right now, if a switch on it is known: true and *run. */
bool frec_chain__current(const struct frec_chain *c, __u32 cpu, struct frec_chain_run *run);

/* Breaks seen so far, in total and on one CPU. */
__u64 frec_chain__breaks(const struct frec_chain *c);
__u64 frec_chain__cpu_breaks(const struct frec_chain *c, __u32 cpu);
/* -ENOMEM once memory ran out, else 0. */
int frec_chain__error(const struct frec_chain *c);

#endif /* FREC_TOOLS_CPU_CHAIN_H */
