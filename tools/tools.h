/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The frec command: subcommands and what they share. Each subcommand has a
 * cmd_X(argc, argv) entry that parses its options (main.c dispatches to it)
 * and a frec_X__run() that does the work on given streams, so that the unit
 * tests can call it directly.
 */
#ifndef FREC_TOOLS_H
#define FREC_TOOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <frec/snapshot.h>

/* Exit status of every subcommand (documented in `frec --help`). */
#define FREC_EXIT_OK		0
#define FREC_EXIT_FAIL		1	/* cannot read the file, not a snapshot, newer format, I/O error */
#define FREC_EXIT_USAGE		2	/* bad command line */
#define FREC_EXIT_DAMAGED	3	/* damaged generations skipped; the intact ones were output */

#ifndef FREC_VERSION
#define FREC_VERSION "unknown"
#endif

/* Subcommand entries: argv[0] is the subcommand name. */
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* The usage text of each subcommand (printed by --help and on usage errors). */
void frec_info__usage(FILE *f);
void frec_dump__usage(FILE *f);
void frec_report__usage(FILE *f);
void frec_export__usage(FILE *f);
void frec_snapshot__usage(FILE *f);
void frec_trigger__usage(FILE *f);
void frec_status__usage(FILE *f);
/* The EXIT STATUS paragraph shared by all usages. */
void frec_usage__exit_status(FILE *f);

struct frec_info_opts {
	bool json;
};
int frec_info__run(const char *path, const struct frec_info_opts *o, FILE *out, FILE *err);

struct frec_dump_opts {
	bool json;
	const char *debug_dir;		/* NULL: /usr/lib/debug */
};
int frec_dump__run(const char *path, const struct frec_dump_opts *o, FILE *out, FILE *err);

enum frec_report_by {
	FREC_REPORT_BY_NONE = 0,
	FREC_REPORT_BY_CGROUP,		/* --by cgroup */
	FREC_REPORT_BY_CONTAINER,	/* --by container */
};

struct frec_report_opts {
	bool json;
	bool has_pid, has_tid;
	__u32 pid, tid;
	bool since_rel, until_rel;	/* relative to the first event ("+S") */
	bool has_since, has_until;
	__u64 since_ns, until_ns;
	unsigned int top;		/* default 10 */
	bool offcpu;			/* the off-CPU time by stack section */
	bool folded;			/* only folded off-CPU stacks, no report */
	const char *debug_dir;		/* NULL: /usr/lib/debug */
	enum frec_report_by by;		/* the by-cgroup section */
	const char *cgroup;		/* --cgroup: a normalised path, or NULL */
};
int frec_report__run(const char *path, const struct frec_report_opts *o, FILE *out, FILE *err);

enum frec_export_format {
	FREC_EXPORT_PERFETTO = 1,
	FREC_EXPORT_CHROME = 2,
	FREC_EXPORT_PPROF = 3,
};
struct frec_export_opts {
	enum frec_export_format format;
	bool gzip;
	const char *debug_dir;		/* NULL: /usr/lib/debug */
};
/* Events written, for the benchmark line of --stats. */
struct frec_export_stats {
	__u64 events;
	__u64 bytes;
};
int frec_export_perfetto__run(const char *path, const struct frec_export_opts *o, FILE *out,
			      FILE *err, struct frec_export_stats *st);
int frec_export_chrome__run(const char *path, const struct frec_export_opts *o, FILE *out,
			    FILE *err, struct frec_export_stats *st);
/* pprof's profile.proto, always gzipped (o->gzip is ignored). */
int frec_export_pprof__run(const char *path, const struct frec_export_opts *o, FILE *out,
			   FILE *err, struct frec_export_stats *st);
/* The one of the three that o->format names (chrome for any other). */
int frec_export__run(const char *path, const struct frec_export_opts *o, FILE *out, FILE *err,
		     struct frec_export_stats *st);

/* One request to frecd's control socket (ctl.c): connect, send, print the
 * answer's output lines to out (and the final "ok TEXT"'s TEXT when
 * print_ok_text), the "error TEXT" to err as "cmd: TEXT". Exit status. */
int frec_ctl__run(const char *cmd, const char *socket_path, const char *request, int timeout_s,
		  bool print_ok_text, FILE *out, FILE *err);

/* The "cgroups" and "namespaces" lines of frec status, from frecd's status
 * JSON's objects of those names (ctl.c); nothing for one that is absent.
 * The number of lines written. */
int frec_status__cgroup_lines(const char *json, FILE *out);

/* Helpers (opts.c) */
/* "12", "12.5", "0.000001" seconds -> ns, exactly (no floating point). */
int frec_opt__parse_secs(const char *s, __u64 *ns);
int frec_opt__parse_u32(const char *s, __u32 *v);
/* The "[--json] [--help] FILE" command line of "frec CMD": sets *json and
 * *file and returns -1 when CMD should run, else the exit status to return
 * (--help printed by usage(), or a usage error named on stderr). */
int frec_opt__parse_json_file(int argc, char **argv, const char *cmd,
			      void (*usage)(FILE *f), bool *json, const char **file);
/* A --debug-dir that names no directory: said on stderr ("frec CMD: ..."),
 * -1; else 0. */
int frec_opt__debug_dir(const char *cmd, const char *dir);
/* A cgroup path as the snapshot holds it ("/a/b"): slashes doubled or at
 * the end taken out, into out. One that does not start with '/' (or is too
 * long) is said on stderr ("frec CMD: ..."), -1; else 0. */
int frec_opt__cgroup_path(const char *cmd, const char *arg, char *out, size_t len);
struct frec_out;
/* "uprobe", "uretprobe", "usdt" */
const char *frec_probe__kind_name(__u32 kind);
/* A probe's name as the user gave it, with " (kind)" unless the name says it. */
void frec_probe__label(struct frec_out *o, const char *name, __u32 kind);
/* prev_state as the kernel's sched_switch prints it: "R", "S", "D|K", "R+". */
void frec_fmt__prev_state(__u64 state, char *buf, size_t len);
/* "runq", "offcpu", "oncpu", "func", "probe", "lost", "manual"; "trigger"
 * for a kind not known (or not named by the snapshot: 0). */
const char *frec_trigger__kind_name(__u32 kind);
/* A trigger's value for people, by its kind: a duration as "52.3 ms"
 * ("812 ns", "3.4 us", "1.25 s"), "N records" (lost), "-" (manual), the
 * number itself otherwise (a probe's first argument, an unknown kind). */
void frec_fmt__trigger_value(__u32 kind, __u64 value, char *buf, size_t len);

#endif /* FREC_TOOLS_H */
