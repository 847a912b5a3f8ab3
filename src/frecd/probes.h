/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User probes: --probe specs (uprobe, uretprobe, usdt, func), validated with
 * libelf before anything is attached, loaded from probe.bpf.c into the same
 * ring buffers as the scheduler programs (bpf_map__reuse_fd), attached all or
 * nothing. frecd's option parser and main loop call this; probes.c and
 * bpf/probe.bpf.c implement it.
 *
 * Threads: a set is built, attached, detached, logged and freed by one
 * thread at a time: main's at start, the loop's on a reload. The one
 * exception is frec_probes__unlink(), the slow part of a detach, which the
 * reload's detach thread runs on the old set while the loop goes on
 * draining (and naming probe hits through the old set).
 */
#ifndef FREC_PROBES_H
#define FREC_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <frec/event.h>
#include "../../bpf/trigger.h"

struct frec_probes;

struct frec_probes_attach_opts {
	size_t sz;
	int rings_fd;		/* frecd's array of per-CPU ring buffers */
	int counters_fd;	/* frecd's per-CPU counters map (enum frec_counter) */
	const __u32 *pids;	/* -p filter: attach for these processes only */
	size_t npids;		/* 0: every process that maps the binary */
	__u32 self_pid;		/* frecd itself, never recorded */
	__u32 nargs;		/* --probe-args, 0..FREC_MAX_PROBE_ARGS */
	int verbose;
	__u64 ring_bytes;	/* each ring's size, for the wakeup threshold */
	/* --trigger: the armed triggers (index id - 1, as in frecd_bpf_opts)
	 * and frecd's maps for them; func and probe triggers name their
	 * probes by frec_probes__find()'s ids. ntriggers 0: none. */
	const struct frec_trigger_bpf *triggers;
	__u32 ntriggers;
	int triggers_fd;
	int trigger_state_fd;
	/* --stacks probes: the user stack of each hit, stack_depth frames
	 * (0: the default); off, none of the capture is loaded. */
	bool stack_probes;
	__u32 stack_depth;
	/* --cgroup: the probes attach to every process (pid -1) and keep
	 * the hits of current's process and cgroup that -p and --cgroup keep,
	 * through frecd's filter maps (frecd_bpf__pid_filter_fd() and
	 * frecd_bpf__cgroup_filter_fd()). cgroup_mode and cgroup_v1_ssid are
	 * the scheduler programs' (frecd_bpf__cgroup_mode()), also for
	 * cgroup= triggers. */
	bool filter_cgroups;
	int pid_filter_fd;
	int cgroup_filter_fd;
	__u32 cgroup_mode;
	__u32 cgroup_v1_ssid;
	__u32 attach_delay_ms;	/* --debug-attach-delay-ms: wait before attaching */
	/* -p in BPF, for a frecd whose pids are not the host's (perf_event_open
	 * reads the pid in frecd's pid namespace): attach for every process and
	 * keep the hits of the tgids in frecd's pid_filter (pid_filter_fd). */
	bool pids_in_bpf;
};

struct frec_probes *frec_probes__new(void);
void frec_probes__free(struct frec_probes *p);

/* The -p tgids (they must outlive p's specs being added), for library names:
 * then the file the first of them maps (probe_path.h). Before add_spec(). */
void frec_probes__set_pids(struct frec_probes *p, const __u32 *pids, size_t npids);
/* Parse and validate one --probe SPEC (resolving the path and the symbol or
 * USDT note now). 0, or -errno with one line naming the spec, the cause and the
 * fix written to err (a usage error: frecd exits 2). */
int frec_probes__add_spec(struct frec_probes *p, const char *spec, char *err, size_t errlen);
size_t frec_probes__count(const struct frec_probes *p);
/* The ids of a spec added before (compared as written): *entry_id the
 * entry (uprobe, usdt, or func's entry), *return_id func's or a uretprobe's
 * return (0 when none). Ids are fixed by add_spec(). 0 or -ENOENT. */
int frec_probes__find(const struct frec_probes *p, const char *spec, __u32 *entry_id,
		      __u32 *return_id);

/* Load probe.bpf.o and attach every probe; on any failure nothing stays
 * attached. 0, or -errno with the cause and the fix in err (exit 1). */
int frec_probes__attach(struct frec_probes *p, const struct frec_probes_attach_opts *opts,
			char *err, size_t errlen);
/* Detach and unload. Safe on a never-attached set, and after unlink(). */
void frec_probes__detach(struct frec_probes *p);
/* Only detach the probes from the processes (the kernel waits for each
 * uprobe's users: milliseconds a probe), leaving the programs loaded and
 * counted for their recursion misses until detach(). Any one thread, while
 * the others call on p only what reads its entries and table (site(),
 * current(), table(), count(), log()): unlink touches only the links. */
void frec_probes__unlink(struct frec_probes *p);

/* The probe table, for frec_recorder__set_probes(); valid while p lives. */
const struct frec_probe_info *frec_probes__table(const struct frec_probes *p, size_t *n);
/*
 * The set attached last (its frec_probes__attach() succeeded and it was
 * not detached since), for the loop's naming of probe hits' stacks; NULL
 * when none. *gen changes at every successful attach. Loop's thread.
 */
const struct frec_probes *frec_probes__current(__u64 *gen);
/* Where uprobe id is attached: 0 with *path and *build_id (hex, "" when
 * none; both live as long as p) and the file offset *file_off; -ENOENT for any other id (uretprobes, whose
 * stacks start at the return address, and USDT, which libbpf attaches). */
int frec_probes__site(const struct frec_probes *p, __u32 id, const char **path,
		      const char **build_id, __u64 *file_off);
/* One line per probe: "probe N: SPEC -> PATH:FUNC+OFF (N args)". */
void frec_probes__print(const struct frec_probes *p, FILE *out);
/* The same through the log, one info line each: "attached probe 1: SPEC -> ...". */
void frec_probes__log(const struct frec_probes *p);

#endif /* FREC_PROBES_H */
