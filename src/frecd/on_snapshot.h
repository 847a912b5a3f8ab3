/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --on-snapshot PROGRAM: after each snapshot is written (whatever asked for
 * it), PROGRAM runs once, without a shell (posix_spawn), with the file's
 * path as its only argument and FREC_REASON (the snapshot's reason) added
 * to frecd's environment; stdin is /dev/null. It never holds up recording:
 *  - its stdout and stderr (one pipe) are read from the loop's epoll,
 *    non-blocking, and logged line by line ("on-snapshot[PID]: LINE");
 *  - at each tick its exit is collected (waitpid WNOHANG) and logged with
 *    its status; one still running at --on-snapshot-timeout gets SIGKILL,
 *    with its process group (it runs in a group of its own);
 *  - runs may overlap, at most FRECD_ON_SNAPSHOT_MAX at once: a snapshot
 *    written while that many run is logged and counted as skipped.
 * A run fails when it cannot start, exits non-zero, dies of a signal or
 * times out; frec status counts runs, failures and skips.
 * PROGRAM and the timeout are read from the running options at each run, so
 * that a reload changes them for the next one.
 *
 * Threads: the loop's thread only.
 */
#ifndef FRECD_ON_SNAPSHOT_H
#define FRECD_ON_SNAPSHOT_H

#include <stdbool.h>
#include <linux/types.h>

struct frecd_options;
struct frecd_on_snapshot;

#define FRECD_ON_SNAPSHOT_MAX	4
/* Longest line logged as one; a longer one is logged in pieces. */
#define FRECD_ON_SNAPSHOT_LINE	512

struct frecd_on_snapshot_stats {
	__u64 runs;		/* started */
	__u64 failures;		/* could not start, exit != 0, signal, timeout */
	__u64 skipped;		/* FRECD_ON_SNAPSHOT_MAX were running */
	__u32 running;
};

/* Its pipes go into epfd with tags tag_base .. tag_base + FRECD_ON_SNAPSHOT_MAX - 1.
 * running: the options as running (on_snapshot, on_snapshot_timeout_ns). */
struct frecd_on_snapshot *frecd_on_snapshot__new(const struct frecd_options *running, int epfd,
						 __u64 tag_base);
/* Runs still going are killed (their groups) and reaped. */
void frecd_on_snapshot__free(struct frecd_on_snapshot *o);

/* The snapshot at path was written for reason: run PROGRAM, if set. */
void frecd_on_snapshot__run(struct frecd_on_snapshot *o, const char *path, const char *reason);
bool frecd_on_snapshot__owns(const struct frecd_on_snapshot *o, __u64 tag);
void frecd_on_snapshot__event(struct frecd_on_snapshot *o, __u64 tag, __u32 events);
/* Collect exits, enforce the timeout (CLOCK_MONOTONIC now). Every tick. */
void frecd_on_snapshot__tick(struct frecd_on_snapshot *o, __u64 now_ns);
void frecd_on_snapshot__stats(const struct frecd_on_snapshot *o,
			      struct frecd_on_snapshot_stats *st);

#endif /* FRECD_ON_SNAPSHOT_H */
