/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * SIGHUP: read the configuration again (the file, then the command line on
 * top, exactly as at start) and apply, without losing the recorded window,
 * what can change while recording:
 *   probe, probe-args   the probes are detached, what they recorded is
 *                       drained and sealed into a generation under the old
 *                       probe table, then the new probes are attached and
 *                       the recorder gets the new table;
 *   pid, wakeup         the BPF filter map is updated (frecd_bpf__set_filter);
 *   trigger             the programs get the new table (frecd_bpf__set_triggers:
 *                       in place, or a swap of programs marked as a gap); an
 *                       id whose spec stays keeps its state and counters, the
 *                       others start over; func: and probe: triggers attach
 *                       the probes again (their ids may change);
 *   on-snapshot, on-snapshot-timeout  from the next snapshot on;
 *   output, keep, keep-size, verbose.
 * The recorder's shape (window, max-size, period, ring-size) and attach, btf
 * and socket take a restart: a change is logged and the running value stays.
 * Everything is checked before anything changes (the file, each probe against
 * its binary, each pid, the new -o); an error is logged as one line, with the
 * file's name and line number when the file is the cause, and the running
 * configuration stays. An attach that fails half-way puts back the old probes
 * and filter. A SIGHUP while a reload is in progress is answered by one more
 * reload once it is done (service.c).
 */
#ifndef FRECD_RELOAD_H
#define FRECD_RELOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "frecd/options.h"
#include "frecd/cgroupfs.h"

struct frecd_service_opts;
struct frecd_daemon;
struct frecd_config;
struct frecd_outdir;
struct frec_probes;
struct frecd_trigger_set;

/* A checked configuration, waiting to be applied. */
struct frecd_reload_plan {
	struct frecd_options next;
	struct frecd_config *cfg;	/* owns next's strings from the file */
	struct frec_probes *probes;	/* the new probes (checked, not attached), or NULL: unchanged */
	struct frec_probes *old;	/* the probes they replace */
	struct frecd_outdir *outdir;	/* the new -o, or NULL: unchanged */
	struct frecd_trigger_set *triggers; /* the new triggers (built for the
					 * probes they go with), or NULL: unchanged */
	__u32 tgids[FRECD_MAX_PIDS];
	size_t ntgids;
	struct frecd_cgroup_list cgroups;	/* --cgroup, resolved again */
	bool filter_changed;
	bool stacks_changed;		/* --stacks offcpu or its depth: new scheduler programs */
	__u64 start_ms;
};

/* What a reload needs to remember between reloads. */
struct frecd_reload_state {
	__u32 tgids[FRECD_MAX_PIDS];	/* the -p filter running now (tgids) */
	size_t ntgids;
	char *boot_btf;			/* copies of the restart-only strings */
	char *boot_socket;		/* as frecd started */
	/*
	 * Detaching a uprobe waits for the kernel (an RCU grace period, some
	 * hundred ms on a busy machine), during which the loop would not drain
	 * the ring: the old probes are detached by a helper thread while the
	 * loop records on (their last events still named by the old table),
	 * and efd says when the reload can go on.
	 */
	int efd;
	pthread_t thread;
	bool busy;			/* a reload waits for its detach */
	__u64 detach_ms;
	struct frecd_reload_plan plan;
};

/* From the options frecd started with and its resolved filter. 0 or -errno. */
int frecd_reload__init(struct frecd_reload_state *rs, const struct frecd_options *o,
		       const __u32 *tgids, size_t ntgids);
/* Waits for a detach in progress and drops its plan. */
void frecd_reload__fini(struct frecd_reload_state *rs);

/*
 * Reload now. 0 when done (applied, or failed and logged: nothing changed),
 * 1 when it goes on in the background: call frecd_reload__continue() once
 * rs->efd is readable.
 */
int frecd_reload__run(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
		      struct frecd_daemon *d);
/* The old probes are detached: apply the rest. 0 (done). */
int frecd_reload__continue(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
			   struct frecd_daemon *d);

#endif /* FRECD_RELOAD_H */
