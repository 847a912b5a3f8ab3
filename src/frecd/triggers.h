/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The triggers' policy: which firings take a snapshot. The BPF programs
 * evaluate the conditions and write a record per firing (bpf/trigger.h);
 * frecd writes those of lost, manual and a still-running oncpu itself. Each
 * firing comes here before the recorder sees it, and here, authoritatively:
 *  - delay: a firing schedules its trigger's snapshot at its time + delay
 *    (so that the snapshot holds what followed); a firing while that
 *    snapshot is pending takes none (suppressed: delay);
 *  - cooldown: a firing within cooldown of the last accepted one takes none
 *    (suppressed: cooldown); the programs apply it too, without a record
 *    (their counts arrive through take_state());
 *  - rate limit, max=N/h or N/d: a firing when N were accepted in the last
 *    hour or day takes none (suppressed: rate).
 * An accepted firing is pushed into the recording as it is, counted as
 * fired, and its snapshot requested once the delay is over, with the reason
 * "trigger NAME: tid T comm C value V". A suppressed one is not pushed: it
 * goes to the suppressed hook, for the generation's aggregate.
 *
 * oncpu: a thread that never leaves its CPU has no switch-out to fire at, so
 * check_oncpu() fires for a run already past the threshold (once per run),
 * and the programs' record at that run's switch-out (same cpu, ts - value ==
 * the run's start) is then dropped. A run the policy would suppress is left
 * to its switch-out, to be counted once: there, or by the programs'
 * cooldown, which writes no record to drop.
 *
 * No clock of its own and no system calls: every time is passed in
 * (CLOCK_BOOTTIME ns, the records' clock), so that the unit tests drive it.
 *
 * Threads: the loop's thread only.
 */
#ifndef FRECD_TRIGGERS_H
#define FRECD_TRIGGERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <frec/record.h>
#include "frecd/trigger_spec.h"
#include "../../bpf/trigger.h"

/* Longest reason: "trigger NAME: tid T comm C value V". */
#define FRECD_TRIGGER_REASON_MAX	128
/* A name too long for it keeps at least this much of each end. */
#define FRECD_TRIGGER_REASON_KEEP	16

struct frecd_triggers_hooks {
	/* A firing frecd made itself (lost, manual, oncpu) was accepted:
	 * push it into the recording. */
	void (*push)(void *ctx, const struct frec_rec_trigger *r);
	/* count firings of trigger id took no snapshot, the first at ts, the
	 * worst (value) on thread tid/tgid. */
	void (*suppressed)(void *ctx, __u32 id, __u32 tid, __u32 tgid, __u64 ts, __u64 value,
			   __u64 count);
	/* Trigger id's delay is over: take a snapshot for reason. */
	void (*snapshot)(void *ctx, __u32 id, const char *reason);
	void *ctx;
};

/* What frec status shows of one trigger. */
struct frecd_trigger_stats {
	__u32 id;
	__u32 kind;			/* enum frec_trigger_kind */
	const char *name, *spec;	/* valid while the module lives (until set()) */
	__u64 fired;			/* accepted firings */
	__u64 snapshots;		/* snapshots requested */
	__u64 suppressed_delay, suppressed_cooldown, suppressed_rate;
	bool pending;			/* a snapshot waits for its delay */
};

/* Why a firing took no snapshot; 0: it was accepted. */
enum frecd_trigger_verdict {
	FRECD_TRIGGER_ACCEPTED = 0,
	FRECD_TRIGGER_DELAY,
	FRECD_TRIGGER_COOLDOWN,
	FRECD_TRIGGER_RATE,
	FRECD_TRIGGER_DUPLICATE,	/* oncpu: the tick fired for this run already */
};

struct frecd_triggers;

/* n specs (ids 1..n in order; copied). NULL with errno set. */
struct frecd_triggers *frecd_triggers__new(const struct trigger_spec *specs, size_t n,
					   const struct frecd_triggers_hooks *hooks);
void frecd_triggers__free(struct frecd_triggers *t);

/*
 * A reload's specs. An id whose spec (as written) stays keeps its counters
 * and state; the others start over, and their bit (1 << (id - 1)) is set in
 * *changed, for the caller to reset the programs' state of them. A pending
 * snapshot of a changed id is dropped. 0 or -ENOMEM (nothing changed).
 */
int frecd_triggers__set(struct frecd_triggers *t, const struct trigger_spec *specs, size_t n,
			__u32 *changed);
size_t frecd_triggers__count(const struct frecd_triggers *t);

/*
 * A FREC_EV_TRIGGER record of the programs, on the drain: the verdict. The
 * caller pushes it when accepted; otherwise it was handed to the suppressed
 * hook (a DUPLICATE is dropped without a count).
 */
enum frecd_trigger_verdict frecd_triggers__on_record(struct frecd_triggers *t,
						     const struct frec_rec_trigger *r);

/* The programs' "oncpu" entries, n CPUs, at now: fire for a run past an
 * oncpu trigger's threshold (a record with ts now, through push) when the
 * policy accepts it; nothing is counted otherwise (see above). */
void frecd_triggers__check_oncpu(struct frecd_triggers *t, const struct frec_oncpu *cpus,
				 size_t n, __u64 now);
/* The drain counted count records lost, at now: the lost triggers fire. */
void frecd_triggers__lost(struct frecd_triggers *t, __u64 count, __u64 now);
/*
 * `frec trigger NAME` from process pid (comm): the manual trigger named NAME
 * fires at now. 0 and *id when a snapshot will follow (this firing's, or the
 * one pending for its delay); -EBUSY when the cooldown or the rate limit
 * suppressed it, -ENOENT when no manual trigger has that name; the cause in
 * err either way.
 */
int frecd_triggers__manual(struct frecd_triggers *t, const char *name, __u32 pid,
			   const char *comm, __u64 now, __u32 *id, char *err, size_t errlen);
/* The names of the manual triggers, ", "-separated, into buf ("" if none). */
const char *frecd_triggers__manual_names(const struct frecd_triggers *t, char *buf, size_t len);

/*
 * The programs' per-trigger state (frecd_bpf__take_trigger_state(), n
 * entries, index id - 1): the growth of each suppressed count since the
 * last call goes to the suppressed hook (as cooldown), at now when the
 * programs lost its first time.
 */
void frecd_triggers__take_state(struct frecd_triggers *t, const struct frec_trigger_state *st,
				size_t n, __u64 now);

/* The earliest pending snapshot's time; 0: none. */
__u64 frecd_triggers__deadline(const struct frecd_triggers *t);
/* Request the snapshots whose delay is over at now (snapshot hook). */
void frecd_triggers__tick(struct frecd_triggers *t, __u64 now);

/* n stats (index id - 1) into out; returns how many triggers there are. */
size_t frecd_triggers__stats(const struct frecd_triggers *t, struct frecd_trigger_stats *out,
			     size_t n);

/* The reason of a firing: "trigger NAME: tid T comm C value V", V in the
 * kind's unit ("52.3 ms", "120 records", a probe's argument). A NAME that
 * would push the facts past len has its middle replaced by "...". */
void frecd_trigger__reason(char *buf, size_t len, const char *name, enum frec_trigger_kind kind,
			   __u32 tid, const char *comm, __u64 value);

#endif /* FRECD_TRIGGERS_H */
