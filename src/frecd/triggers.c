// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frecd/triggers.h"

struct trig {
	__u32 id;
	enum frec_trigger_kind kind;
	char *name, *spec, *manual;
	char comm[FREC_COMM_LEN];
	__u32 pid;
	__u64 threshold_ns, delay_ns, cooldown_ns, max_period_ns;
	__u32 max_count;

	bool fired_once;
	__u64 last_fire_ts;		/* the last accepted firing */
	__u64 *rate_ts;			/* the last max_count accepted, a ring */
	__u32 rate_head, rate_n;
	bool pending;
	__u64 deadline;			/* of the pending snapshot */
	char reason[FRECD_TRIGGER_REASON_MAX];
	__u64 bpf_seen;			/* the programs' suppressed count, last read */
	__u64 *oncpu_fired;		/* per CPU: the run (since_ts) the tick fired for */
	size_t noncpu;

	__u64 fired, snapshots, supp_delay, supp_cooldown, supp_rate;
};

struct frecd_triggers {
	struct frecd_triggers_hooks hooks;
	size_t n;
	struct trig *t;
};

static void trig_fini(struct trig *g)
{
	free(g->name);
	free(g->spec);
	free(g->manual);
	free(g->rate_ts);
	free(g->oncpu_fired);
	memset(g, 0, sizeof(*g));
}

static int trig_init(struct trig *g, __u32 id, const struct trigger_spec *s)
{
	memset(g, 0, sizeof(*g));
	g->id = id;
	g->kind = s->kind;
	memcpy(g->comm, s->comm, sizeof(g->comm));
	g->comm[FREC_COMM_LEN - 1] = '\0';
	g->pid = s->pid;
	g->threshold_ns = s->threshold_ns;
	g->delay_ns = s->delay_ns;
	g->cooldown_ns = s->cooldown_ns;
	g->max_count = s->max_count;
	g->max_period_ns = s->max_period_ns;
	g->name = strdup(s->name ? s->name : s->spec);
	g->spec = strdup(s->spec);
	g->manual = s->manual ? strdup(s->manual) : NULL;
	g->rate_ts = g->max_count ? calloc(g->max_count, sizeof(*g->rate_ts)) : NULL;
	if (!g->name || !g->spec || (s->manual && !g->manual) || (g->max_count && !g->rate_ts)) {
		trig_fini(g);
		return -ENOMEM;
	}
	return 0;
}

static struct trig *trig_array(const struct trigger_spec *specs, size_t n)
{
	struct trig *t;
	size_t i;

	t = calloc(n ? n : 1, sizeof(*t));
	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		if (trig_init(&t[i], i + 1, &specs[i])) {
			while (i--)
				trig_fini(&t[i]);
			free(t);
			errno = ENOMEM;
			return NULL;
		}
	}
	return t;
}

struct frecd_triggers *frecd_triggers__new(const struct trigger_spec *specs, size_t n,
					   const struct frecd_triggers_hooks *hooks)
{
	struct frecd_triggers *t;

	if (n > FREC_MAX_TRIGGERS) {
		errno = E2BIG;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->hooks = *hooks;
	t->t = trig_array(specs, n);
	if (!t->t) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->n = n;
	return t;
}

void frecd_triggers__free(struct frecd_triggers *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		trig_fini(&t->t[i]);
	free(t->t);
	free(t);
}

int frecd_triggers__set(struct frecd_triggers *t, const struct trigger_spec *specs, size_t n,
			__u32 *changed)
{
	struct trig *next;
	size_t i;

	*changed = 0;
	if (n > FREC_MAX_TRIGGERS)
		return -E2BIG;
	next = trig_array(specs, n);
	if (!next)
		return -ENOMEM;
	for (i = 0; i < n || i < t->n; i++) {
		if (i < n && i < t->n && !strcmp(next[i].spec, t->t[i].spec)) {
			/* The same trigger: its state and counters stay. */
			struct trig keep = t->t[i];

			free(keep.name);
			free(keep.spec);
			free(keep.manual);
			keep.name = next[i].name;
			keep.spec = next[i].spec;
			keep.manual = next[i].manual;
			free(next[i].rate_ts);
			next[i] = keep;
			memset(&t->t[i], 0, sizeof(t->t[i]));
			continue;
		}
		*changed |= 1u << i;
		if (i < t->n)
			trig_fini(&t->t[i]);
	}
	free(t->t);
	t->t = next;
	t->n = n;
	return 0;
}

size_t frecd_triggers__count(const struct frecd_triggers *t)
{
	return t ? t->n : 0;
}

static struct trig *by_id(struct frecd_triggers *t, __u32 id)
{
	return id >= 1 && id <= t->n ? &t->t[id - 1] : NULL;
}

static void format_value(char *buf, size_t len, enum frec_trigger_kind kind, __u64 v)
{
	switch (kind) {
	case FREC_TRIG_RUNQ:
	case FREC_TRIG_OFFCPU:
	case FREC_TRIG_ONCPU:
	case FREC_TRIG_FUNC:
		if (v < 1000000)
			snprintf(buf, len, "%.1f us", v / 1e3);
		else if (v < 1000000000)
			snprintf(buf, len, "%.1f ms", v / 1e6);
		else
			snprintf(buf, len, "%.2f s", v / 1e9);
		return;
	case FREC_TRIG_LOST:
		snprintf(buf, len, "%llu records", (unsigned long long)v);
		return;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return;
	}
}

void frecd_trigger__reason(char *buf, size_t len, const char *name, enum frec_trigger_kind kind,
			   __u32 tid, const char *comm, __u64 value)
{
	char v[48], c[FREC_COMM_LEN], facts[96];
	size_t i, nlen, room, head;

	/* A comm is the kernel's, any bytes: keep the reason one line. */
	for (i = 0; i < FREC_COMM_LEN - 1 && comm && comm[i]; i++)
		c[i] = (unsigned char)comm[i] < 0x20 || comm[i] == 0x7f ? '?' : comm[i];
	c[i] = '\0';
	format_value(v, sizeof(v), kind, value);
	snprintf(facts, sizeof(facts), ": tid %u comm %s value %s", tid, i ? c : "-", v);
	/*
	 * A name defaults to the whole spec, and a probe's path can be long:
	 * elide the middle of the name rather than cut the facts off the end.
	 */
	nlen = strlen(name);
	room = len > strlen("trigger ") + strlen(facts) + 1 ?
		       len - strlen("trigger ") - strlen(facts) - 1 : 0;
	if (nlen <= room || room < 2 * FRECD_TRIGGER_REASON_KEEP + 3) {
		snprintf(buf, len, "trigger %s%s", name, facts);
		return;
	}
	head = (room - 3) / 2;
	snprintf(buf, len, "trigger %.*s...%s%s", (int)head, name,
		 name + nlen - (room - 3 - head), facts);
}

/*
 * The policy, for a firing of g at ts: in order, the delay (its snapshot is
 * pending), the cooldown since the last accepted firing, the rate limit.
 * Accepting schedules the snapshot.
 */
static enum frecd_trigger_verdict decide(struct trig *g, const struct frec_rec_trigger *r)
{
	__u64 ts = r->h.ts;

	if (g->pending)
		return FRECD_TRIGGER_DELAY;
	/* ts before the last firing (another CPU's record, a little late):
	 * inside the cooldown too */
	if (g->fired_once && ts < g->last_fire_ts + g->cooldown_ns)
		return FRECD_TRIGGER_COOLDOWN;
	if (g->max_count && g->rate_n == g->max_count &&
	    ts < g->rate_ts[g->rate_head] + g->max_period_ns)
		return FRECD_TRIGGER_RATE;

	g->fired_once = true;
	g->last_fire_ts = ts;
	if (g->max_count) {
		/* rate_head: the oldest of the last max_count */
		if (g->rate_n < g->max_count) {
			g->rate_ts[(g->rate_head + g->rate_n) % g->max_count] = ts;
			g->rate_n++;
		} else {
			g->rate_ts[g->rate_head] = ts;
			g->rate_head = (g->rate_head + 1) % g->max_count;
		}
	}
	g->fired++;
	g->pending = true;
	g->deadline = ts + g->delay_ns;
	frecd_trigger__reason(g->reason, sizeof(g->reason), g->name, g->kind, r->pid, r->comm,
			      r->value);
	return FRECD_TRIGGER_ACCEPTED;
}

/* A firing that took no snapshot: counted, and handed to the recorder. */
static void suppress(struct frecd_triggers *t, struct trig *g, enum frecd_trigger_verdict v,
		     const struct frec_rec_trigger *r)
{
	switch (v) {
	case FRECD_TRIGGER_DELAY: g->supp_delay++; break;
	case FRECD_TRIGGER_COOLDOWN: g->supp_cooldown++; break;
	case FRECD_TRIGGER_RATE: g->supp_rate++; break;
	default: return;
	}
	if (t->hooks.suppressed)
		t->hooks.suppressed(t->hooks.ctx, g->id, r->pid, r->tgid, r->h.ts, r->value, 1);
}

static enum frecd_trigger_verdict fire(struct frecd_triggers *t, struct trig *g,
				       const struct frec_rec_trigger *r, bool ours)
{
	enum frecd_trigger_verdict v = decide(g, r);

	if (v == FRECD_TRIGGER_ACCEPTED) {
		if (ours && t->hooks.push)
			t->hooks.push(t->hooks.ctx, r);
	} else {
		suppress(t, g, v, r);
	}
	return v;
}

enum frecd_trigger_verdict frecd_triggers__on_record(struct frecd_triggers *t,
						     const struct frec_rec_trigger *r)
{
	struct trig *g = by_id(t, r->trigger_id);

	if (!g)
		return FRECD_TRIGGER_ACCEPTED;	/* not ours to judge: the recorder refuses it */
	if (g->kind == FREC_TRIG_ONCPU && r->h.cpu < g->noncpu && g->oncpu_fired[r->h.cpu] &&
	    r->h.ts - r->value == g->oncpu_fired[r->h.cpu]) {
		/* The switch-out of a run the tick fired for already. */
		g->oncpu_fired[r->h.cpu] = 0;
		return FRECD_TRIGGER_DUPLICATE;
	}
	return fire(t, g, r, false);
}

static void make_record(struct frec_rec_trigger *r, __u32 id, __u64 ts, __u32 cpu, __u32 tid,
			__u32 tgid, const char *comm, __u64 value)
{
	memset(r, 0, sizeof(*r));
	r->h.ts = ts;
	r->h.tid = tid;
	r->h.tgid = tgid;
	r->h.type = FREC_EV_TRIGGER;
	r->h.cpu = cpu;
	r->h.size = sizeof(*r);
	r->trigger_id = id;
	r->pid = tid;
	r->tgid = tgid;
	r->value = value;
	if (comm)
		strncpy(r->comm, comm, sizeof(r->comm) - 1);
}

static bool matches(const struct trig *g, const struct frec_oncpu *e)
{
	if (g->pid && e->tgid != g->pid)
		return false;
	return !g->comm[0] || !strncmp(g->comm, e->comm, FREC_COMM_LEN);
}

void frecd_triggers__check_oncpu(struct frecd_triggers *t, const struct frec_oncpu *cpus,
				 size_t n, __u64 now)
{
	struct frec_rec_trigger r;
	size_t i, cpu;

	for (i = 0; i < t->n; i++) {
		struct trig *g = &t->t[i];

		if (g->kind != FREC_TRIG_ONCPU)
			continue;
		if (g->noncpu < n) {
			__u64 *grown = realloc(g->oncpu_fired, n * sizeof(*grown));

			if (!grown)
				continue;	/* the programs still fire at switch-out */
			memset(grown + g->noncpu, 0, (n - g->noncpu) * sizeof(*grown));
			g->oncpu_fired = grown;
			g->noncpu = n;
		}
		for (cpu = 0; cpu < n; cpu++) {
			const struct frec_oncpu *e = &cpus[cpu];

			/* since after now: a run that began after the cut */
			if (!e->since_ts || e->since_ts >= now ||
			    now - e->since_ts <= g->threshold_ns ||
			    g->oncpu_fired[cpu] == e->since_ts || !matches(g, e))
				continue;
			/*
			 * Only an accepted firing is the tick's, once per run:
			 * the run's switch-out record is then the same firing.
			 * A suppressed one is left to that switch-out, which
			 * the programs count in their cooldown without a record
			 * (no run to drop it by) or whose record is judged
			 * here: counted at the tick too, one run would be
			 * suppressed twice. Until then each tick asks again.
			 */
			make_record(&r, g->id, now, cpu, e->pid, e->tgid, e->comm, now - e->since_ts);
			if (decide(g, &r) != FRECD_TRIGGER_ACCEPTED)
				continue;
			g->oncpu_fired[cpu] = e->since_ts;
			if (t->hooks.push)
				t->hooks.push(t->hooks.ctx, &r);
		}
	}
}

void frecd_triggers__lost(struct frecd_triggers *t, __u64 count, __u64 now)
{
	struct frec_rec_trigger r;
	size_t i;

	if (!count)
		return;
	for (i = 0; i < t->n; i++) {
		if (t->t[i].kind != FREC_TRIG_LOST)
			continue;
		/* No thread lost them: thread 0, on no CPU. */
		make_record(&r, t->t[i].id, now, FREC_REC_CPU_NONE, 0, 0, NULL, count);
		fire(t, &t->t[i], &r, true);
	}
}

static struct trig *find_manual(struct frecd_triggers *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->t[i].kind == FREC_TRIG_MANUAL && !strcmp(t->t[i].manual, name))
			return &t->t[i];
	for (i = 0; i < t->n; i++)
		if (t->t[i].kind == FREC_TRIG_MANUAL && !strcmp(t->t[i].name, name))
			return &t->t[i];
	return NULL;
}

const char *frecd_triggers__manual_names(const struct frecd_triggers *t, char *buf, size_t len)
{
	size_t i, off = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; t && i < t->n && off < len; i++) {
		if (t->t[i].kind != FREC_TRIG_MANUAL)
			continue;
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", t->t[i].manual);
	}
	return buf;
}

int frecd_triggers__manual(struct frecd_triggers *t, const char *name, __u32 pid,
			   const char *comm, __u64 now, __u32 *id, char *err, size_t errlen)
{
	struct frec_rec_trigger r;
	struct trig *g = find_manual(t, name);
	char names[256];

	if (!g) {
		frecd_triggers__manual_names(t, names, sizeof(names));
		if (names[0])
			snprintf(err, errlen, "no manual trigger '%s'; the armed ones: %s", name, names);
		else
			snprintf(err, errlen,
				 "no manual trigger '%s': none is armed; start frecd with --trigger manual:%s",
				 name, name);
		return -ENOENT;
	}
	/* on no CPU: the client asked from wherever it ran */
	make_record(&r, g->id, now, FREC_REC_CPU_NONE, pid, pid, comm, 0);
	*id = g->id;
	switch (fire(t, g, &r, true)) {
	case FRECD_TRIGGER_ACCEPTED:
	case FRECD_TRIGGER_DELAY:	/* the pending snapshot answers */
		return 0;
	case FRECD_TRIGGER_COOLDOWN:
		snprintf(err, errlen,
			 "trigger %s is in its cooldown for another %.1f s (cooldown=%.9gs); no snapshot taken",
			 g->name, (g->last_fire_ts + g->cooldown_ns - now) / 1e9, g->cooldown_ns / 1e9);
		return -EBUSY;
	default:
		snprintf(err, errlen,
			 "trigger %s took its %u snapshots of the last %s (max=%u/%s); no snapshot taken",
			 g->name, g->max_count, g->max_period_ns > 3600000000000ull ? "day" : "hour",
			 g->max_count, g->max_period_ns > 3600000000000ull ? "d" : "h");
		return -EBUSY;
	}
}

void frecd_triggers__take_state(struct frecd_triggers *t, const struct frec_trigger_state *st,
				size_t n, __u64 now)
{
	size_t i;

	for (i = 0; i < n && i < t->n; i++) {
		struct trig *g = &t->t[i];
		__u64 delta;

		if (st[i].suppressed < g->bpf_seen) {
			/* zeroed under us (a reset): start from there */
			g->bpf_seen = st[i].suppressed;
			continue;
		}
		delta = st[i].suppressed - g->bpf_seen;
		if (!delta)
			continue;
		g->bpf_seen = st[i].suppressed;
		g->supp_cooldown += delta;
		if (t->hooks.suppressed)
			t->hooks.suppressed(t->hooks.ctx, g->id, st[i].supp_tid, st[i].supp_tgid,
					    st[i].supp_first_ts ? st[i].supp_first_ts : now,
					    st[i].supp_worst, delta);
	}
}

__u64 frecd_triggers__deadline(const struct frecd_triggers *t)
{
	__u64 first = 0;
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (t->t[i].pending && (!first || t->t[i].deadline < first))
			first = t->t[i].deadline;
	return first;
}

void frecd_triggers__tick(struct frecd_triggers *t, __u64 now)
{
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		struct trig *g = &t->t[i];

		if (!g->pending || g->deadline > now)
			continue;
		g->pending = false;
		g->snapshots++;
		if (t->hooks.snapshot)
			t->hooks.snapshot(t->hooks.ctx, g->id, g->reason);
	}
}

size_t frecd_triggers__stats(const struct frecd_triggers *t, struct frecd_trigger_stats *out,
			     size_t n)
{
	size_t i;

	for (i = 0; t && i < t->n && i < n; i++) {
		const struct trig *g = &t->t[i];

		out[i] = (struct frecd_trigger_stats){
			.id = g->id,
			.kind = g->kind,
			.name = g->name,
			.spec = g->spec,
			.fired = g->fired,
			.snapshots = g->snapshots,
			.suppressed_delay = g->supp_delay,
			.suppressed_cooldown = g->supp_cooldown,
			.suppressed_rate = g->supp_rate,
			.pending = g->pending,
		};
	}
	return t ? t->n : 0;
}
