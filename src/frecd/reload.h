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
 *   output, keep, keep-size, verbose.
 * The recorder's shape (window, max-size, period, ring-size) and attach, btf
 * and socket take a restart: a change is logged and the running value stays.
 * Everything is checked before anything changes (the file, each probe against
 * its binary, each pid, the new -o); an error is logged as one line, with the
 * file's name and line number when the file is the cause, and the running
 * configuration stays. An attach that fails half-way puts back the old probes
 * and filter.
 */
#ifndef FRECD_RELOAD_H
#define FRECD_RELOAD_H

#include <stddef.h>
#include <linux/types.h>
#include "frecd/options.h"

struct frecd_service_opts;
struct frecd_daemon;

/* What a reload needs to remember between reloads. */
struct frecd_reload_state {
	__u32 tgids[FRECD_MAX_PIDS];	/* the -p filter running now (tgids) */
	size_t ntgids;
	char *boot_btf;			/* copies of the restart-only strings */
	char *boot_socket;		/* as frecd started */
};

/* From the options frecd started with and its resolved filter. 0 or -ENOMEM. */
int frecd_reload__init(struct frecd_reload_state *rs, const struct frecd_options *o,
		       const __u32 *tgids, size_t ntgids);
void frecd_reload__fini(struct frecd_reload_state *rs);

/* Reload now. 0 (applied, or nothing changed) or -errno (logged; nothing
 * changed). */
int frecd_reload__run(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
		      struct frecd_daemon *d);

#endif /* FRECD_RELOAD_H */
