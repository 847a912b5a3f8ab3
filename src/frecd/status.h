/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What `frec status` shows and systemd's STATUS= says: a snapshot of frecd's
 * counters, filled by the event loop (daemon.c, snapshots.c) and the
 * service glue (service.c, rates.c), formatted here as aligned text, as one
 * JSON object, or as one short line. Formatting only: no system calls, so
 * the unit tests see every byte.
 *
 * Threads: formatting only, any thread; the loop's thread fills the struct.
 */
#ifndef FRECD_STATUS_H
#define FRECD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <frec/recorder.h>
#include "frecd/bpf_rings.h"
#include "frecd/on_snapshot.h"
#include "frecd/triggers.h"

struct frecd_status_probe {
	__u32 id;		/* the BPF cookie, as in snapshots */
	__u32 kind;		/* enum frec_probe_kind */
	const char *name;	/* the spec as written */
	__u64 hits;		/* records received since the probe was attached */
};

/* The cgroups frecd records (cgroup_state.h); moves are rec's. */
struct frecd_status_cgroups {
	const char *hierarchy;		/* "" none, "v2", or the v1 controller */
	size_t nfilters;		/* --cgroup, normal paths */
	const char *filters[16];
	__u64 known, pending, unnamed;	/* the cgroup table's entries */
};

struct frecd_status {
	__u32 pid;
	/* frecd's pid as the host sees it, and which of its namespaces are
	 * its own rather than the host's (hostview.h) */
	__u32 host_pid;
	bool pidns_own, proc_own, cgroupns_own;
	__u64 uptime_ns;
	bool raw_tp;			/* the raw_tp programs, not tp_btf */
	__u32 npids;			/* -p filter, 0: every process */
	struct frec_recorder_stats rec;
	__u64 min_age_ns, max_bytes;	/* the window's limits */
	/* The BPF rings (all zero: not known); their bytes are memory frecd
	 * holds besides the recorder's. */
	struct frecd_bpf_rings_info rings;

	/* Rates over the last rate_ns (0: not measured yet). */
	__u64 rate_ns;
	double events_per_s;
	double events_per_s_by_type[FREC_EV__MAX];
	double lost_per_s;

	__u64 lost;			/* records the ring could not take, since start */
	__u32 ncpus;
	const __u64 *lost_by_cpu;	/* ncpus entries */
	__u64 filtered;			/* events the -p filter left out */
	/* Runs the kernel skipped, a program fired on a CPU where it already
	 * ran (recursion.h), since start; 1 counted, 0 this kernel does not
	 * count them, -1 not known (nothing attached yet). */
	__u64 recursion_misses;
	int recursion_counted;

	/* --stacks (FRECD_STACKS_*; 0: none) and the captures that failed in
	 * the programs (FREC_CNT_STACK_ERR); the recorder's counts are in rec. */
	__u32 stacks;
	__u64 stack_capture_errors;
	/* Processes whose stacks showed another program than their image's
	 * with no exec or fork record seen for it (lost; one that came later,
	 * for an exec still under way at the stack, takes it back): their
	 * mappings were learned anew (symbolizer.h). */
	__u64 stack_programs_unannounced;

	/* The event loop's drains: how often, and the longest wait between
	 * two since start (a ring overflows when it fills within one). */
	__u32 drain_period_ms;
	__u64 drain_gap_max_ns;
	__u64 drain_slow_gaps;		/* waits over FRECD_SLOW_GAP_MS (100 ms) */

	__u64 snapshots, snapshot_failures;
	bool snapshot_in_progress;
	const char *output_dir;
	const char *last_snapshot;	/* path of the last one written, NULL: none */
	__u32 keep;			/* retention, 0: no limit */
	__u64 keep_bytes;
	__u32 compress;			/* --compress: enum frec_compress */

	size_t nprobes;
	const struct frecd_status_probe *probes;

	size_t ntriggers;		/* --trigger, index id - 1 */
	const struct frecd_trigger_stats *triggers;
	const char *on_snapshot;	/* --on-snapshot PROGRAM, NULL: none */
	struct frecd_on_snapshot_stats on_snapshot_stats;
	struct frecd_status_cgroups cgroups;
};

/* Aligned "label  value" lines, for people. 0 or -EIO. */
int frecd_status__text(const struct frecd_status *st, FILE *out);
/* One JSON object on one line, newline-terminated. 0 or -EIO. */
int frecd_status__json(const struct frecd_status *st, FILE *out);
/*
 * When --max-size cuts the window below --window (rec.window_cut), about
 * the --max-size that would hold the whole window, rounded up to a MiB:
 * the window's share of the memory scaled from the span it holds to
 * min_age, plus the rest. 0 when the window is not cut.
 */
__u64 frecd_status__window_needed(const struct frecd_status *st);
/* One line for systemd's STATUS= and the log:
 * "recording 12345 events/s, 0 lost (0/s), window 9.8 s 12.3 MiB, 3 snapshots" */
void frecd_status__summary(const struct frecd_status *st, char *buf, size_t len);

#endif /* FRECD_STATUS_H */
