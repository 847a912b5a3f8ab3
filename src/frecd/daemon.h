/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's event loop: it waits, drains and dispatches. One epoll over
 *  - a timerfd: drain the ring buffers (the BPF side submits without
 *    wakeups), read the drop counters, let the recorder seal and evict;
 *  - an epoll of the CPUs' ring buffer map fds, edge-triggered: the BPF
 *    side forces a wakeup when a ring fills past a threshold; however many
 *    rings woke, one drain for the loop's batch of events;
 *  - a signalfd: SIGUSR1 snapshot, SIGTERM/SIGINT stop, SIGHUP reload,
 *    SIGUSR2 a stall of the drain (--debug-stall-ms, for tests: stall.h);
 *  - the snapshot writer's eventfd (snapshots.h: requests, the writer
 *    thread, retention);
 *  - the /proc reader's eventfd (procinfo.h);
 *  - the service's fds (service.h: the control socket, a reload's detach);
 *  - the --on-snapshot program's output (on_snapshot.h).
 * With --trigger, each FREC_EV_TRIGGER record goes to the policy
 * (triggers.h) before the recorder: only accepted ones are pushed. Each
 * drain also hands it the drops (lost triggers), the programs' trigger
 * state and, for oncpu triggers, who runs on each CPU; the loop's wait ends
 * in time for the nearest trigger snapshot's delay.
 * A drain reads every ring up to one cut (ring.h), hands the drops to the
 * recorder (drops.h) and warns of losses, rate-limited (losslog.h). Nothing
 * in the loop allocates per event: records go straight from the ring into
 * the recorder.
 *
 * Threads: frecd_daemon__run() on main's thread, which becomes the loop's;
 * the other functions only from it (the service's hooks). The loop starts
 * the writer and /proc reader threads and joins them before it returns.
 */
#ifndef FRECD_DAEMON_H
#define FRECD_DAEMON_H

#include <signal.h>
#include <frec/snapshot.h>

struct frec_recorder;
struct frecd_bpf;
struct frecd_options;
struct frecd_outdir;
struct frecd_service;
struct frecd_status;
struct frecd_symbolizer;
struct frecd_trigger_set;

/* How often the ring is drained when no threshold wakeup comes first. */
#define FRECD_DRAIN_MS	50
/* A wait between drains longer than this is counted as slow in frec status. */
#define FRECD_SLOW_GAP_MS	100

struct frecd_hostview;

struct frecd_daemon_opts {
	size_t sz;
	struct frec_recorder *rec;
	const int *ring_fds;		/* one BPF ring buffer per CPU */
	size_t nrings;
	__u64 ring_bytes_each;
	int counters_fd;
	const char *output_dir;
	struct frecd_outdir *outdir;	/* -o, checked again before each snapshot */
	__u64 ring_bytes;		/* --ring-size, for the drop message */
	struct frec_config_summary config; /* written into every snapshot header */
	__u64 debug_stall_ns;		/* --debug-stall-ms; 0: SIGUSR2 is ignored */
	__u64 debug_writer_delay_ns;	/* --debug-writer-delay-ms; 0: none */
	struct frecd_service *svc;	/* socket, notify, reload; may be NULL */
	const struct frecd_options *running; /* as running: --keep, --keep-size, --on-snapshot */
	struct frecd_bpf *bpf;		/* the trigger state and oncpu maps; may be NULL */
	const struct frecd_trigger_set *triggers; /* --trigger at start; NULL: none */
	/* --stacks: told of every exec and new process (a new image of its
	 * user frames); NULL: none */
	struct frecd_symbolizer *symbolizer;
	/* frecd seen from the host; NULL: as if on the host. Its /proc is
	 * read only when it shows host ids (proc_host). */
	const struct frecd_hostview *hv;
};

/* The signals the loop handles; block them (in every thread) before any
 * thread is created and before frecd_daemon__run(). */
void frecd_daemon__signals(sigset_t *set);

/* Run until SIGTERM or SIGINT. 0 on a clean stop, -errno on a failure. */
int frecd_daemon__run(const struct frecd_daemon_opts *opts);

/* For the service (service.c, reload.c), from the loop's own thread. */
struct frecd_daemon;
/*
 * A snapshot, as SIGUSR1 asks for one (reason goes into its header); while
 * one is being written, the request is merged into the next one. 0 and *seq,
 * the number that frecd_service__snapshot_done() will report it under, or
 * -ECANCELED (stopping) or -errno (it could not start; logged).
 */
int frecd_daemon__snapshot(struct frecd_daemon *d, const char *reason, __u64 *seq);
/* The loop's counters (recorder, drops, snapshots); the rest stays zero. */
void frecd_daemon__status(struct frecd_daemon *d, struct frecd_status *st);
/* Records received per probe id (FREC_MAX_PROBES entries), and their reset
 * when the probes are attached again with new ids. */
const __u64 *frecd_daemon__probe_hits(const struct frecd_daemon *d);
void frecd_daemon__reset_probe_hits(struct frecd_daemon *d);
/* Drain the ring and seal the open generation now. */
void frecd_daemon__flush(struct frecd_daemon *d);
/*
 * `frec trigger NAME` from process pid: drain first (the firing comes after
 * every record before it), then fire the manual trigger NAME. 0 and *id
 * (frecd_service__trigger_snapshot() reports its snapshot under it), or
 * -errno with the cause in err (triggers.h: frecd_triggers__manual()).
 */
int frecd_daemon__trigger(struct frecd_daemon *d, const char *name, __u32 pid, __u32 *id,
			  char *err, size_t errlen);
/* A reload's triggers (triggers.h: frecd_triggers__set()): *changed the ids
 * whose state starts over. 0 or -errno. */
int frecd_daemon__set_triggers(struct frecd_daemon *d, const struct frecd_trigger_set *set,
			       __u32 *changed);

#endif /* FRECD_DAEMON_H */
