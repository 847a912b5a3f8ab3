// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec info: what a snapshot holds. The header, the time span, the
 * generations, events by type, hits per probe, firings per trigger, drops
 * per CPU and the bytes
 * each event costs in the file, and the broken switch chains (cpu_chain.h).
 * The reason the snapshot was taken (a trigger's, say) is in the header.
 * Reads every event (to count probe hits and breaks and find the exact time
 * span) but keeps nothing per event; the walk is sorted because a chain is
 * followed in time order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cpu_chain.h"
#include "json.h"
#include "lost.h"
#include "map.h"
#include "out.h"
#include "tools.h"
#include "walk.h"

struct probe_count {
	char *name;
	__u32 kind;
	__u64 hits;
};

struct trigger_count {
	__u32 id, kind;
	char *name, *spec;
	__u64 fired;		/* firings recorded one by one */
	__u64 suppressed;	/* firings the aggregates count */
};

/* A cgroup the events name, over every generation: kept sorted by id. */
struct cgroup_count {
	__u64 id;
	char *path;		/* the first name a generation gave it, or NULL */
	char *container;
	struct frec_map tids;	/* the threads seen in it */
	__u64 events;		/* events of its threads while in it */
};

struct gen_stacks {
	__u64 gen;		/* 1-based, among the intact generations */
	__u32 nstacks, nmappings;
};

struct info {
	__u64 events;
	__u64 by_type[FREC_EV__MAX];
	__u64 unknown_type;
	__u64 first_ts, last_ts;
	__u64 gen_first, gen_last;	/* span of the generations (when no events) */
	struct frec_lost drops;		/* the generations' drops, per CPU */
	struct probe_count *probes;
	size_t nprobes;
	__u64 unnamed_probe_hits;
	struct trigger_count *trigs;
	size_t ntrigs;
	__u64 unnamed_trigger_events;
	__u64 raw_bytes, block_bytes;
	__u64 chain_breaks;
	struct gen_stacks *gstacks;	/* generations with a stack table */
	size_t ngstacks;
	struct cgroup_count *cgs;	/* sorted by id */
	size_t ncgs;
	struct gen_stacks *gcgroups;	/* generations with a cgroup table (its size in nstacks) */
	size_t ngcgroups;
};

void frec_info__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec info [--json] FILE\n"
		"\n"
		"Describe a snapshot: host, kernel, boot id, CPUs, frec and format versions,\n"
		"why and when it was taken, the recorder's configuration, the time span,\n"
		"the stacks it was told to capture (frecd --stacks: offcpu, probes or none)\n"
		"and the stack tables of the generations that have one (stacks, mappings),\n"
		"generations (and damaged ones skipped), events by type, hits per probe,\n"
		"the triggers the snapshot names (id, name, kind, spec) with the firings\n"
		"recorded and those suppressed (during a trigger's delay, cooldown or past\n"
		"its rate limit), records lost per CPU (always listed, 0 when none), broken\n"
		"switch chains (a sched_switch naming another prev than the thread switched\n"
		"in before on that CPU: the kernel reported no switch out of it) and bytes\n"
		"per event.\n"
		"\n"
		"A snapshot that records cgroups also has the hierarchy (cgroups: v2, or\n"
		"v1 (CONTROLLER)), frecd's --cgroup filters, each generation's cgroup table\n"
		"size, and every cgroup its threads were in (path, id, container id in 12\n"
		"hex digits, threads, and events of its threads while in it), most events\n"
		"first. JSON: \"cgroup_hierarchy\", \"cgroup_filters\", \"cgroup_tables\",\n"
		"\"cgroups\":[{\"id\",\"path\" (null when not named),\"container\",\"threads\",\n"
		"\"events\"}].\n"
		"\n"
		"  -j, --json   one JSON object instead of text\n"
		"  -h, --help   this help\n");
	frec_usage__exit_status(f);
}

static int probe_index(struct info *in, const struct frec_probe_info *p)
{
	size_t i;
	struct probe_count *np;
	const char *name = p->name && p->name[0] ? p->name : "?";

	for (i = 0; i < in->nprobes; i++)
		if (!strcmp(in->probes[i].name, name) && in->probes[i].kind == p->kind)
			return (int)i;
	np = realloc(in->probes, (in->nprobes + 1) * sizeof(*np));
	if (!np)
		return -1;
	in->probes = np;
	np[in->nprobes].name = strdup(name);
	if (!np[in->nprobes].name)
		return -1;
	np[in->nprobes].kind = p->kind;
	np[in->nprobes].hits = 0;
	return (int)in->nprobes++;
}

static int trigger_index(struct info *in, const struct frec_trigger_info *t)
{
	const char *name = t->name ? t->name : "", *spec = t->spec ? t->spec : "";
	struct trigger_count *nt;
	size_t i;

	for (i = 0; i < in->ntrigs; i++)
		if (in->trigs[i].id == t->id && !strcmp(in->trigs[i].name, name) &&
		    !strcmp(in->trigs[i].spec, spec))
			return (int)i;
	nt = realloc(in->trigs, (in->ntrigs + 1) * sizeof(*nt));
	if (!nt)
		return -1;
	in->trigs = nt;
	nt += in->ntrigs;
	memset(nt, 0, sizeof(*nt));
	nt->id = t->id;
	nt->kind = t->kind;
	nt->name = strdup(name);
	nt->spec = strdup(spec);
	in->ntrigs++;
	return nt->name && nt->spec ? (int)in->ntrigs - 1 : -1;
}

/* This generation's trigger ids -> index + 1 into in->trigs. */
static int gen_triggers(struct frec_walk *w, struct info *in, struct frec_map *tids)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(w);

	frec_map__clear(tids);
	for (__u32 i = 0; i < gi->ntriggers; i++) {
		const struct frec_trigger_info *t = frec_gen__trigger_at(frec_walk__gen(w), i);
		uint64_t *slot;
		int k;

		if (!t || frec_map__get(tids, t->id))
			continue;	/* an id named twice: the first counts */
		k = trigger_index(in, t);
		slot = frec_map__put(tids, t->id, NULL);
		if (k < 0 || !slot)
			return -ENOMEM;
		*slot = (uint64_t)k + 1;
	}
	return 0;
}

static void count_trigger(struct info *in, struct frec_map *tids, const struct frec_event *ev)
{
	uint64_t *slot = frec_map__get(tids, ev->trigger.id);
	struct trigger_count *t;

	if (!slot) {
		in->unnamed_trigger_events++;
		return;
	}
	t = &in->trigs[*slot - 1];
	if (ev->trigger.flags & FREC_TRIGGER_SUPPRESSED)
		t->suppressed += ev->trigger.count;
	else
		t->fired++;
}

static struct cgroup_count *cgroup_find(struct info *in, __u64 id, bool add)
{
	size_t lo = 0, hi = in->ncgs;
	struct cgroup_count *c;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->cgs[mid].id == id)
			return &in->cgs[mid];
		if (in->cgs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!add)
		return NULL;
	c = realloc(in->cgs, (in->ncgs + 1) * sizeof(*c));
	if (!c)
		return NULL;
	in->cgs = c;
	memmove(&c[lo + 1], &c[lo], (in->ncgs - lo) * sizeof(*c));
	in->ncgs++;
	c += lo;
	memset(c, 0, sizeof(*c));
	c->id = id;
	frec_map__init(&c->tids);
	return c;
}

/* Thread tid is in cgroup id (not 0): count it there, and take the name
 * the generation gives the cgroup if none came before. */
static int cgroup_thread(struct frec_walk *w, struct info *in, __u64 id, __u32 tid)
{
	const struct frec_cgroup_info *ci;
	struct cgroup_count *c = cgroup_find(in, id, true);

	if (!c || (tid && !frec_map__put(&c->tids, tid, NULL)))
		return -ENOMEM;
	if (c->path || !(ci = frec_walk__cgroup_info(w, id)) || !ci->path || !ci->path[0])
		return 0;
	c->path = strdup(ci->path);
	c->container = strdup(ci->container ? ci->container : "");
	return c->path && c->container ? 0 : -ENOMEM;
}

/* The generation's cgroups: its named ones, and where its threads start. */
static int gen_cgroups(struct frec_walk *w, struct info *in)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(w);
	size_t i, n = frec_walk__nthreads(w);
	int rc;

	if (gi->ncgroups) {
		struct gen_stacks *g = realloc(in->gcgroups, (in->ngcgroups + 1) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		in->gcgroups = g;
		g[in->ngcgroups].gen = frec_walk__gens(w);
		g[in->ngcgroups].nstacks = gi->ncgroups;
		g[in->ngcgroups].nmappings = 0;
		in->ngcgroups++;
	}
	for (i = 0; i < gi->ncgroups; i++) {
		const struct frec_cgroup_info *c = frec_gen__cgroup_at(frec_walk__gen(w), (__u32)i);

		if (c && c->id && (rc = cgroup_thread(w, in, c->id, 0)))
			return rc;
	}
	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_walk__thread_at(w, i);

		if (t && t->tid && t->cgroup && (rc = cgroup_thread(w, in, t->cgroup, t->tid)))
			return rc;
	}
	return 0;
}

/* An event counts for the cgroup its thread is in; a move for the new one. */
static int cgroup_event(struct frec_walk *w, struct info *in, const struct frec_event *ev)
{
	struct cgroup_count *c;
	__u64 id;

	if (ev->type == FREC_EV_CGROUP) {
		int rc;

		if (!ev->tid || !ev->cgroup.id)
			return 0;
		if ((rc = cgroup_thread(w, in, ev->cgroup.id, ev->tid)))
			return rc;
		id = ev->cgroup.id;
	} else {
		id = frec_walk__cgroup_id(w, ev->tid);
	}
	if (id && (c = cgroup_find(in, id, false)))
		c->events++;
	return 0;
}

static int add_drops(struct info *in, const struct frec_gen_info *gi)
{
	__u32 i, n = gi->ncpus > FREC_MAX_CPUS ? FREC_MAX_CPUS : gi->ncpus;

	/* every CPU of the generation is listed, 0 when it dropped nothing */
	for (i = 0; i < n; i++)
		if (frec_lost__add(&in->drops, i, gi->drops ? gi->drops[i] : 0))
			return -ENOMEM;
	return 0;
}

static int collect(struct frec_walk *w, struct info *in)
{
	struct frec_map ids;	/* probe id -> index + 1 into in->probes, per generation */
	struct frec_map tids;	/* the same for trigger ids and in->trigs */
	struct frec_chain *chain = frec_chain__new();
	int rc = 0;

	if (!chain)
		return -ENOMEM;
	frec_map__init(&ids);
	frec_map__init(&tids);
	in->first_ts = in->gen_first = UINT64_MAX;
	while (frec_walk__next_gen(w) > 0) {
		const struct frec_gen_info *gi = frec_walk__gen_info(w);
		const struct frec_event *ev;
		__u32 i;

		if (gi->start_ts < in->gen_first)
			in->gen_first = gi->start_ts;
		if (gi->end_ts > in->gen_last)
			in->gen_last = gi->end_ts;
		in->raw_bytes += gi->raw_bytes;
		in->block_bytes += gi->file_bytes;
		if ((rc = add_drops(in, gi)))
			break;
		if (gi->nstacks || gi->nmappings) {
			struct gen_stacks *g = realloc(in->gstacks,
						       (in->ngstacks + 1) * sizeof(*g));

			if (!g) {
				rc = -ENOMEM;
				break;
			}
			in->gstacks = g;
			g[in->ngstacks].gen = frec_walk__gens(w);
			g[in->ngstacks].nstacks = gi->nstacks;
			g[in->ngstacks].nmappings = gi->nmappings;
			in->ngstacks++;
		}
		frec_map__clear(&ids);
		for (i = 0; i < gi->nprobes; i++) {
			const struct frec_probe_info *p = frec_gen__probe_at(frec_walk__gen(w), i);
			uint64_t *slot;
			int k;

			if (!p)
				continue;
			k = probe_index(in, p);
			slot = frec_map__put(&ids, p->id, NULL);
			if (k < 0 || !slot) {
				rc = -ENOMEM;
				goto out;
			}
			*slot = (uint64_t)k + 1;
		}
		if ((rc = gen_triggers(w, in, &tids)) || (rc = gen_cgroups(w, in)))
			goto out;
		frec_chain__gen(chain, w);
		while ((ev = frec_walk__next_event(w))) {
			uint64_t *slot;

			frec_chain__event(chain, ev, NULL);
			in->events++;
			if (ev->type < FREC_EV__MAX)
				in->by_type[ev->type]++;
			else
				in->unknown_type++;
			if (ev->ts < in->first_ts)
				in->first_ts = ev->ts;
			if (ev->ts > in->last_ts)
				in->last_ts = ev->ts;
			if (ev->type == FREC_EV_TRIGGER)
				count_trigger(in, &tids, ev);
			if (in->ncgs && (rc = cgroup_event(w, in, ev)))
				goto out;
			if (ev->type != FREC_EV_UPROBE && ev->type != FREC_EV_URETPROBE &&
			    ev->type != FREC_EV_USDT)
				continue;
			slot = frec_map__get(&ids, ev->probe.probe_id);
			if (slot)
				in->probes[*slot - 1].hits++;
			else
				in->unnamed_probe_hits++;
		}
	}
	if (!rc)
		rc = frec_chain__error(chain);
out:
	in->chain_breaks = frec_chain__breaks(chain);
	frec_chain__free(chain);
	frec_map__fini(&ids);
	frec_map__fini(&tids);
	return rc;
}

/* Most events first, then by id: the order of the cgroups table. */
static int cgroup_cmp(const void *a, const void *b)
{
	const struct cgroup_count *x = *(const struct cgroup_count *const *)a;
	const struct cgroup_count *y = *(const struct cgroup_count *const *)b;

	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The cgroups by events, as pointers into in->cgs; NULL when there are
 * none (or no memory, then the table is left out). */
static const struct cgroup_count **cgroups_sorted(const struct info *in)
{
	const struct cgroup_count **v;
	size_t i;

	if (!in->ncgs || !(v = malloc(in->ncgs * sizeof(*v))))
		return NULL;
	for (i = 0; i < in->ncgs; i++)
		v[i] = &in->cgs[i];
	qsort(v, in->ncgs, sizeof(*v), cgroup_cmp);
	return v;
}

/* The header's cgroup lines, in files that record cgroups: older files'
 * output stays as it was. */
static bool has_cgroups(const struct frec_header *h)
{
	return h->config.flags & FREC_CFG_CGROUPS;
}

/* "v2", "v1 (pids)", or "not recorded" */
static void hierarchy_text(struct frec_out *o, const struct frec_header *h)
{
	const char *hy = h->config.cgroup_hierarchy;

	if (!hy[0]) {
		frec_out__str(o, "not recorded");
	} else if (!strcmp(hy, "v2")) {
		frec_out__str(o, "v2");
	} else {
		frec_out__str(o, "v1 (");
		frec_text__str(o, hy, sizeof(h->config.cgroup_hierarchy));
		frec_out__char(o, ')');
	}
}

/* The header's lines: the hierarchy, the --cgroup filters, and the size of
 * each generation's cgroup table. */
static void print_cgroup_header(struct frec_out *o, const struct frec_header *h,
				const struct info *in)
{
	__u32 i, n = h->config.ncgroups < 8 ? h->config.ncgroups : 8;

	frec_out__str(o, "cgroups:      ");
	hierarchy_text(o, h);
	frec_out__char(o, '\n');
	for (i = 0; i < in->ngcgroups; i++)
		frec_out__printf(o, "  generation %llu: %u cgroups\n",
				 (unsigned long long)in->gcgroups[i].gen, in->gcgroups[i].nstacks);
	if (!h->config.ncgroups)
		return;
	frec_out__str(o, "cgroup filter:");
	for (i = 0; i < n; i++) {
		frec_out__char(o, ' ');
		frec_text__str(o, h->config.cgroups[i], sizeof(h->config.cgroups[i]));
	}
	if (h->config.ncgroups > n)
		frec_out__printf(o, " ... (%u)", h->config.ncgroups);
	frec_out__char(o, '\n');
}

/* The cgroups the events name, most events first. */
static void print_cgroup_table(struct frec_out *o, const struct info *in)
{
	const struct cgroup_count **v = cgroups_sorted(in);
	size_t i;

	frec_out__printf(o, "cgroups seen: %zu\n", in->ncgs);
	for (i = 0; v && i < in->ncgs; i++) {
		const struct cgroup_count *c = v[i];

		frec_out__str(o, "  ");
		if (c->path)
			frec_text__str(o, c->path, 4096);
		else
			frec_out__char(o, '?');
		frec_out__printf(o, " (id %llu", (unsigned long long)c->id);
		if (c->container && c->container[0]) {
			frec_out__str(o, ", container ");
			frec_text__str(o, c->container, 12);
		}
		frec_out__printf(o, "): %zu threads, %llu events\n", c->tids.len,
				 (unsigned long long)c->events);
	}
	free(v);
}

static void print_cgroups_json(struct frec_out *o, const struct frec_header *h,
			       const struct info *in)
{
	const struct cgroup_count **v = cgroups_sorted(in);
	__u32 i, n = h->config.ncgroups < 8 ? h->config.ncgroups : 8;

	frec_out__str(o, ",\"cgroup_hierarchy\":");
	frec_json__str(o, h->config.cgroup_hierarchy, sizeof(h->config.cgroup_hierarchy));
	frec_out__str(o, ",\"cgroup_filters\":[");
	for (i = 0; i < n; i++) {
		if (i)
			frec_out__char(o, ',');
		frec_json__str(o, h->config.cgroups[i], sizeof(h->config.cgroups[i]));
	}
	frec_out__printf(o, "],\"ncgroup_filters\":%u,\"cgroup_tables\":[", h->config.ncgroups);
	for (i = 0; i < in->ngcgroups; i++)
		frec_out__printf(o, "%s{\"generation\":%llu,\"ncgroups\":%u}", i ? "," : "",
				 (unsigned long long)in->gcgroups[i].gen, in->gcgroups[i].nstacks);
	frec_out__str(o, "],\"cgroups\":[");
	for (i = 0; v && i < in->ncgs; i++) {
		const struct cgroup_count *c = v[i];

		frec_out__printf(o, "%s{\"id\":%llu,\"path\":", i ? "," : "",
				 (unsigned long long)c->id);
		if (c->path)
			frec_json__str(o, c->path, 4096);
		else
			frec_out__str(o, "null");
		frec_out__str(o, ",\"container\":");
		frec_json__str(o, c->container ? c->container : "", 256);
		frec_out__printf(o, ",\"threads\":%zu,\"events\":%llu}", c->tids.len,
				 (unsigned long long)c->events);
	}
	frec_out__char(o, ']');
	free(v);
}

static void fmt_utc(__u64 ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%09llu UTC", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(ns % 1000000000ull));
}

static void fmt_bytes(__u64 b, char *buf, size_t len)
{
	if (b && !(b % (1024 * 1024)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b && !(b % 1024))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}

static void span(const struct info *in, __u64 *first, __u64 *last)
{
	if (in->events) {
		*first = in->first_ts;
		*last = in->last_ts;
	} else if (in->gen_first != UINT64_MAX) {
		*first = in->gen_first;
		*last = in->gen_last;
	} else {
		*first = *last = 0;
	}
}

/* The header's stacks flags as frecd's --stacks takes them. */
static const char *stacks_flags(__u32 flags)
{
	switch (flags & (FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES)) {
	case FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES:
		return "offcpu,probes";
	case FREC_CFG_STACKS_OFFCPU:
		return "offcpu";
	case FREC_CFG_STACKS_PROBES:
		return "probes";
	default:
		return "none";
	}
}

static const char *type_name(__u32 type)
{
	return type == FREC_EV_CGROUP ? "cgroup" : frec_type__name(type);
}

/* Events by type lists every type, the cgroup moves only in files that
 * record cgroups (or have some), as older files' output has no such line. */
static bool type_listed(const struct frec_header *h, const struct info *in, __u32 type)
{
	if (type == FREC_EV_CGROUP)
		return has_cgroups(h) || in->by_type[type];
	return frec_type__name(type);
}

static void print_text(struct frec_out *o, const char *path, __u64 fsize,
		       const struct frec_header *h, const struct info *in, struct frec_walk *w)
{
	char buf[96], b2[32], b3[32];
	__u64 first, last;
	__u32 i, ncpus;

	frec_out__str(o, "file:         ");
	frec_text__str(o, path, 4096);
	frec_out__printf(o, " (%llu bytes)\n", (unsigned long long)fsize);
	frec_out__printf(o, "format:       %u\n", h->version);
	frec_out__str(o, "frec:         ");
	frec_text__str(o, h->frec_version, sizeof(h->frec_version));
	frec_out__str(o, "\nhost:         ");
	frec_text__str(o, h->hostname, sizeof(h->hostname));
	frec_out__str(o, "\nkernel:       ");
	frec_text__str(o, h->kernel_release, sizeof(h->kernel_release));
	frec_out__str(o, "\nboot id:      ");
	frec_text__str(o, h->boot_id, sizeof(h->boot_id));
	frec_out__printf(o, "\ncpus:         %u\n", h->ncpus);
	fmt_utc(h->created_realtime_ns, buf, sizeof(buf));
	frec_out__printf(o, "created:      %s\n", buf);
	frec_out__str(o, "reason:       ");
	frec_json__str(o, h->reason, sizeof(h->reason));
	fmt_bytes(h->config.max_bytes, b2, sizeof(b2));
	fmt_bytes(h->config.ring_bytes, b3, sizeof(b3));
	frec_out__str(o, "\nconfig:       window ");
	frec_out__secs(o, h->config.min_age_ns);
	frec_out__printf(o, " s, max-size %s, period ", b2);
	frec_out__secs(o, h->config.period_ns);
	frec_out__printf(o, " s, ring %s, programs %s%s, pids ", b3,
			 h->config.flags & FREC_CFG_RAW_TP ? "raw_tp" : "tp_btf",
			 h->config.flags & FREC_CFG_WAKEUP ? ", sched_wakeup on" : "");
	if (!h->config.npids) {
		frec_out__str(o, "all");
	} else {
		for (i = 0; i < h->config.npids && i < 16; i++)
			frec_out__printf(o, "%s%u", i ? "," : "", h->config.pids[i]);
		if (h->config.npids > 16)
			frec_out__printf(o, ",... (%u)", h->config.npids);
	}
	frec_out__char(o, '\n');
	frec_out__printf(o, "stacks:       %s\n", stacks_flags(h->config.flags));
	for (i = 0; i < in->ngstacks; i++)
		frec_out__printf(o, "  generation %llu: %u stacks, %u mappings\n",
				 (unsigned long long)in->gstacks[i].gen, in->gstacks[i].nstacks,
				 in->gstacks[i].nmappings);
	if (has_cgroups(h) || in->ncgs)
		print_cgroup_header(o, h, in);

	span(in, &first, &last);
	frec_out__str(o, "time span:    ");
	frec_out__secs(o, first);
	frec_out__str(o, " .. ");
	frec_out__secs(o, last);
	frec_out__str(o, " (");
	frec_out__secs(o, last - first);
	frec_out__str(o, " s)\n");
	if (h->boottime_to_realtime_ns && in->events) {
		fmt_utc(first + (__u64)h->boottime_to_realtime_ns, buf, sizeof(buf));
		frec_out__printf(o, "wall clock:   %s .. ", buf);
		fmt_utc(last + (__u64)h->boottime_to_realtime_ns, buf, sizeof(buf));
		frec_out__printf(o, "%s\n", buf);
	}
	frec_out__printf(o, "generations:  %llu (%llu damaged, skipped)\n",
			 (unsigned long long)frec_walk__gens(w),
			 (unsigned long long)frec_walk__damaged(w));
	frec_out__printf(o, "events:       %llu\n", (unsigned long long)in->events);
	for (i = 1; i < FREC_EV__MAX; i++)
		if (type_listed(h, in, i))
			frec_out__printf(o, "  %-20s %llu\n", type_name(i),
					 (unsigned long long)in->by_type[i]);
	if (in->unknown_type)
		frec_out__printf(o, "  %-20s %llu\n", "unknown",
				 (unsigned long long)in->unknown_type);
	frec_out__printf(o, "probes:       %zu\n", in->nprobes);
	for (i = 0; i < in->nprobes; i++) {
		frec_out__str(o, "  ");
		frec_probe__label(o, in->probes[i].name, in->probes[i].kind);
		frec_out__printf(o, ": %llu\n", (unsigned long long)in->probes[i].hits);
	}
	if (in->unnamed_probe_hits)
		frec_out__printf(o, "  (unnamed probe ids): %llu\n",
				 (unsigned long long)in->unnamed_probe_hits);
	if (has_cgroups(h) || in->ncgs)
		print_cgroup_table(o, in);
	frec_out__printf(o, "triggers:     %zu\n", in->ntrigs);
	for (i = 0; i < in->ntrigs; i++) {
		const struct trigger_count *t = &in->trigs[i];

		frec_out__printf(o, "  %u ", t->id);
		frec_text__str(o, t->name, 4096);
		frec_out__printf(o, " (%s", frec_trigger__kind_name(t->kind));
		if (strcmp(t->name, t->spec)) {
			frec_out__str(o, ": ");
			frec_text__str(o, t->spec, 4096);
		}
		frec_out__printf(o, "): %llu fired, %llu suppressed\n",
				 (unsigned long long)t->fired, (unsigned long long)t->suppressed);
	}
	if (in->unnamed_trigger_events)
		frec_out__printf(o, "  (unnamed trigger ids): %llu\n",
				 (unsigned long long)in->unnamed_trigger_events);
	ncpus = frec_lost__ncpus(&in->drops, h);
	frec_out__printf(o, "drops:        %llu\n", (unsigned long long)in->drops.total);
	for (i = 0; i < ncpus; i++)
		frec_out__printf(o, "  cpu %-16u %llu\n", i,
				 (unsigned long long)frec_lost__cpu(&in->drops, i));
	frec_out__printf(o, "chain breaks: %llu\n", (unsigned long long)in->chain_breaks);
	frec_out__printf(o, "bytes/event:  %.2f (%llu bytes in generation blocks, %llu uncompressed)\n",
			 in->events ? (double)fsize / (double)in->events : 0.0,
			 (unsigned long long)in->block_bytes, (unsigned long long)in->raw_bytes);
}

static void json_u64(struct frec_out *o, const char *key, __u64 v, bool comma)
{
	if (comma)
		frec_out__char(o, ',');
	frec_json__key(o, key);
	frec_out__u64(o, v);
}

static void json_str(struct frec_out *o, const char *key, const char *s, size_t max)
{
	frec_out__char(o, ',');
	frec_json__key(o, key);
	frec_json__str(o, s, max);
}

static void print_json(struct frec_out *o, const char *path, __u64 fsize,
		       const struct frec_header *h, const struct info *in, struct frec_walk *w)
{
	char buf[96];
	__u64 first, last;
	__u32 i, ncpus;

	frec_out__char(o, '{');
	frec_json__key(o, "file");
	frec_json__str(o, path, 4096);
	json_u64(o, "size", fsize, true);
	json_u64(o, "format_version", h->version, true);
	json_str(o, "frec_version", h->frec_version, sizeof(h->frec_version));
	json_str(o, "hostname", h->hostname, sizeof(h->hostname));
	json_str(o, "kernel", h->kernel_release, sizeof(h->kernel_release));
	json_str(o, "boot_id", h->boot_id, sizeof(h->boot_id));
	json_u64(o, "ncpus", h->ncpus, true);
	json_u64(o, "created_ns", h->created_realtime_ns, true);
	fmt_utc(h->created_realtime_ns, buf, sizeof(buf));
	json_str(o, "created", buf, sizeof(buf));
	frec_out__char(o, ',');
	frec_json__key(o, "boottime_to_realtime_ns");
	frec_out__s64(o, h->boottime_to_realtime_ns);
	json_str(o, "reason", h->reason, sizeof(h->reason));
	frec_out__str(o, ",\"config\":{");
	json_u64(o, "window_ns", h->config.min_age_ns, false);
	json_u64(o, "max_bytes", h->config.max_bytes, true);
	json_u64(o, "period_ns", h->config.period_ns, true);
	json_u64(o, "ring_bytes", h->config.ring_bytes, true);
	json_u64(o, "flags", h->config.flags, true);
	frec_out__str(o, ",\"pids\":[");
	for (i = 0; i < h->config.npids && i < 16; i++) {
		if (i)
			frec_out__char(o, ',');
		frec_out__u64(o, h->config.pids[i]);
	}
	frec_out__str(o, "]");
	json_u64(o, "npids", h->config.npids, true);
	json_str(o, "stacks", stacks_flags(h->config.flags), 16);
	frec_out__char(o, '}');
	frec_out__str(o, ",\"stack_tables\":[");
	for (i = 0; i < in->ngstacks; i++)
		frec_out__printf(o, "%s{\"generation\":%llu,\"nstacks\":%u,\"nmappings\":%u}",
				 i ? "," : "", (unsigned long long)in->gstacks[i].gen,
				 in->gstacks[i].nstacks, in->gstacks[i].nmappings);
	frec_out__char(o, ']');

	span(in, &first, &last);
	json_u64(o, "first_ts", first, true);
	json_u64(o, "last_ts", last, true);
	json_u64(o, "duration_ns", last - first, true);
	/* Where the newest generation ends: when frecd cut the recording,
	 * often after the last event (an idle machine records nothing). */
	json_u64(o, "end_ts", in->gen_first != UINT64_MAX ? in->gen_last : 0, true);
	json_u64(o, "generations", frec_walk__gens(w), true);
	json_u64(o, "damaged", frec_walk__damaged(w), true);
	json_u64(o, "events", in->events, true);
	frec_out__str(o, ",\"events_by_type\":{");
	for (i = 1; i < FREC_EV__MAX; i++)
		if (type_listed(h, in, i))
			json_u64(o, type_name(i), in->by_type[i], i > 1);
	frec_out__str(o, "},\"probes\":[");
	for (i = 0; i < in->nprobes; i++) {
		frec_out__str(o, i ? ",{" : "{");
		frec_json__key(o, "name");
		frec_json__str(o, in->probes[i].name, 4096);
		frec_out__str(o, ",\"kind\":\"");
		frec_out__str(o, frec_probe__kind_name(in->probes[i].kind));
		frec_out__char(o, '"');
		json_u64(o, "hits", in->probes[i].hits, true);
		frec_out__char(o, '}');
	}
	frec_out__char(o, ']');
	/* after the top-level "events": the table's "events" come later */
	if (has_cgroups(h) || in->ncgs)
		print_cgroups_json(o, h, in);
	frec_out__str(o, ",\"triggers\":[");
	for (i = 0; i < in->ntrigs; i++) {
		const struct trigger_count *t = &in->trigs[i];

		frec_out__str(o, i ? ",{" : "{");
		json_u64(o, "id", t->id, false);
		json_str(o, "name", t->name, 4096);
		frec_out__str(o, ",\"kind\":\"");
		frec_out__str(o, frec_trigger__kind_name(t->kind));
		frec_out__char(o, '"');
		json_str(o, "spec", t->spec, 4096);
		json_u64(o, "fired", t->fired, true);
		json_u64(o, "suppressed", t->suppressed, true);
		frec_out__char(o, '}');
	}
	frec_out__char(o, ']');
	json_u64(o, "unnamed_trigger_events", in->unnamed_trigger_events, true);
	ncpus = frec_lost__ncpus(&in->drops, h);
	json_u64(o, "drops", in->drops.total, true);
	frec_out__str(o, ",\"drops_by_cpu\":[");
	for (i = 0; i < ncpus; i++) {
		if (i)
			frec_out__char(o, ',');
		frec_out__u64(o, frec_lost__cpu(&in->drops, i));
	}
	frec_out__char(o, ']');
	json_u64(o, "chain_breaks", in->chain_breaks, true);
	frec_out__printf(o, ",\"bytes_per_event\":%.3f",
			 in->events ? (double)fsize / (double)in->events : 0.0);
	json_u64(o, "block_bytes", in->block_bytes, true);
	json_u64(o, "raw_bytes", in->raw_bytes, true);
	frec_out__str(o, "}\n");
}

int frec_info__run(const char *path, const struct frec_info_opts *opts, FILE *out, FILE *err)
{
	struct frec_walk_opts wo = { .sorted = true, .stack_events = true };
	struct info in;
	struct frec_walk *w;
	struct frec_out *o;
	struct stat st;
	int status, rc;
	size_t i;

	memset(&in, 0, sizeof(in));
	frec_lost__init(&in.drops);
	w = frec_walk__open(path, &wo, err, &status);
	if (!w)
		return status;
	rc = collect(w, &in);
	if (rc) {
		fprintf(err, "frec: %s: %s\n", path, strerror(-rc));
		frec_walk__fail(w);
	}
	o = frec_out__new(out, false);
	if (!o) {
		fprintf(err, "frec: %s\n", strerror(errno));
		frec_walk__fail(w);
	} else {
		if (stat(path, &st))
			st.st_size = 0;
		if (opts && opts->json)
			print_json(o, path, (__u64)st.st_size, frec_walk__header(w), &in, w);
		else
			print_text(o, path, (__u64)st.st_size, frec_walk__header(w), &in, w);
		rc = frec_out__close(o, NULL);
		if (rc) {
			fprintf(err, "frec: writing the output: %s\n", strerror(-rc));
			frec_walk__fail(w);
		}
	}
	for (i = 0; i < in.nprobes; i++)
		free(in.probes[i].name);
	free(in.probes);
	for (i = 0; i < in.ntrigs; i++) {
		free(in.trigs[i].name);
		free(in.trigs[i].spec);
	}
	free(in.trigs);
	free(in.gstacks);
	for (i = 0; i < in.ncgs; i++) {
		free(in.cgs[i].path);
		free(in.cgs[i].container);
		frec_map__fini(&in.cgs[i].tids);
	}
	free(in.cgs);
	free(in.gcgroups);
	frec_lost__fini(&in.drops);
	return frec_walk__close(w);
}

int cmd_info(int argc, char **argv)
{
	struct frec_info_opts o = { 0 };
	const char *file;
	int rc;

	rc = frec_opt__parse_json_file(argc, argv, "info", frec_info__usage, &o.json, &file);
	if (rc >= 0)
		return rc;
	return frec_info__run(file, &o, stdout, stderr);
}
