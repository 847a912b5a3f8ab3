/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's event loop: one epoll over
 *  - a timerfd: drain the ring buffer (the BPF side submits without wakeups),
 *    read the drop counters, let the recorder seal and evict;
 *  - the ring buffer map fd, edge-triggered: the BPF side forces a wakeup
 *    when the ring fills past a threshold;
 *  - a signalfd: SIGUSR1 snapshot, SIGTERM/SIGINT stop, SIGHUP reload,
 *    SIGUSR2 a stall of the drain (--debug-stall-ms, for tests);
 *  - the snapshot writer's eventfd: a snapshot is done.
 * Nothing in the loop allocates per event: records go straight from the
 * ring into the recorder.
 */
#ifndef FRECD_DAEMON_H
#define FRECD_DAEMON_H

#include <signal.h>
#include <frec/snapshot.h>

struct frec_recorder;
struct frecd_bpf;
struct frecd_outdir;

/* How often the ring is drained when no threshold wakeup comes first. */
#define FRECD_DRAIN_MS	50

struct frecd_daemon_opts {
	size_t sz;
	struct frec_recorder *rec;
	int ring_fd;
	int counters_fd;
	const char *output_dir;
	struct frecd_outdir *outdir;	/* -o, checked again before each snapshot */
	__u64 ring_bytes;		/* for the drop message */
	struct frec_config_summary config; /* written into every snapshot header */
	__u64 debug_stall_ns;		/* --debug-stall-ms; 0: SIGUSR2 is ignored */
};

/* The signals the loop handles; block them (in every thread) before any
 * thread is created and before frecd_daemon__run(). */
void frecd_daemon__signals(sigset_t *set);

/* Run until SIGTERM or SIGINT. 0 on a clean stop, -errno on a failure. */
int frecd_daemon__run(const struct frecd_daemon_opts *opts);

#endif /* FRECD_DAEMON_H */
