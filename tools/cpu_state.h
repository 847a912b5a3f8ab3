/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who is on each CPU, as frec report's analyses count it; shared by them
 * (on-CPU time, run-queue latency, losses, and any analysis that follows
 * threads on and off CPUs).
 *
 * Per CPU: whether its time is known (valid) and since when, and the thread
 * switched in last (tid_known: a switch on it has been seen since its time
 * became known), with its thread group and name at that switch. And the
 * set of tasks on some CPU now (a wakeup of one of them queued nothing).
 *
 * What makes a CPU's time unknown: records lost on it (on every CPU for
 * FREC_CPU_UNKNOWN), a gap (every CPU), and a damaged generation skipped
 * (every CPU); each also forgets who is on a CPU. A CPU is known again from
 * its next switch, or from the start of the next generation with no thread
 * known. A CPU seen for the first time is known since the start of the
 * current generation.
 *
 * The report shows each event to every analysis first, which read the
 * state as it was before the event, and then to frec_cpu_state__event(),
 * which moves the state past it; likewise for a new generation. Not
 * thread-safe: one instance per report, on the thread that walks.
 */
#ifndef FREC_TOOLS_CPU_STATE_H
#define FREC_TOOLS_CPU_STATE_H

#include <stdbool.h>
#include <frec/snapshot.h>
#include "cpu_chain.h"

struct frec_walk;
struct frec_cpu_state;

struct frec_cpu {
	bool valid;		/* since is known */
	bool tid_known;		/* a switch on it has been seen since */
	__u32 tid;
	__u32 tgid;
	__u64 since;		/* when tid went on the CPU (or coverage began) */
	char comm[FREC_COMM_LEN];	/* its name then, should a later table not know it */
};

/* NULL on ENOMEM. */
struct frec_cpu_state *frec_cpu_state__new(void);
void frec_cpu_state__free(struct frec_cpu_state *s);

/* The state of cpu, created on first use; NULL beyond FREC_MAX_CPUS, or on
 * ENOMEM (then frec_cpu_state__error() says so). */
struct frec_cpu *frec_cpu_state__cpu(struct frec_cpu_state *s, __u32 cpu);
/* CPUs 0 .. ncpus - 1 exist; frec_cpu_state__cpu() of them never fails. */
__u32 frec_cpu_state__ncpus(const struct frec_cpu_state *s);
/* tid is on some CPU now. */
bool frec_cpu_state__running(const struct frec_cpu_state *s, __u32 tid);
/* A switch the chain called FREC_CHAIN_BREAK ends run (the chain's): true
 * when run's thread is the one this state has on the CPU, its time known,
 * so that its run ends at run->last_ts. */
bool frec_cpu_state__break_ends_run(struct frec_cpu_state *s, const struct frec_event *ev,
				    const struct frec_chain_run *run);

/* Move past ev (chain: its verdict, run: the run a BREAK ends). */
void frec_cpu_state__event(struct frec_cpu_state *s, const struct frec_walk *w,
			   const struct frec_event *ev, enum frec_chain_verdict chain,
			   const struct frec_chain_run *run);
/* A generation starts at start_ts; damaged: one was skipped just before. */
void frec_cpu_state__gen(struct frec_cpu_state *s, __u64 start_ts, bool damaged);

/* -ENOMEM once memory ran out, else 0. */
int frec_cpu_state__error(const struct frec_cpu_state *s);

#endif /* FREC_TOOLS_CPU_STATE_H */
