/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Loads and attaches frec.bpf.c, the scheduler programs: checks privileges
 * (caps.h) and BTF first so that the common failures get a one-line cause
 * and fix, reads from BTF what the sched_switch tracepoint passes, picks
 * tp_btf or raw_tp (trying tp_btf first), hands the programs the rings
 * (bpf_rings.h) and fills the pid filter (bpf_filter.h) before attaching,
 * and logs every program it attaches. A change of -p or wakeup that the
 * loaded programs cannot take swaps in a new set on the same maps.
 *
 * Threads: started and destroyed on main's thread (also by frecd --check);
 * frecd_bpf__set_filter() on the loop's thread (a reload). The accessors
 * read what does not change after start: any thread.
 */
#ifndef FRECD_LOADER_H
#define FRECD_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "frecd/options.h"
#include "../../bpf/trigger.h"

#define FRECD_KERNEL_BTF	"/sys/kernel/btf/vmlinux"

struct frecd_bpf_opts {
	size_t sz;
	__u64 ring_bytes;		/* --ring-size: all CPUs' rings together */
	__u64 ring_min_bytes;		/* --ring-min: each ring at least */
	__u32 self_tgid;		/* never recorded */
	const __u32 *pids;		/* -p filter (tgids), npids 0: everything */
	size_t npids;
	bool wakeup;			/* also sched_wakeup */
	enum frecd_attach attach;
	const char *btf_path;		/* --btf, NULL for the kernel's */
	/* --trigger: the armed triggers, index id - 1 (kind 0: unused), as
	 * bpf_triggers.h builds them; ntriggers 0: none, and no trigger code
	 * is loaded. The kinds armed are knobs: see set_triggers(). */
	const struct frec_trigger_bpf *triggers;
	__u32 ntriggers;
	/* --stacks offcpu: the stacks of a thread that blocks, stack_depth
	 * frames of each kind (1..FREC_MAX_STACK_DEPTH; 0: the default).
	 * Off, none of the capture is loaded (bpf/stack.bpf.h). */
	bool stack_offcpu;
	__u32 stack_depth;
	/* Cgroups (bpf/cgroup.bpf.h): FREC_CGROUP_NONE (nothing read), _V2,
	 * or _V1 with the controller's cgroup_v1_ssid; and --cgroup's
	 * filter, ncgroups entries (0: none), joined to -p's as a union. */
	__u32 cgroup_mode;
	__u32 cgroup_v1_ssid;
	const struct frec_cgroup_filter *cgroups;
	size_t ncgroups;
};

struct frecd_bpf;
struct frecd_bpf_rings;

/*
 * Can frecd load BPF here at all? 0, or -EPERM (privileges) / -ENOENT (no
 * kernel BTF and no --btf) with the cause and the fix in err. The --btf file
 * itself is the caller's to check (a usage error).
 */
int frecd_bpf__preflight(const struct frecd_bpf_opts *opts, char *err, size_t errlen);

/* Open, load and attach everything. NULL with errno set and the cause in err. */
struct frecd_bpf *frecd_bpf__start(const struct frecd_bpf_opts *opts, char *err, size_t errlen);
/* Detach and unload. */
void frecd_bpf__destroy(struct frecd_bpf *b);

/*
 * Change the -p filter to pids (tgids; none: every process), the --cgroup
 * filter to cgroups (none: every cgroup), and whether
 * sched_wakeup is recorded, while recording: the filter map is updated in
 * place; when filtering starts or stops, or wakeup changes, a new set of
 * programs is loaded on the same maps and swapped in (events in the few
 * milliseconds between are not recorded). On failure the old set stays
 * attached. 0, or -errno with the cause in err.
 */
int frecd_bpf__set_filter(struct frecd_bpf *b, const __u32 *pids, size_t npids,
			  const struct frec_cgroup_filter *cgroups, size_t ncgroups, bool wakeup,
			  char *err, size_t errlen);
/*
 * A reload's new triggers (the same shape as in opts). The table is written
 * in place when the kinds armed stay the same; otherwise a new set of
 * programs is loaded and swapped in, as set_filter() does (and leaves a
 * hole last_swap() reports). Per-trigger state of ids whose spec changed is
 * the caller's to reset (reset_trigger()). On failure the old set stays.
 * 0, or -errno with the cause in err. Loop's thread.
 */
int frecd_bpf__set_triggers(struct frecd_bpf *b, const struct frec_trigger_bpf *t, __u32 n,
			    char *err, size_t errlen);
/*
 * The programs' per-trigger state, n entries (index id - 1), for the loop
 * to turn into suppressed aggregates: the suppressed count is cumulative;
 * after reading, an entry whose supp_first_ts was set has supp_first_ts
 * and supp_worst set back to 0 (a firing between the read and the reset
 * loses only its first/worst, never its count). 0 or -errno. Loop's thread.
 */
int frecd_bpf__take_trigger_state(struct frecd_bpf *b, struct frec_trigger_state *st, __u32 n);
/* Zero trigger id's state (a reload gave the id another spec). */
int frecd_bpf__reset_trigger(struct frecd_bpf *b, __u32 id);
/*
 * A reload's --stacks offcpu and --stack-depth: a new set of programs is
 * loaded and swapped in, as set_filter() does (last_swap() reports the
 * hole), when they differ from the running ones; on failure the old set
 * stays. 0, or -errno with the cause in err. Loop's thread.
 */
int frecd_bpf__set_stacks(struct frecd_bpf *b, bool offcpu, __u32 depth, char *err,
			  size_t errlen);
/*
 * The kernel frames of the tracing path the stack twins skip (bpf/stack.bpf.h:
 * stack_kskip), now and in every set loaded later. Loop's thread.
 */
void frecd_bpf__set_kskip(struct frecd_bpf *b, __u32 skip);
/* Who runs on each CPU since when (struct frec_oncpu, bpf/trigger.h), for
 * oncpu triggers; *n CPUs in out (at most the rings). -ENOENT when no oncpu
 * trigger is armed. Loop's thread. */
int frecd_bpf__read_oncpu(struct frecd_bpf *b, struct frec_oncpu *out, size_t *n);
/* The triggers table and state maps, for the probes' object (reuse_fd). */
int frecd_bpf__triggers_fd(const struct frecd_bpf *b);
int frecd_bpf__trigger_state_fd(const struct frecd_bpf *b);

/* The hole the last set_filter() left by swapping programs, CLOCK_BOOTTIME
 * ns: from before the old set's detach to after a set was attached again
 * (or the attempt ended); both 0 when it swapped none. */
void frecd_bpf__last_swap(const struct frecd_bpf *b, __u64 *first_ts, __u64 *last_ts);

/* The maps' descriptors; the same for frecd's whole run, reloads included.
 * rings_fd: the programs' array of per-CPU rings (for the probes' object);
 * frecd_bpf__rings(): the rings themselves, *n of them, *bytes each. */
int frecd_bpf__rings_fd(const struct frecd_bpf *b);
const int *frecd_bpf__rings(const struct frecd_bpf *b, size_t *n, __u64 *bytes);
/* The rings themselves, for their shape and the CPUs that came online later. */
struct frecd_bpf_rings *frecd_bpf__ring_set(const struct frecd_bpf *b);
int frecd_bpf__counters_fd(const struct frecd_bpf *b);
/* The filters' maps, for the probes' object (reuse_fd), and the cgroup
 * hierarchy the programs read (the probes' object takes the same). */
int frecd_bpf__pid_filter_fd(const struct frecd_bpf *b);
int frecd_bpf__cgroup_filter_fd(const struct frecd_bpf *b);
void frecd_bpf__cgroup_mode(const struct frecd_bpf *b, __u32 *mode, __u32 *v1_ssid);
bool frecd_bpf__raw_tp(const struct frecd_bpf *b);	/* the raw_tp set was loaded */
size_t frecd_bpf__nattached(const struct frecd_bpf *b);
/* One line per attached program: "sched: tp_btf/sched_switch (frec_switch)". */
void frecd_bpf__print(const struct frecd_bpf *b, FILE *out);

#endif /* FRECD_LOADER_H */
