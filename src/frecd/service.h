/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd as a service: what the event loop (daemon.c) calls besides its own
 * work, so that the loop stays about recording.
 *  - the control socket (control.c): frec snapshot, frec trigger, frec status (filled
 *    from the loop's counters, status.h);
 *  - the service manager (notify.c): READY=1 once the loop runs, STATUS=
 *    every FRECD_STATUS_INTERVAL_MS, RELOADING=1/READY=1 around a reload,
 *    STOPPING=1;
 *  - SIGHUP: re-read the configuration and apply what can change while
 *    recording (reload.c); one more if another comes during a reload;
 *  - events/s, measured every second for status and STATUS= (rates.h).
 * Every hook accepts a NULL service and then does nothing.
 *
 * Threads: new and free on main's thread; every hook on the loop's thread.
 * The reload's detach thread is reload.c's own.
 */
#ifndef FRECD_SERVICE_H
#define FRECD_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frecd_options;
struct frecd_config;
struct frec_probes;
struct frecd_trigger_set;
struct frecd_bpf;
struct frec_recorder;
struct frecd_daemon;
struct frecd_daemon_opts;

#define FRECD_STATUS_INTERVAL_MS	5000

/* The running configuration, owned by main(); a reload updates it in place. */
struct frecd_service_opts {
	size_t sz;
	int argc;			/* read again on SIGHUP, over the file */
	char **argv;
	struct frecd_options *opts;	/* as running */
	struct frecd_config **cfg;	/* owns the strings of opts that came from the file */
	struct frec_probes **probes;	/* the attached probes */
	struct frecd_trigger_set **triggers; /* --trigger as running (trigger_setup.h) */
	struct frecd_bpf *bpf;
	const __u32 *tgids;		/* the -p filter as started (tgids) */
	size_t ntgids;
	struct frec_recorder *rec;
	struct frecd_daemon_opts *dopts; /* output_dir and the header's config summary */
};

struct frecd_service;

/* Create the control socket (opts->socket_path) and the notifier
 * ($NOTIFY_SOCKET). NULL with errno set and one line in err. */
struct frecd_service *frecd_service__new(const struct frecd_service_opts *opts,
					 char *err, size_t errlen);
void frecd_service__free(struct frecd_service *s);

/* Hooks for daemon.c. */
/* The loop is set up: serve the socket from epfd (tags from
 * FRECD_SERVICE_TAG_BASE up), tell the manager READY=1. 0 or -errno. */
#define FRECD_SERVICE_TAG_BASE	0x100
#define FRECD_SERVICE_TAG_RELOAD	0x200
int frecd_service__start(struct frecd_service *s, struct frecd_daemon *d, int epfd);
/* An epoll event with a tag of ours: true if it was ours. */
bool frecd_service__event(struct frecd_service *s, __u64 tag, __u32 events);
/* Every drain timer tick. */
void frecd_service__tick(struct frecd_service *s);
/* SIGHUP. */
void frecd_service__reload(struct frecd_service *s);
/* Snapshot seq is written (err 0) to dir/name, or failed (-errno; name may be
 * NULL): answer who asked for it, apply retention. */
void frecd_service__snapshot_done(struct frecd_service *s, __u64 seq, int err, const char *dir,
				  const char *name);
/* Trigger id's delay is over: its snapshot was requested (err 0, as seq)
 * or could not be (-errno). Clients of `frec trigger` wait for it. */
void frecd_service__trigger_snapshot(struct frecd_service *s, __u32 id, int err, __u64 seq);
/* SIGTERM/SIGINT: the loop stops once the snapshot in progress is written. */
void frecd_service__stopping(struct frecd_service *s);
/* The loop ends: close the socket (clients still waiting are told why). */
void frecd_service__stop(struct frecd_service *s);

#endif /* FRECD_SERVICE_H */
