// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report --by cgroup|container: per cgroup (or per container, with its
 * runtime; the threads in no container form one row, "(host)"), the
 * threads, the time on a CPU, the switches out and the run-queue latency.
 * And --cgroup PATH, which narrows every section of the report to the
 * threads in PATH or below it (frec_report__in_cgroup()).
 *
 * A run and the wait that ends at its switch-in go to the cgroup the
 * thread was in at that switch-in: the recorder learns of a move there and
 * places its cgroup event before that switch, so the walker already has the
 * new cgroup. The on-CPU time follows cpu_time's rules (cpu_state.h): a
 * CPU's time counts only while known, a broken chain ends the run at its
 * thread's last event seen; the waits follow runqlat's (dropped when who
 * runs where became unknown). A thread whose cgroup is not known (a file
 * without cgroups, a thread not placed) counts in a row of its own, "?".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <frec/cgroup.h>
#include "analysis.h"
#include "hist.h"
#include "json.h"
#include "map.h"
#include "table.h"
#include "walk.h"

struct group {
	char *name;		/* the path or container id; NULL: not known */
	bool host;		/* --by container: the threads in no container */
	__u64 cgroup_id;	/* the first cgroup id of the group, 0 when not known */
	const char *runtime;	/* a static string, or NULL */
	struct frec_map tids;	/* the threads counted in it */
	__u64 oncpu_ns, switches;
	struct frec_hist runq;
};

/* A cgroup id and its group. */
struct id_group {
	__u64 id;
	size_t group;
};

/* The group of the thread a CPU runs, as of its switch-in. */
struct cpu_run {
	__u32 tid;
	__u32 group1;		/* index + 1, 0 none */
};

struct cgroups {
	bool container;		/* --by container */
	struct group *groups;
	size_t ngroups;
	struct id_group *ids;	/* sorted by id */
	size_t nids;
	struct cpu_run *runs;	/* by cpu, up to FREC_MAX_CPUS */
	size_t nruns;
	struct frec_map pending;	/* tid -> ts of its first wakeup not yet served */
	size_t *order;		/* after finish: groups with threads, most on-CPU time first */
	size_t nrows;
	int err;
};

/* ---- --cgroup -------------------------------------------------------- */

/* path is prefix or under it, at a component boundary ("/a" holds "/a"
 * and "/a/b", not "/ab"; "/" holds every path). */
static bool path_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (!strcmp(prefix, "/"))
		return path[0] == '/';
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

bool frec_report__in_cgroup(const struct frec_report_ctx *ctx, __u32 tid)
{
	const struct frec_cgroup_info *c = frec_walk__cgroup(ctx->walk, tid);

	return c && c->path && path_under(c->path, ctx->opts->cgroup);
}

/* ---- groups ---------------------------------------------------------- */

static void *cgroups_new(void)
{
	struct cgroups *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	frec_map__init(&a->pending);
	return a;
}

static void cgroups_free(void *p)
{
	struct cgroups *a = p;

	if (!a)
		return;
	for (size_t i = 0; i < a->ngroups; i++) {
		free(a->groups[i].name);
		frec_map__fini(&a->groups[i].tids);
		frec_hist__fini(&a->groups[i].runq);
	}
	free(a->groups);
	free(a->ids);
	free(a->runs);
	free(a->order);
	frec_map__fini(&a->pending);
	free(a);
}

/* The group a cgroup of the current generation goes to, created on first
 * sight: by its path (or id, when unnamed), or by the container its path
 * names. */
static struct group *new_group(struct cgroups *a, __u64 id, const struct frec_cgroup_info *ci)
{
	const char *path = ci && ci->path && ci->path[0] ? ci->path : NULL;
	const char *name = path;
	bool host = false;
	struct group *g;
	size_t i;

	if (a->container) {
		name = ci && ci->container && ci->container[0] ? ci->container : NULL;
		host = path && !name;
	}
	for (i = 0; i < a->ngroups; i++) {
		g = &a->groups[i];
		if (g->host != host || !g->name != !name)
			continue;
		/* --by cgroup: an unnamed id is a row of its own, unless 0 */
		if (name ? !strcmp(g->name, name) : a->container || g->cgroup_id == id)
			return g;
	}
	g = realloc(a->groups, (a->ngroups + 1) * sizeof(*g));
	if (!g)
		return NULL;
	a->groups = g;
	g += a->ngroups;
	memset(g, 0, sizeof(*g));
	if (name && !(g->name = strdup(name)))
		return NULL;
	g->host = host;
	g->cgroup_id = id;
	g->runtime = path ? frec_cgroup__runtime(path) : NULL;
	frec_map__init(&g->tids);
	frec_hist__init(&g->runq);
	a->ngroups++;
	return g;
}

/* The group of the id at a->ids[i]. One the namer could not name when it
 * was first seen (frecd names a new cgroup off the drain path, so a
 * generation may close first) goes, once a generation names it, to its
 * named group from then on: the time before stays on its "(id N)" row. */
static int renamed(struct cgroups *a, const struct frec_report_ctx *ctx, size_t i)
{
	const struct frec_cgroup_info *ci;
	const struct group *og = &a->groups[a->ids[i].group];
	struct group *g;

	if (og->name || og->host)
		return (int)a->ids[i].group;
	ci = frec_walk__cgroup_info(ctx->walk, a->ids[i].id);
	if (!ci || !ci->path || !ci->path[0])
		return (int)a->ids[i].group;
	g = new_group(a, a->ids[i].id, ci);
	if (!g)
		return a->err = -ENOMEM;
	a->ids[i].group = (size_t)(g - a->groups);
	return (int)a->ids[i].group;
}

/* The group index of cgroup id (0: not known), found or added. */
static int group_of_id(struct cgroups *a, const struct frec_report_ctx *ctx, __u64 id)
{
	size_t lo = 0, hi = a->nids;
	struct id_group *ig;
	struct group *g;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->ids[mid].id == id)
			return renamed(a, ctx, mid);
		if (a->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the first generation that names an id gives its group: ids are
	 * not reused while a snapshot's window lasts */
	g = new_group(a, id, frec_walk__cgroup_info(ctx->walk, id));
	ig = g ? realloc(a->ids, (a->nids + 1) * sizeof(*ig)) : NULL;
	if (!ig)
		return a->err = -ENOMEM;
	a->ids = ig;
	memmove(&ig[lo + 1], &ig[lo], (a->nids - lo) * sizeof(*ig));
	ig[lo].id = id;
	ig[lo].group = (size_t)(g - a->groups);
	a->nids++;
	return (int)ig[lo].group;
}

/* The group of tid's cgroup as of the current event, with tid counted in
 * it; NULL on ENOMEM. */
static struct group *group_of(struct cgroups *a, const struct frec_report_ctx *ctx, __u32 tid,
			      int gi)
{
	struct group *g;

	if (gi < 0)
		gi = group_of_id(a, ctx, frec_walk__cgroup_id(ctx->walk, tid));
	if (gi < 0)
		return NULL;
	g = &a->groups[gi];
	if (!frec_map__put(&g->tids, tid, NULL)) {
		a->err = -ENOMEM;
		return NULL;
	}
	return g;
}

static struct cpu_run *run_of(struct cgroups *a, __u32 cpu)
{
	if (cpu >= FREC_MAX_CPUS)
		return NULL;
	if (cpu >= a->nruns) {
		size_t n = cpu + 1 > 2 * a->nruns ? cpu + 1 : 2 * a->nruns;
		struct cpu_run *r = realloc(a->runs, n * sizeof(*r));

		if (!r) {
			a->err = -ENOMEM;
			return NULL;
		}
		memset(r + a->nruns, 0, (n - a->nruns) * sizeof(*r));
		a->runs = r;
		a->nruns = n;
	}
	return &a->runs[cpu];
}

/* ---- feeding --------------------------------------------------------- */

/* tid ran on cpu from from to to: to the group it was in at its switch-in. */
static void add_oncpu(struct cgroups *a, const struct frec_report_ctx *ctx, __u32 cpu, __u32 tid,
		      __u64 from, __u64 to)
{
	struct cpu_run *r = run_of(a, cpu);
	struct group *g;

	if (!tid)
		return;		/* the idle task */
	if (from < ctx->lo)
		from = ctx->lo;
	if (to > ctx->hi)
		to = ctx->hi;
	if (to <= from || !frec_report__selected(ctx, tid, frec_walk__tgid(ctx->walk, tid)))
		return;
	g = group_of(a, ctx, tid, r && r->tid == tid && r->group1 ? (int)r->group1 - 1 : -1);
	if (g)
		g->oncpu_ns += to - from;
}

static void end_run(struct cgroups *a, const struct frec_report_ctx *ctx, __u32 cpu, __u64 ts)
{
	const struct frec_cpu *c = frec_cpu_state__cpu(ctx->cpus, cpu);

	if (c && c->valid && c->tid_known)
		add_oncpu(a, ctx, cpu, c->tid, c->since, ts);
}

static void end_all_runs(struct cgroups *a, const struct frec_report_ctx *ctx, __u64 ts)
{
	for (__u32 i = 0; i < frec_cpu_state__ncpus(ctx->cpus); i++)
		end_run(a, ctx, i, ts);
}

static void on_switch(struct cgroups *a, const struct frec_report_ctx *ctx,
		      const struct frec_event *ev)
{
	const struct frec_cpu *c = frec_cpu_state__cpu(ctx->cpus, ev->cpu);
	__u32 prev = ev->sw.prev_pid, next = ev->sw.next_pid;
	struct cpu_run *r;
	struct group *g;
	uint64_t *wake;
	int gi;

	if (ctx->chain == FREC_CHAIN_BREAK) {
		if (frec_cpu_state__break_ends_run(ctx->cpus, ev, &ctx->run))
			add_oncpu(a, ctx, ev->cpu, ctx->run.tid, c->since, ctx->run.last_ts);
	} else if (c && c->valid) {
		add_oncpu(a, ctx, ev->cpu, prev, ev->ts >= c->since ? c->since : ev->ts, ev->ts);
	}
	if (prev && frec_report__in_range(ctx, ev->ts) &&
	    frec_report__selected(ctx, prev, frec_walk__tgid(ctx->walk, prev)) &&
	    (g = group_of(a, ctx, prev, -1)))
		g->switches++;

	/* the run beginning now, and the wait it ends, are next's cgroup's */
	if (prev)
		frec_map__del(&a->pending, prev);
	r = run_of(a, ev->cpu);
	if (r)
		r->tid = r->group1 = 0;
	if (!next)
		return;
	gi = group_of_id(a, ctx, frec_walk__cgroup_id(ctx->walk, next));
	if (gi < 0)
		return;
	if (r) {
		r->tid = next;
		r->group1 = (__u32)gi + 1;
	}
	wake = frec_map__get(&a->pending, next);
	if (!wake)
		return;
	if (frec_report__in_range(ctx, ev->ts) &&
	    frec_report__selected(ctx, next, frec_walk__tgid(ctx->walk, next)) &&
	    (g = group_of(a, ctx, next, gi)))
		frec_hist__add(&g->runq, ev->ts >= *wake ? ev->ts - *wake : 0);
	frec_map__del(&a->pending, next);
}

static void on_wake(struct cgroups *a, const struct frec_report_ctx *ctx,
		    const struct frec_event *ev)
{
	uint64_t *slot;
	bool created;

	if (!ev->wake.pid || frec_cpu_state__running(ctx->cpus, ev->wake.pid))
		return;		/* woken before it got off its CPU: not queued */
	slot = frec_map__put(&a->pending, ev->wake.pid, &created);
	if (!slot)
		a->err = -ENOMEM;
	else if (created)
		*slot = ev->ts;
}

static int cgroups_feed(void *p, const struct frec_report_ctx *ctx, const struct frec_event *ev)
{
	struct cgroups *a = p;

	if (!ctx->opts->by)
		return 0;
	a->container = ctx->opts->by == FREC_REPORT_BY_CONTAINER;
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		on_switch(a, ctx, ev);
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		on_wake(a, ctx, ev);
		break;
	case FREC_EV_PROCESS_EXIT:
		frec_map__del(&a->pending, ev->exit.pid);
		break;
	case FREC_EV_LOST:
		if (ev->cpu == FREC_CPU_UNKNOWN)
			end_all_runs(a, ctx, ev->ts);
		else
			end_run(a, ctx, ev->cpu, ev->ts);
		frec_map__clear(&a->pending);	/* who runs where may be stale */
		break;
	case FREC_EV_GAP:
		end_all_runs(a, ctx, ev->ts);
		frec_map__clear(&a->pending);
		break;
	default:
		break;
	}
	return a->err;
}

static int cgroups_gen(void *p, const struct frec_report_ctx *ctx)
{
	struct cgroups *a = p;

	if (!ctx->opts->by || !ctx->damaged)
		return 0;
	end_all_runs(a, ctx, ctx->last_gen_end);
	frec_map__clear(&a->pending);
	return a->err;
}

/* qsort has no context argument: the one being sorted */
static const struct cgroups *sorting;

/* most on-CPU time first, then most switches, then the order of sight */
static int cmp_group(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct group *a = &sorting->groups[i], *b = &sorting->groups[j];

	if (a->oncpu_ns != b->oncpu_ns)
		return a->oncpu_ns > b->oncpu_ns ? -1 : 1;
	if (a->switches != b->switches)
		return a->switches > b->switches ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int cgroups_finish(void *p, const struct frec_report_ctx *ctx)
{
	struct cgroups *a = p;

	if (!ctx->opts->by)
		return 0;
	/* tasks still on their CPU ran until the end of the data */
	end_all_runs(a, ctx, ctx->tend);
	if (a->err)
		return a->err;
	a->order = calloc(a->ngroups ? a->ngroups : 1, sizeof(*a->order));
	if (!a->order)
		return -ENOMEM;
	/* a group seen only by threads --pid, --tid or --cgroup left out,
	 * or outside the time range, has nothing to show */
	for (size_t i = 0; i < a->ngroups; i++)
		if (a->groups[i].tids.len)
			a->order[a->nrows++] = i;
	sorting = a;
	qsort(a->order, a->nrows, sizeof(*a->order), cmp_group);
	sorting = NULL;
	return 0;
}

/* ---- output ---------------------------------------------------------- */

static const char *group_label(const struct group *g)
{
	return g->host ? "(host)" : g->name ? g->name : "?";
}

static void cgroups_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct cgroups *a = p;
	size_t i, n;

	if (!ctx->opts->by)
		return;
	n = frec_report__rows(ctx, a->nrows);
	frec_out__printf(o, "\nBy %s (top %zu of %zu)\n", a->container ? "container" : "cgroup", n,
			 a->nrows);
	frec_out__printf(o, "%8s %14s %10s %10s %14s %14s %14s  %s\n", "THREADS", "ONCPU(ms)",
			 "SWITCHES", "RUNQ", "P50(us)", "P99(us)", "MAX(us)",
			 a->container ? "CONTAINER (RUNTIME)" : "CGROUP");
	for (i = 0; i < n; i++) {
		const struct group *g = &a->groups[a->order[i]];

		frec_out__printf(o, "%8zu ", g->tids.len);
		frec_table__ms(o, g->oncpu_ns, 14);
		frec_out__printf(o, " %10llu %10llu ", (unsigned long long)g->switches,
				 (unsigned long long)g->runq.count);
		frec_table__us(o, frec_hist__percentile(&g->runq, 50), 14);
		frec_out__char(o, ' ');
		frec_table__us(o, frec_hist__percentile(&g->runq, 99), 14);
		frec_out__char(o, ' ');
		frec_table__us(o, g->runq.max, 14);
		frec_out__str(o, "  ");
		frec_text__str(o, group_label(g), 4096);
		if (!a->container && !g->name && g->cgroup_id)
			frec_out__printf(o, " (id %llu)", (unsigned long long)g->cgroup_id);
		if (a->container && g->runtime)
			frec_out__printf(o, " (%s)", g->runtime);
		frec_out__char(o, '\n');
	}
}

static void json_str_or_null(struct frec_out *o, const char *s)
{
	if (s)
		frec_json__str(o, s, 4096);
	else
		frec_out__str(o, "null");
}

static void cgroups_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct cgroups *a = p;
	size_t i, n;

	if (!ctx->opts->by)
		return;
	frec_out__str(o, a->container ? ",\"by_container\":[" : ",\"by_cgroup\":[");
	n = frec_report__rows(ctx, a->nrows);
	for (i = 0; i < n; i++) {
		const struct group *g = &a->groups[a->order[i]];

		frec_out__str(o, i ? ",{" : "{");
		frec_json__key(o, a->container ? "container" : "cgroup");
		json_str_or_null(o, g->host ? "(host)" : g->name);
		frec_out__printf(o, ",\"cgroup_id\":%llu,\"runtime\":",
				 (unsigned long long)g->cgroup_id);
		json_str_or_null(o, g->runtime);
		frec_out__printf(o, ",\"threads\":%zu,\"oncpu_ns\":%llu,\"switches\":%llu,"
				 "\"runq\":{\"count\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,"
				 "\"max_ns\":%llu}}",
				 g->tids.len, (unsigned long long)g->oncpu_ns,
				 (unsigned long long)g->switches, (unsigned long long)g->runq.count,
				 (unsigned long long)frec_hist__percentile(&g->runq, 50),
				 (unsigned long long)frec_hist__percentile(&g->runq, 99),
				 (unsigned long long)g->runq.max);
	}
	frec_out__char(o, ']');
}

const struct frec_analysis_ops frec_analysis_cgroups = {
	.name = "cgroups",
	.new = cgroups_new,
	.gen = cgroups_gen,
	.feed = cgroups_feed,
	.finish = cgroups_finish,
	.text = cgroups_text,
	.json = cgroups_json,
	.free = cgroups_free,
};
