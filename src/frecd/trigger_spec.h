/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The syntax of one --trigger SPEC (frecd(8), "Triggers"):
 *   runq>DUR | offcpu>DUR | oncpu>DUR | func:PATH:FUNC>DUR | probe:PROBESPEC
 *   | lost | manual:NAME
 * then, after commas, any of comm=NAME, pid=PID, cgroup=PATH (resolved
 * later, bpf_triggers.h), delay=DUR, cooldown=DUR, max=N/h or max=N/d,
 * name=NAME. DUR is a number with us, ms or s, with an optional fraction
 * ("0" alone needs none), at most a day. The options and the condition are
 * split at commas: a probe's path cannot hold one. comm=, pid= and cgroup=
 * concern a thread, so lost and manual refuse them.
 * Only the text is checked here; frecd resolves func: and probe: probes and
 * checks what concerns all triggers together (names, delay < --window).
 *
 * Threads: pure parsing, any thread.
 */
#ifndef FRECD_TRIGGER_SPEC_H
#define FRECD_TRIGGER_SPEC_H

#include <stddef.h>
#include <linux/types.h>
#include <frec/record.h>

#define TRIGGER_DEFAULT_DELAY_NS	1000000000ull	/* 1 s */
#define TRIGGER_DEFAULT_COOLDOWN_NS	10000000000ull	/* 10 s */
#define TRIGGER_DEFAULT_MAX		6		/* per hour */
#define TRIGGER_MAX_RATE		1000		/* max=N/...: N at most */
#define TRIGGER_NAME_MAX		64		/* name=, manual:NAME */

struct trigger_spec {
	enum frec_trigger_kind kind;
	__u64 threshold_ns;	/* runq, offcpu, oncpu, func */
	const char *probe;	/* func: "func:PATH:FUNC"; probe: the probe spec */
	const char *manual;	/* manual: NAME */
	char comm[FREC_COMM_LEN]; /* comm=, "" for any */
	__u32 pid;		/* pid=, 0 for any */
	const char *cgroup;	/* cgroup=, NULL for any */
	__u64 delay_ns;
	__u64 cooldown_ns;
	__u32 max_count;	/* max=N/... */
	__u64 max_period_ns;	/* one hour or one day */
	const char *name;	/* name=, else manual's NAME, else the whole spec */
	const char *spec;	/* as written */
	char *buf_;		/* the strings above point into it */
};

/* 0, or -EINVAL with "trigger 'SPEC': cause: fix" in err. */
int trigger_spec__parse(const char *text, struct trigger_spec *ts, char *err, size_t errlen);
void trigger_spec__free(struct trigger_spec *ts);

const char *trigger_kind__name(enum frec_trigger_kind kind);

#endif /* FRECD_TRIGGER_SPEC_H */
