/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's command line: parsing and validation only (no system calls), so
 * that every bad input and its message is unit-tested.
 *
 * Threads: parsing fills the caller's struct (main's thread at start, the
 * loop's on SIGHUP); the size helpers are pure, any thread.
 */
#ifndef FRECD_OPTIONS_H
#define FRECD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include <frec/record.h>

#define FRECD_DEFAULT_DIR		"/var/lib/frec"
#define FRECD_DEFAULT_WINDOW_NS		(10ull * 1000000000)
#define FRECD_DEFAULT_MAX_BYTES		(64ull << 20)
#define FRECD_DEFAULT_PERIOD_NS		(1000ull * 1000000)
#define FRECD_DEFAULT_RING_BYTES	(16ull << 20)
#define FRECD_DEFAULT_RING_MIN_BYTES	(256ull << 10)
#define FRECD_DEFAULT_PROBE_ARGS	3
#define FRECD_MAX_PIDS			1024
#define FRECD_MAX_CGROUPS		16	/* FREC_MAX_CGROUP_FILTER */
#define FRECD_DEFAULT_CONFIG		"/etc/frec/frecd.conf"
#define FRECD_DEFAULT_SOCKET		"/run/frec/frecd.sock"
#define FRECD_DEFAULT_KEEP		100
#define FRECD_DEFAULT_KEEP_BYTES	(1ull << 30)
#define FRECD_DEFAULT_ON_SNAPSHOT_TIMEOUT_NS	(60ull * 1000000000)

/* --stacks: which stacks are captured (bits; 0: none, the default). */
#define FRECD_STACKS_OFFCPU	(1u << 0)	/* a thread that blocks: kernel and user */
#define FRECD_STACKS_PROBES	(1u << 1)	/* a probe hit: user */

enum frecd_attach {
	FRECD_ATTACH_AUTO = 0,	/* tp_btf, falling back to raw_tp */
	FRECD_ATTACH_TP_BTF,
	FRECD_ATTACH_RAW_TP,
};

struct frecd_options {
	const char *output_dir;		/* -o */
	__u64 window_ns;		/* --window */
	__u64 max_bytes;		/* --max-size */
	__u64 period_ns;		/* --period */
	__u64 ring_bytes;		/* --ring-size */
	__u32 max_threads;		/* --max-threads, 0: the recorder's default */
	__u32 max_processes;		/* --max-processes, 0: the recorder's default */
	__u64 ring_min_bytes;		/* --ring-min: each CPU's ring at least */
	__u32 pids[FRECD_MAX_PIDS];	/* -p, in the order given, no duplicates */
	size_t npids;
	const char *cgroups[FRECD_MAX_CGROUPS];	/* --cgroup PATH, resolved later */
	size_t ncgroups;
	const char *cgroup_hierarchy;	/* --cgroup-hierarchy: auto, v2, none, CONTROLLER */
	const char *probes[FREC_MAX_PROBES]; /* --probe SPEC, validated later */
	size_t nprobes;
	__u32 probe_args;		/* --probe-args */
	const char *triggers[FREC_MAX_TRIGGERS]; /* --trigger SPEC, ids 1..n in order */
	size_t ntriggers;
	const char *on_snapshot;	/* --on-snapshot PROGRAM (absolute), NULL: none */
	__u64 on_snapshot_timeout_ns;	/* --on-snapshot-timeout */
	__u32 stacks;			/* --stacks: FRECD_STACKS_* */
	__u32 stack_depth;		/* --stack-depth: frames of each kind */
	bool wakeup;			/* --wakeup: record sched_wakeup too */
	enum frecd_attach attach;	/* --attach */
	const char *btf_path;		/* --btf: BTF for CO-RE when the kernel has none */
	const char *config_path;	/* --config; NULL: FRECD_DEFAULT_CONFIG if it exists */
	const char *socket_path;	/* --socket: the control socket */
	__u32 keep;			/* --keep: snapshots kept in -o, 0: no limit */
	__u64 keep_bytes;		/* --keep-size: their bytes, 0: no limit */
	__u32 compress;			/* --compress: enum frec_compress */
	bool check;			/* --check: report what works here, exit */
	__u32 debug_stall_ms;		/* --debug-stall-ms: SIGUSR2 stalls the drain */
	__u32 debug_writer_delay_ms;	/* --debug-writer-delay-ms: each snapshot waits */
	__u32 debug_attach_delay_ms;	/* --debug-attach-delay-ms: before attaching probes */
	bool debug_probes_only;		/* --debug-probes-only: sched programs record nothing */
	bool dry_run;
	int verbose;
	bool help;
	bool version;
};

/* Set the defaults. */
void frecd_options__init(struct frecd_options *o);

/*
 * Parse argv (getopt_long; resets optind). 0, or -EINVAL with one line in err
 * that names the option, the problem and the fix (frecd prints it and exits
 * 2). Strings in o point into argv.
 */
int frecd_options__parse(struct frecd_options *o, int argc, char **argv, char *err, size_t errlen);

/*
 * One configuration file key (a long option's name without the dashes) with
 * its value, as if given on the command line: "window" "10", "probe" "...",
 * "wakeup" "yes". Options that only make sense on the command line (config,
 * check, dry-run, help, version) are refused. 0, or -EINVAL with one line in
 * err (the option's own message, or "unknown key").
 */
int frecd_options__set(struct frecd_options *o, const char *key, const char *value,
		       char *err, size_t errlen);

/*
 * What concerns several options together, once all are in (the file's and
 * the command line's): each trigger's delay is shorter than --window (its
 * snapshot must still hold the firing), and no two triggers share a name.
 * 0, or -EINVAL with one line in err and *bad the trigger text at fault
 * (one of o->triggers, for frecd_config__where()).
 */
int frecd_options__check(const struct frecd_options *o, const char **bad, char *err,
			 size_t errlen);

/* --stacks' LIST: "offcpu", "probes", "offcpu,probes", "none" into
 * FRECD_STACKS_* bits. 0, or -EINVAL with *bad the word at fault (into
 * list). */
int frecd_parse_stacks(const char *list, __u32 *out, const char **bad, size_t *badlen);
/* "offcpu,probes", "offcpu", "probes" or "none". */
const char *frecd_format_stacks(__u32 stacks);
/* --compress's value as the option takes it: "zstd" or "none". */
const char *frecd_format_compress(__u32 compress);
/* The snapshot header's FREC_CFG_STACKS_* bits for FRECD_STACKS_* ones. */
__u32 frecd_stacks__config_flags(__u32 stacks);

/* "123", "64K", "16M", "1G" (binary multiples). 0 or -EINVAL / -ERANGE. */
int frecd_parse_size(const char *s, __u64 *out);
/* Seconds with an optional fraction, "10" or "2.5", as ns. 0 or -EINVAL / -ERANGE. */
int frecd_parse_seconds(const char *s, __u64 *out_ns);

/* A duration longer than a day says nothing a day does not. */
#define FRECD_MAX_DURATION_NS	(86400ull * 1000000000)
/* "50ms", "1.5s", "200us", "0" (alone, without a unit) as ns; a fraction
 * below a nanosecond is dropped. 0, -EINVAL (not a duration), -ERANGE
 * (over FRECD_MAX_DURATION_NS). */
int frecd_parse_duration(const char *s, __u64 *out_ns);

/* Human size: "64M", "16M", "1536K", "100" (exact, never rounded). */
const char *frecd_format_size(__u64 bytes, char *buf, size_t len);

void frecd_options__usage(FILE *out);

#endif /* FRECD_OPTIONS_H */
