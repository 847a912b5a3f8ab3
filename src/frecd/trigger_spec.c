// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <frec/event.h>
#include "frecd/options.h"
#include "frecd/trigger_spec.h"

#define HOUR_NS		(3600ull * 1000000000)
#define DAY_NS		(24 * HOUR_NS)
#define MAX_PID		4194304		/* PID_MAX_LIMIT on 64-bit */

const char *trigger_kind__name(enum frec_trigger_kind kind)
{
	const char *name = frec_trigger_kind__name(kind);

	return name ? name : "?";
}

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, const char *text, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "trigger '%s': %s", text, msg);
	return -EINVAL;
}

/* A name `frec trigger NAME` and frec status can carry: one word. */
static int check_name(const char *name)
{
	const unsigned char *p;

	if (!*name || strlen(name) > TRIGGER_NAME_MAX)
		return -EINVAL;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return -EINVAL;
	return 0;
}

static int parse_threshold(const char *text, const char *kind, const char *dur, __u64 *out,
			   char *err, size_t errlen)
{
	int ret = frecd_parse_duration(dur, out);

	if (ret == -ERANGE)
		return fail(err, errlen, text, "%s>%s: longer than a day; use a threshold of at most 86400s",
			    kind, dur);
	if (ret)
		return fail(err, errlen, text,
			    "%s>%s: not a duration; use a number with us, ms or s, e.g. %s>50ms",
			    kind, dur, kind);
	return 0;
}

/* The condition, before the first comma: kind and threshold or probe. */
static int parse_cond(const char *text, char *cond, struct trigger_spec *ts, char *err,
		      size_t errlen)
{
	static const struct {
		const char *name;
		enum frec_trigger_kind kind;
	} durs[] = {
		{ "runq", FREC_TRIG_RUNQ },
		{ "offcpu", FREC_TRIG_OFFCPU },
		{ "oncpu", FREC_TRIG_ONCPU },
	};
	char *gt, *colon;
	size_t i, len;

	for (i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		len = strlen(durs[i].name);
		if (strncmp(cond, durs[i].name, len))
			continue;
		if (cond[len] != '>')
			break;
		ts->kind = durs[i].kind;
		return parse_threshold(text, durs[i].name, cond + len + 1, &ts->threshold_ns,
				       err, errlen);
	}
	if (i < sizeof(durs) / sizeof(durs[0]))
		return fail(err, errlen, text, "%s needs a threshold; use e.g. %s>50ms",
			    durs[i].name, durs[i].name);
	if (!strncmp(cond, "func:", 5)) {
		/* The last '>': a path may hold one, a duration never does. */
		gt = strrchr(cond, '>');
		if (!gt)
			return fail(err, errlen, text,
				    "func: needs a threshold; use func:PATH:FUNC>DUR, e.g. func:/usr/bin/app:handle>10ms");
		*gt = '\0';
		colon = strrchr(cond + 5, ':');
		if (!colon || colon == cond + 5 || !colon[1])
			return fail(err, errlen, text,
				    "'%s' names no function; use func:PATH:FUNC>DUR, e.g. func:/usr/bin/app:handle>10ms",
				    cond);
		ts->kind = FREC_TRIG_FUNC;
		ts->probe = cond;
		return parse_threshold(text, "func:...", gt + 1, &ts->threshold_ns, err, errlen);
	}
	if (!strncmp(cond, "probe:", 6)) {
		if (!cond[6])
			return fail(err, errlen, text,
				    "probe: names no probe; use probe:SPEC with a --probe spec, e.g. probe:usdt:/usr/bin/app:app:error");
		ts->kind = FREC_TRIG_PROBE;
		ts->probe = cond + 6;
		return 0;
	}
	if (!strcmp(cond, "lost")) {
		ts->kind = FREC_TRIG_LOST;
		return 0;
	}
	if (!strncmp(cond, "manual:", 7) || !strcmp(cond, "manual")) {
		if (!cond[6] || check_name(cond + 7))
			return fail(err, errlen, text,
				    "manual needs a name of 1 to %d characters without spaces; use e.g. manual:oops (fired by frec trigger oops)",
				    TRIGGER_NAME_MAX);
		ts->kind = FREC_TRIG_MANUAL;
		ts->manual = cond + 7;
		return 0;
	}
	if (!*cond)
		return fail(err, errlen, text,
			    "no condition; start with runq>DUR, offcpu>DUR, oncpu>DUR, func:PATH:FUNC>DUR, probe:SPEC, lost or manual:NAME");
	return fail(err, errlen, text,
		    "unknown condition '%.40s'; use runq>DUR, offcpu>DUR, oncpu>DUR, func:PATH:FUNC>DUR, probe:SPEC, lost or manual:NAME",
		    cond);
}

enum {
	OPT_COMM = 1, OPT_PID = 2, OPT_DELAY = 4, OPT_COOLDOWN = 8, OPT_MAX = 16, OPT_NAME = 32,
	OPT_CGROUP = 64,
};

/* One KEY=VALUE after the condition. *seen: the keys given so far. */
static int parse_opt(const char *text, char *opt, struct trigger_spec *ts, unsigned int *seen,
		     char *err, size_t errlen)
{
	static const struct {
		const char *key;
		unsigned int bit;
	} keys[] = {
		{ "comm", OPT_COMM }, { "pid", OPT_PID }, { "delay", OPT_DELAY },
		{ "cooldown", OPT_COOLDOWN }, { "max", OPT_MAX }, { "name", OPT_NAME },
		{ "cgroup", OPT_CGROUP },
	};
	char *eq = strchr(opt, '='), *val, *end;
	unsigned long long v;
	unsigned int bit = 0;
	size_t i;
	int ret;

	if (!*opt)
		return fail(err, errlen, text, "empty option (two commas, or one at the end); remove it");
	if (!eq)
		return fail(err, errlen, text,
			    "option '%.40s' has no value; use KEY=VALUE: comm=, pid=, cgroup=, delay=, cooldown=, max=, name=",
			    opt);
	*eq = '\0';
	val = eq + 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(opt, keys[i].key))
			bit = keys[i].bit;
	if (!bit)
		return fail(err, errlen, text,
			    "unknown option '%.40s'; the options are comm=, pid=, cgroup=, delay=, cooldown=, max= and name=",
			    opt);
	if (*seen & bit)
		return fail(err, errlen, text, "%s= given twice; keep one", opt);
	*seen |= bit;
	if ((bit & (OPT_COMM | OPT_PID | OPT_CGROUP)) &&
	    (ts->kind == FREC_TRIG_LOST || ts->kind == FREC_TRIG_MANUAL))
		return fail(err, errlen, text, "%s= does not apply to %s (it concerns no thread); remove it",
			    opt, trigger_kind__name(ts->kind));

	switch (bit) {
	case OPT_COMM:
		if (!*val || strlen(val) >= FREC_COMM_LEN)
			return fail(err, errlen, text,
				    "comm=%s: a thread name has 1 to %d characters (the kernel's limit); use the name ps -L shows",
				    val, FREC_COMM_LEN - 1);
		memcpy(ts->comm, val, strlen(val) + 1);
		return 0;
	case OPT_PID:
		errno = 0;
		v = isdigit((unsigned char)*val) ? strtoull(val, &end, 10) : 0;
		if (!v || errno || *end || v > MAX_PID)
			return fail(err, errlen, text,
				    "pid=%s: not a process id; use a number from 1 to %d, e.g. pid=$(pidof app)",
				    val, MAX_PID);
		ts->pid = v;
		return 0;
	case OPT_CGROUP:
		/* resolved once the hierarchy is known (bpf_triggers.h) */
		if (*val != '/')
			return fail(err, errlen, text,
				    "cgroup=%s: not a cgroup path; give the path /proc/PID/cgroup shows for a process in it, e.g. cgroup=/system.slice/app.service",
				    val);
		ts->cgroup = val;
		return 0;
	case OPT_DELAY:
	case OPT_COOLDOWN:
		ret = frecd_parse_duration(val, bit == OPT_DELAY ? &ts->delay_ns : &ts->cooldown_ns);
		if (ret == -ERANGE)
			return fail(err, errlen, text, "%s=%s: longer than a day; use at most 86400s",
				    opt, val);
		if (ret)
			return fail(err, errlen, text,
				    "%s=%s: not a duration; use a number with us, ms or s, e.g. %s=%s",
				    opt, val, opt, bit == OPT_DELAY ? "2s" : "30s");
		return 0;
	case OPT_MAX:
		errno = 0;
		v = isdigit((unsigned char)*val) ? strtoull(val, &end, 10) : 0;
		if (!v || errno || v > TRIGGER_MAX_RATE || strlen(end) != 2 || end[0] != '/' ||
		    (end[1] != 'h' && end[1] != 'd'))
			return fail(err, errlen, text,
				    "max=%s: use N/h or N/d with N from 1 to %d snapshots, e.g. max=6/h",
				    val, TRIGGER_MAX_RATE);
		ts->max_count = v;
		ts->max_period_ns = end[1] == 'h' ? HOUR_NS : DAY_NS;
		return 0;
	case OPT_NAME:
		if (check_name(val))
			return fail(err, errlen, text,
				    "name=%s: use 1 to %d characters without spaces or control characters",
				    val, TRIGGER_NAME_MAX);
		ts->name = val;
		return 0;
	}
	return fail(err, errlen, text, "internal error: option %s not handled", opt);
}

int trigger_spec__parse(const char *text, struct trigger_spec *ts, char *err, size_t errlen)
{
	unsigned int seen = 0;
	size_t len = strlen(text);
	char *work, *opt, *next;
	int ret;

	memset(ts, 0, sizeof(*ts));
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return fail(err, errlen, "...",
				    "a control character at byte %zu; write the spec on one line", i + 1);
	/* The spec as written, then a copy cut into the pieces. */
	ts->buf_ = malloc(2 * (len + 1));
	if (!ts->buf_) {
		snprintf(err, errlen, "trigger '%s': out of memory", text);
		return -ENOMEM;
	}
	memcpy(ts->buf_, text, len + 1);
	ts->spec = ts->buf_;
	work = ts->buf_ + len + 1;
	memcpy(work, text, len + 1);
	ts->delay_ns = TRIGGER_DEFAULT_DELAY_NS;
	ts->cooldown_ns = TRIGGER_DEFAULT_COOLDOWN_NS;
	ts->max_count = TRIGGER_DEFAULT_MAX;
	ts->max_period_ns = HOUR_NS;

	next = strchr(work, ',');
	if (next)
		*next++ = '\0';
	ret = parse_cond(text, work, ts, err, errlen);
	while (!ret && next) {
		opt = next;
		next = strchr(opt, ',');
		if (next)
			*next++ = '\0';
		ret = parse_opt(text, opt, ts, &seen, err, errlen);
	}
	if (ret) {
		trigger_spec__free(ts);
		return ret;
	}
	if (!ts->name)
		ts->name = ts->spec;	/* the rule for every kind; name= to shorten */
	return 0;
}

void trigger_spec__free(struct trigger_spec *ts)
{
	if (!ts)
		return;
	free(ts->buf_);
	memset(ts, 0, sizeof(*ts));
}
