// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <frec/recorder.h>
#include "frecd/clock.h"
#include "frecd/daemon.h"
#include "frecd/log.h"
#include "frecd/options.h"
#include "frecd/outdir.h"
#include "frecd/retention.h"
#include "frecd/snapshots.h"
#include "frecd/status.h"
#include "frecd/writer.h"

struct frecd_snapshots {
	struct frecd_snapshots_opts o;
	struct frecd_writer *writer;
	bool stopping;
	bool pending;			/* requested while writing: one more after */
	char pending_reason[128];	/* of the first request merged into it */
	char reason[128];		/* of the one in progress */
	__u64 seq;			/* the last snapshot started (its number) */
	char dir[PATH_MAX];		/* -o of the one in progress */
	__u64 start_ns;			/* CLOCK_MONOTONIC, of the one in progress */
	__u64 written, failed;
	char last[PATH_MAX + 1 + FRECD_SNAPSHOT_NAME_MAX];	/* the last one written, "": none */
};

struct frecd_snapshots *frecd_snapshots__new(const struct frecd_snapshots_opts *opts)
{
	struct frecd_snapshots *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	memcpy(&s->o, opts, opts->sz < sizeof(s->o) ? opts->sz : sizeof(s->o));
	s->writer = frecd_writer__new(s->o.dopts->debug_writer_delay_ns);
	if (!s->writer) {
		err = errno;
		free(s);
		errno = err;
		return NULL;
	}
	return s;
}

void frecd_snapshots__free(struct frecd_snapshots *s)
{
	if (!s)
		return;
	frecd_writer__free(s->writer);
	free(s);
}

int frecd_snapshots__fd(const struct frecd_snapshots *s)
{
	return frecd_writer__fd(s->writer);
}

bool frecd_snapshots__busy(const struct frecd_snapshots *s)
{
	return frecd_writer__busy(s->writer);
}

/*
 * Start snapshot number ++seq for reason. 0, or -errno when it could not
 * even start (logged); the done hook hears of it either way, now or when the
 * writer is done.
 */
static int start(struct frecd_snapshots *s, const char *reason)
{
	const struct frecd_daemon_opts *dopts = s->o.dopts;
	struct frecd_snapshot_job job;
	char err[512];
	int ret;

	s->seq++;
	s->start_ns = frecd_clock__mono_ns();
	snprintf(s->reason, sizeof(s->reason), "%s", reason);
	snprintf(s->dir, sizeof(s->dir), "%s", dopts->output_dir);
	s->o.seal(s->o.ctx);

	memset(&job, 0, sizeof(job));
	job.dirfd = frecd_outdir__dirfd(dopts->outdir, err, sizeof(err));
	if (job.dirfd < 0) {
		ret = job.dirfd;
		s->failed++;
		log_error("snapshot failed: %s; recording goes on", err);
		goto fail;
	}
	job.pin = frec_recorder__pin(s->o.rec);
	if (!job.pin) {
		ret = -errno;
		close(job.dirfd);
		s->failed++;
		log_error("snapshot failed: cannot pin the window: %s; recording goes on",
			  strerror(-ret));
		goto fail;
	}
	job.realtime_ns = frecd_clock__ns(CLOCK_REALTIME);
	frec_header__init(&job.hdr);
	job.hdr.config = dopts->config;
	job.compress = s->o.running ? s->o.running->compress : FREC_COMPRESS_NONE;
	snprintf(job.hdr.reason, sizeof(job.hdr.reason), "%s", reason);
	ret = frecd_writer__submit(s->writer, &job);
	if (ret) {	/* the caller checked; cannot happen */
		frec_recorder__unpin(s->o.rec, job.pin);
		close(job.dirfd);
		log_error("snapshot failed: writer busy");
		goto fail;
	}
	return 0;
fail:
	s->o.done(s->o.ctx, s->seq, ret, s->dir, NULL, s->reason);
	return ret;
}

int frecd_snapshots__request(struct frecd_snapshots *s, const char *reason, __u64 *seq)
{
	if (s->stopping)
		return -ECANCELED;
	if (frecd_writer__busy(s->writer)) {
		/* Coalesced: any number of requests during a write give one
		 * more snapshot, taken when this one is done. */
		if (!s->pending) {
			log_info("snapshot requested (%s) while one is being written: one more will follow",
				 reason);
			snprintf(s->pending_reason, sizeof(s->pending_reason), "%s", reason);
		}
		s->pending = true;
		*seq = s->seq + 1;
		return 0;
	}
	*seq = s->seq + 1;
	return start(s, reason);
}

/* --keep and --keep-size, after a snapshot name was written. */
static void apply_retention(struct frecd_snapshots *s, const char *name)
{
	const struct frecd_options *o = s->o.running;
	const char *dir = s->o.dopts->output_dir;
	struct frecd_retention_stats st;
	char err[512], sz1[32];
	int dirfd, ret;

	if (!o || (!o->keep && !o->keep_bytes))
		return;
	dirfd = frecd_outdir__dirfd(s->o.dopts->outdir, err, sizeof(err));
	if (dirfd < 0) {
		log_warn("retention: %s; old snapshots stay", err);
		return;
	}
	ret = frecd_retention__apply(dirfd, o->keep, o->keep_bytes, name, &st);
	close(dirfd);
	if (st.removed)
		log_info("retention: removed the %u oldest snapshots (%llu bytes) from %s; %u kept (%llu bytes), --keep %u, --keep-size %s",
			 st.removed, (unsigned long long)st.removed_bytes, dir, st.kept,
			 (unsigned long long)st.kept_bytes, o->keep,
			 frecd_format_size(o->keep_bytes, sz1, sizeof(sz1)));
	if (ret)
		log_warn("retention in %s: %s; some old snapshots stay (%u kept, %llu bytes)", dir,
			 strerror(-ret), st.kept, (unsigned long long)st.kept_bytes);
}

void frecd_snapshots__collect(struct frecd_snapshots *s)
{
	struct frecd_snapshot_result res;
	double ms;

	if (!frecd_writer__collect(s->writer, &res))
		return;
	ms = (frecd_clock__mono_ns() - s->start_ns) / 1e6;
	if (res.err) {
		s->failed++;
		log_error("snapshot %s/%s failed: %s; no file left behind, recording goes on",
			  s->dir, res.name, strerror(-res.err));
	} else {
		s->written++;
		log_info("snapshot %s/%s: %llu events, %llu lost, %llu bytes (%llu recorded), %.1f ms",
			 s->dir, res.name,
			 (unsigned long long)frec_pin__events(res.pin),
			 (unsigned long long)frec_pin__lost(res.pin),
			 (unsigned long long)res.file_bytes,
			 (unsigned long long)frec_pin__bytes(res.pin), ms);
	}
	frec_recorder__unpin(s->o.rec, res.pin);
	if (!res.err)
		snprintf(s->last, sizeof(s->last), "%s/%s", s->dir, res.name);
	s->o.done(s->o.ctx, s->seq, res.err, s->dir, res.name, s->reason);
	/* After the answer: retention is housekeeping no client waits for. */
	if (!res.err)
		apply_retention(s, res.name);
	if (s->pending && !s->stopping) {
		s->pending = false;
		start(s, s->pending_reason);
	}
}

void frecd_snapshots__stop(struct frecd_snapshots *s)
{
	s->stopping = true;
	if (s->pending) {
		log_info("the pending snapshot request is dropped");
		s->o.done(s->o.ctx, s->seq + 1, -ECANCELED, s->o.dopts->output_dir, NULL,
			  s->pending_reason);
	}
	s->pending = false;
}

void frecd_snapshots__status(const struct frecd_snapshots *s, struct frecd_status *st)
{
	st->snapshots = s->written;
	st->snapshot_failures = s->failed;
	st->snapshot_in_progress = frecd_writer__busy(s->writer);
	st->last_snapshot = s->last[0] ? s->last : NULL;
}
