/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The snapshot writer: one thread that writes a pinned window to a file while
 * the event loop goes on draining the ring (recording never pauses for a
 * snapshot). The loop (snapshots.c) hands it one job at a time and learns
 * that the job is done from an eventfd, which it polls with everything else.
 */
#ifndef FRECD_WRITER_H
#define FRECD_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <frec/snapshot.h>
#include "frecd/snapname.h"

struct frec_pin;
struct frecd_writer;

struct frecd_snapshot_job {
	int dirfd;		/* the writer closes it */
	__u64 realtime_ns;	/* names the file */
	struct frec_header hdr;
	struct frec_pin *pin;
	__u32 compress;		/* enum frec_compress */
};

struct frecd_snapshot_result {
	int err;		/* 0 or -errno */
	char name[FRECD_SNAPSHOT_NAME_MAX];	/* the file written */
	__u64 file_bytes;	/* its size, 0 when unknown */
	struct frec_pin *pin;	/* to unpin, from the loop's thread */
};

/*
 * Starts the thread. NULL with errno set. debug_delay_ns, for tests
 * (--debug-writer-delay-ms): the writer waits this long after it takes a job
 * and before it writes the file, so that requests can be made while a
 * snapshot is being written; 0, no wait.
 */
struct frecd_writer *frecd_writer__new(__u64 debug_delay_ns);
/* Stops and joins the thread (after any job in progress). */
void frecd_writer__free(struct frecd_writer *w);

/* Readable (eventfd) once a job is done. */
int frecd_writer__fd(const struct frecd_writer *w);
bool frecd_writer__busy(const struct frecd_writer *w);
/* Hand over a job; -EBUSY while one is in progress. */
int frecd_writer__submit(struct frecd_writer *w, const struct frecd_snapshot_job *job);
/* After the fd became readable: 1 and *res filled, or 0 if no job is done. */
int frecd_writer__collect(struct frecd_writer *w, struct frecd_snapshot_result *res);

#endif /* FRECD_WRITER_H */
