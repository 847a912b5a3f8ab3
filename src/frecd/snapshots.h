/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Snapshot orchestration: from a request (SIGUSR1, `frec snapshot`, a
 * trigger whose delay is over: triggers.h) to a
 * file in -o, and retention after it.
 *  - A request seals the open generation at the loop's cut (the seal hook:
 *    drain first), pins the window, checks -o again (outdir.h) and hands the
 *    job to the writer thread (writer.h), which names and writes the file
 *    while the loop records on.
 *  - One snapshot is written at a time: any number of requests while one is
 *    being written are merged into one more, taken when it is done, under
 *    the reason of the first.
 *  - Each snapshot, written or failed, is reported to the done hook under
 *    the number its request was given (the control socket answers by it);
 *    then --keep and --keep-size are applied (retention.h).
 *  - Once stopping, requests are refused and a merged one is dropped.
 *
 * Threads: every function is for the loop's thread, and so are the hooks;
 * the writer thread is this module's own (started by new, joined by free).
 */
#ifndef FRECD_SNAPSHOTS_H
#define FRECD_SNAPSHOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frec_recorder;
struct frecd_daemon_opts;
struct frecd_options;
struct frecd_status;
struct frecd_snapshots;

struct frecd_snapshots_opts {
	size_t sz;
	struct frec_recorder *rec;
	/* Read at each snapshot, as a reload changes them in place: output_dir
	 * and outdir (-o), config (the header's), debug_writer_delay_ns (at
	 * start only); running's keep and keep_bytes (NULL: no retention). */
	const struct frecd_daemon_opts *dopts;
	const struct frecd_options *running;
	/* Drain the rings and seal the open generation at the cut. */
	void (*seal)(void *ctx);
	/* Snapshot seq, taken for reason, is written (err 0) to dir/name, or
	 * failed (-errno, name may be NULL; -ECANCELED: dropped, frecd stops). */
	void (*done)(void *ctx, __u64 seq, int err, const char *dir, const char *name,
		     const char *reason);
	void *ctx;
};

/* Starts the writer thread. NULL with errno set. */
struct frecd_snapshots *frecd_snapshots__new(const struct frecd_snapshots_opts *opts);
/* Joins the writer thread, after the job in progress if any. */
void frecd_snapshots__free(struct frecd_snapshots *s);

/* Readable (EPOLLIN) when the writer is done: call frecd_snapshots__collect(). */
int frecd_snapshots__fd(const struct frecd_snapshots *s);
void frecd_snapshots__collect(struct frecd_snapshots *s);

/*
 * Take a snapshot for reason (it goes into the header), now or merged into
 * the one after the snapshot being written. 0 and *seq, the number the done
 * hook will report it under; -ECANCELED when stopping; -errno when it could
 * not start (logged, and reported to the done hook too).
 */
int frecd_snapshots__request(struct frecd_snapshots *s, const char *reason, __u64 *seq);

/* A snapshot is being written. */
bool frecd_snapshots__busy(const struct frecd_snapshots *s);
/* SIGTERM/SIGINT: refuse new requests; a merged one is dropped (logged, and
 * reported to the done hook as -ECANCELED). The one being written goes on. */
void frecd_snapshots__stop(struct frecd_snapshots *s);

/* The counts frec status shows: written, failed, in progress, the last one. */
void frecd_snapshots__status(const struct frecd_snapshots *s, struct frecd_status *st);

#endif /* FRECD_SNAPSHOTS_H */
