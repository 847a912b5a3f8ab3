// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format chrome: Trace Event Format JSON, for chrome://tracing
 * and Perfetto's JSON importer.
 *
 *  - "M" metadata names every process and thread (again when a name changes);
 *    a process placed in a cgroup (its main thread's, else its first placed
 *    thread's, when first named) has the container's first 12 hex digits,
 *    or the cgroup's last component, in brackets after its name (not the
 *    root cgroup "/", which tells nothing), and a "process_labels"
 *    metadata event "container=ID,cgroup=PATH";
 *  - each thread's lane holds "running" X slices, from being switched in to
 *    being switched out, and instants for fork, exec and exit;
 *  - a pseudo-process "CPUs" holds one lane per CPU with what ran there;
 *  - probe calls are complete (X) slices with their arguments and "ret", on
 *    a "probes" lane beside each thread: on the thread's own lane a call that
 *    blocks would overlap its running slices, which the format forbids. A
 *    call is written when it ends (calls.c pairs entries and returns across
 *    generations); one that never returned is marked "unfinished". USDT and
 *    unpaired hits are instants there;
 *  - lost records are instants on their CPU's lane;
 *  - a move to another cgroup is an instant "cgroup PATH" on the thread;
 *  - a trigger's firing (or its suppressed ones) is an instant "trigger
 *    NAME" on the thread it held for (global when it names none);
 *  - a broken switch chain (cpu_chain.h: the kernel reported no switch out
 *    of the thread switched in) ends that thread's running slice at its last
 *    event seen on the CPU, and an instant "switch chain break" on the CPU's
 *    lane marks where the unknown time ends.
 *
 * Pseudo ids never collide with real ones: Linux pids stay below
 * PID_MAX_LIMIT (2^22).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calls.h"
#include "cpu_chain.h"
#include "export_calls.h"
#include "export_walk.h"
#include "intern.h"
#include "json.h"
#include "map.h"
#include "out.h"
#include "percpu.h"
#include "tools.h"
#include "walk.h"

#define PID_LIMIT		4194304u		/* PID_MAX_LIMIT on 64-bit */
#define CPUS_PID		PID_LIMIT		/* the pseudo-process of CPU lanes */
#define CPU_LANE(cpu)		(PID_LIMIT + 1 + (cpu))
#define PROBE_LANE(tid)		(2 * PID_LIMIT + (tid))

struct lane_name {
	__u32 tgid;
	char comm[FREC_COMM_LEN];
};

struct cpu_run {
	bool known;
	__u32 tid, tgid;
	__u64 since;
	char comm[FREC_COMM_LEN];
};

struct cexport {
	struct frec_export_walk ew;	/* the walk, the output, calls, chains */
	bool first;			/* no event written yet: no comma */
	struct frec_map named;		/* tid -> index into names: thread_name written */
	struct lane_name *names;
	size_t nnames, cap;
	struct frec_map pnamed;		/* tgid -> process_name written: PNAMED_* */
	struct frec_map plane;		/* tid -> 1: probe lane named */
	struct cpu_run *cpus;
	__u32 ncpus;
	int err;
};

static void sep(struct cexport *x)
{
	if (x->first) {
		x->first = false;
		frec_out__write(x->ew.o, "\n", 1);
	} else {
		frec_out__write(x->ew.o, ",\n", 2);
	}
}

static void ts_field(struct cexport *x, const char *key, __u64 ns)
{
	frec_out__write(x->ew.o, ",\"", 2);
	frec_out__str(x->ew.o, key);
	frec_out__write(x->ew.o, "\":", 2);
	frec_out__usecs(x->ew.o, ns);
}

static void pid_tid(struct cexport *x, __u32 pid, __u32 tid)
{
	frec_out__str(x->ew.o, ",\"pid\":");
	frec_out__u64(x->ew.o, pid);
	frec_out__str(x->ew.o, ",\"tid\":");
	frec_out__u64(x->ew.o, tid);
}

static void meta(struct cexport *x, const char *what, __u32 pid, __u32 tid, const char *name,
		 size_t max, const char *suffix)
{
	sep(x);
	frec_out__str(x->ew.o, "{\"ph\":\"M\",\"name\":\"");
	frec_out__str(x->ew.o, what);
	frec_out__char(x->ew.o, '"');
	pid_tid(x, pid, tid);
	frec_out__str(x->ew.o, ",\"args\":{\"name\":");
	if (suffix) {
		char buf[4096 + 64];

		snprintf(buf, sizeof(buf), "%.*s%s", (int)max, name, suffix);
		frec_json__str(x->ew.o, buf, sizeof(buf));
	} else {
		frec_json__str(x->ew.o, name, max);
	}
	frec_out__str(x->ew.o, "}}");
}

/* How a process was named: by a thread's comm, while no generation knew
 * its command line (read after the process was first seen: forked and not
 * exec'd), or by its command line, as pnamed_cmdline() of it: a later one
 * (after an exec) names it again. */
#define PNAMED_COMM	1

static uint64_t pnamed_cmdline(const char *cmdline)
{
	return frec_intern__hash(cmdline) | 2;	/* never 0 (absent) nor PNAMED_COMM */
}

static void name_process(struct cexport *x, __u32 tgid)
{
	const struct frec_cgroup_info *c;
	const struct frec_process *p;
	const struct frec_thread *t;
	uint64_t *slot;
	bool created, labelled, has_cmdline;
	char buf[FREC_COMM_LEN + 8], sbuf[16], suffix[64], labels[4096 + 32];

	slot = frec_map__put(&x->pnamed, tgid, &created);
	if (!slot) {
		x->err = -ENOMEM;
		return;
	}
	p = frec_gen__process(frec_walk__gen(x->ew.w), tgid);
	has_cmdline = p && p->cmdline && p->cmdline[0];
	/* named: again only by a command line other than the name given */
	if (!created && (!has_cmdline || *slot == pnamed_cmdline(p->cmdline)))
		return;
	t = frec_walk__thread(x->ew.w, tgid);
	c = frec_walk__process_cgroup(x->ew.w, tgid);
	/* the root cgroup in every name would say nothing */
	labelled = c && c->path && strcmp(c->path, "/");
	if (labelled) {
		size_t n;
		const char *s = frec_cgroup__short(c, sbuf, &n);

		snprintf(suffix, sizeof(suffix), " [%.*s]", (int)(n < 48 ? n : 48), s);
	}
	if (has_cmdline) {
		meta(x, "process_name", tgid, tgid, p->cmdline, 4096, labelled ? suffix : NULL);
		*slot = pnamed_cmdline(p->cmdline);
	} else {
		meta(x, "process_name", tgid, tgid,
		     t ? t->comm : frec_walk__comm(x->ew.w, tgid, 0, buf), FREC_COMM_LEN,
		     labelled ? suffix : NULL);
		*slot = PNAMED_COMM;
	}
	/* named again: the labels were said the first time */
	if (!c || !created)
		return;
	sep(x);
	frec_out__str(x->ew.o, "{\"ph\":\"M\",\"name\":\"process_labels\"");
	pid_tid(x, tgid, tgid);
	frec_out__str(x->ew.o, ",\"args\":{\"labels\":");
	if (c->container && c->container[0])
		snprintf(labels, sizeof(labels), "container=%.12s,cgroup=%s", c->container, c->path);
	else
		snprintf(labels, sizeof(labels), "cgroup=%s", c->path);
	frec_json__str(x->ew.o, labels, sizeof(labels));
	frec_out__str(x->ew.o, "}}");
}

/* Name a thread's lane when first seen and whenever its name changed. */
static void name_thread(struct cexport *x, __u32 tid)
{
	const struct frec_thread *t;
	struct lane_name *n;
	uint64_t *slot;
	bool created;
	__u32 tgid;

	if (!tid)
		return;
	t = frec_walk__thread(x->ew.w, tid);
	tgid = frec_walk__tgid(x->ew.w, tid);
	slot = frec_map__put(&x->named, tid, &created);
	if (!slot) {
		x->err = -ENOMEM;
		return;
	}
	if (created) {
		if (x->nnames == x->cap) {
			size_t ncap = x->cap ? x->cap * 2 : 256;

			n = realloc(x->names, ncap * sizeof(*n));
			if (!n) {
				x->err = -ENOMEM;
				return;
			}
			x->names = n;
			x->cap = ncap;
		}
		*slot = x->nnames++;
		memset(&x->names[*slot], 0, sizeof(x->names[0]));
	} else if (x->names[*slot].tgid == tgid &&
		   !strncmp(x->names[*slot].comm, t ? t->comm : "", FREC_COMM_LEN)) {
		return;
	}
	n = &x->names[*slot];
	n->tgid = tgid;
	snprintf(n->comm, sizeof(n->comm), "%.*s", FREC_COMM_LEN - 1, t ? t->comm : "");
	name_process(x, tgid);
	meta(x, "thread_name", tgid, tid, t && t->comm[0] ? t->comm : "<...>", FREC_COMM_LEN, NULL);
}

static void name_probe_lane(struct cexport *x, __u32 tid, __u32 tgid)
{
	uint64_t *slot;
	bool created;
	char buf[FREC_COMM_LEN + 8], suffix[32];

	slot = frec_map__put(&x->plane, tid, &created);
	if (!slot) {
		x->err = -ENOMEM;
		return;
	}
	if (!created)
		return;
	name_thread(x, tid);
	snprintf(suffix, sizeof(suffix), " %u probes", tid);
	meta(x, "thread_name", tgid, PROBE_LANE(tid), frec_walk__comm(x->ew.w, tid, 0, buf),
	     FREC_COMM_LEN, suffix);
}

static struct cpu_run *cpu_of(struct cexport *x, __u32 cpu)
{
	if (cpu >= FREC_MAX_CPUS)
		return NULL;
	if (cpu >= x->ncpus) {
		__u32 i, old = x->ncpus;
		char name[32];
		struct cpu_run *c = frec_percpu__grow(x->cpus, &x->ncpus, cpu, sizeof(*c));

		if (!c) {
			x->err = -ENOMEM;
			return NULL;
		}
		x->cpus = c;
		if (!old)
			meta(x, "process_name", CPUS_PID, CPUS_PID, "CPUs", 8, NULL);
		for (i = old; i <= cpu; i++) {
			snprintf(name, sizeof(name), "CPU %u", i);
			meta(x, "thread_name", CPUS_PID, CPU_LANE(i), name, sizeof(name), NULL);
			/* keep CPU lanes in CPU order */
			sep(x);
			frec_out__str(x->ew.o, "{\"ph\":\"M\",\"name\":\"thread_sort_index\"");
			pid_tid(x, CPUS_PID, CPU_LANE(i));
			frec_out__printf(x->ew.o, ",\"args\":{\"sort_index\":%u}}", i);
		}
	}
	return &x->cpus[cpu];
}

static void instant_begin(struct cexport *x, const char *name, const char *cat, __u64 ts,
			  __u32 pid, __u32 tid);

/* What ran on a CPU from since to ts: on its thread's lane and the CPU's. */
static void running(struct cexport *x, __u32 cpu, const struct cpu_run *r, __u64 ts)
{
	if (!r->known || !r->tid || ts < r->since)
		return;
	sep(x);
	frec_out__str(x->ew.o, "{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\"");
	ts_field(x, "ts", r->since);
	ts_field(x, "dur", ts - r->since);
	pid_tid(x, r->tgid, r->tid);
	frec_out__printf(x->ew.o, ",\"args\":{\"cpu\":%u}}", cpu);

	sep(x);
	frec_out__str(x->ew.o, "{\"name\":");
	frec_json__str(x->ew.o, r->comm, FREC_COMM_LEN);
	frec_out__str(x->ew.o, ",\"cat\":\"cpu\",\"ph\":\"X\"");
	ts_field(x, "ts", r->since);
	ts_field(x, "dur", ts - r->since);
	pid_tid(x, CPUS_PID, CPU_LANE(cpu));
	frec_out__printf(x->ew.o, ",\"args\":{\"tid\":%u,\"pid\":%u}}", r->tid, r->tgid);
}

static void on_switch(struct cexport *x, const struct frec_event *ev,
		      enum frec_chain_verdict v, const struct frec_chain_run *run)
{
	struct cpu_run *r = cpu_of(x, ev->cpu);
	const struct frec_thread *t;

	if (!r)
		return;
	if (v == FREC_CHAIN_BREAK && r->known && r->tid == run->tid) {
		/* it ran until its last event seen; the rest is not known */
		running(x, ev->cpu, r, run->last_ts);
		instant_begin(x, "switch chain break", "sched", ev->ts, CPUS_PID, CPU_LANE(ev->cpu));
		frec_out__printf(x->ew.o, "\"switched_in\":%u,\"prev\":%u,\"unknown_since\":",
				 run->tid, ev->sw.prev_pid);
		frec_out__usecs(x->ew.o, run->last_ts);
		frec_out__str(x->ew.o, "}}");
	} else {
		running(x, ev->cpu, r, ev->ts);
	}
	name_thread(x, ev->sw.next_pid);
	r->known = true;
	r->tid = ev->sw.next_pid;
	r->tgid = frec_walk__tgid(x->ew.w, r->tid);
	r->since = ev->ts;
	t = frec_walk__thread(x->ew.w, r->tid);
	snprintf(r->comm, sizeof(r->comm), "%.*s", FREC_COMM_LEN - 1, t ? t->comm : "<...>");
}

/* scope: 't' marks the thread's lane, 'p' every lane of the process */
static void instant_scoped(struct cexport *x, const char *name, const char *cat, __u64 ts,
			   __u32 pid, __u32 tid, char scope)
{
	sep(x);
	frec_out__str(x->ew.o, "{\"name\":");
	frec_json__str(x->ew.o, name, 4096);
	frec_out__str(x->ew.o, ",\"cat\":\"");
	frec_out__str(x->ew.o, cat);
	frec_out__str(x->ew.o, "\",\"ph\":\"i\",\"s\":\"");
	frec_out__char(x->ew.o, scope);
	frec_out__char(x->ew.o, '"');
	ts_field(x, "ts", ts);
	pid_tid(x, pid, tid);
	frec_out__str(x->ew.o, ",\"args\":{");
}

static void instant_begin(struct cexport *x, const char *name, const char *cat, __u64 ts,
			  __u32 pid, __u32 tid)
{
	instant_scoped(x, name, cat, ts, pid, tid, 't');
}

/* The exit's thread group, or the walker's when the event names none. */
static __u32 exit_tgid(struct cexport *x, const struct frec_event *ev)
{
	return ev->exit.tgid ? ev->exit.tgid : frec_walk__tgid(x->ew.w, ev->exit.pid);
}

static void on_task_event(struct cexport *x, const struct frec_event *ev)
{
	__u32 tid, tgid;

	switch (ev->type) {
	case FREC_EV_PROCESS_FORK:
		tid = ev->fork.parent_pid;
		tgid = frec_walk__tgid(x->ew.w, tid);
		name_thread(x, tid);
		instant_begin(x, "fork", "sched", ev->ts, tgid, tid);
		frec_out__printf(x->ew.o, "\"child_pid\":%u,\"child_comm\":", ev->fork.child_pid);
		frec_json__str(x->ew.o, frec_walk__thread(x->ew.w, ev->fork.child_pid) ?
				       frec_walk__thread(x->ew.w, ev->fork.child_pid)->comm : "",
			       FREC_COMM_LEN);
		frec_out__str(x->ew.o, "}}");
		break;
	case FREC_EV_PROCESS_EXEC:
		tid = ev->exec.pid;
		tgid = frec_walk__tgid(x->ew.w, tid);
		name_thread(x, tid);
		instant_begin(x, "exec", "sched", ev->ts, tgid, tid);
		frec_out__str(x->ew.o, "\"filename\":");
		frec_json__str(x->ew.o, ev->exec.filename, FREC_FILENAME_LEN);
		frec_out__printf(x->ew.o, ",\"old_pid\":%u}}", ev->exec.old_pid);
		break;
	case FREC_EV_PROCESS_EXIT:
		tid = ev->exit.pid;
		tgid = exit_tgid(x, ev);
		name_thread(x, tid);
		instant_begin(x, "exit", "sched", ev->ts, tgid, tid);
		frec_out__printf(x->ew.o, "\"tgid\":%u}}", ev->exit.tgid);
		break;
	default:
		break;
	}
}

static void probe_args(struct cexport *x, __u32 nargs, const __u64 *args)
{
	__u32 i, n = nargs > FREC_MAX_PROBE_ARGS ? FREC_MAX_PROBE_ARGS : nargs;

	for (i = 0; i < n; i++) {
		frec_out__printf(x->ew.o, "%s\"arg%u\":", i ? "," : "", i);
		frec_out__u64(x->ew.o, args[i]);
	}
}

/* A call, written once it has ended: a complete (X) slice on the thread's
 * probes lane. ret NULL: it never returned (unfinished). */
static void call_slice(struct cexport *x, __u32 tgid, __u32 tid, const struct frec_call_frame *f,
		       __u64 end, const __s64 *ret)
{
	char buf[32];

	name_probe_lane(x, tid, tgid);
	sep(x);
	frec_out__str(x->ew.o, "{\"name\":");
	frec_json__str(x->ew.o, frec_export_calls__name(x->ew.calls, f->fn, 0, buf, sizeof(buf)), 4096);
	frec_out__str(x->ew.o, ",\"cat\":\"probe\",\"ph\":\"X\"");
	ts_field(x, "ts", f->ts);
	ts_field(x, "dur", end >= f->ts ? end - f->ts : 0);
	pid_tid(x, tgid, PROBE_LANE(tid));
	frec_out__str(x->ew.o, ",\"args\":{");
	probe_args(x, f->nargs, f->args);
	if (ret) {
		frec_out__str(x->ew.o, f->nargs ? ",\"ret\":" : "\"ret\":");
		frec_out__s64(x->ew.o, *ret);
	} else {
		frec_out__str(x->ew.o, f->nargs ? ",\"unfinished\":true" : "\"unfinished\":true");
	}
	frec_out__str(x->ew.o, "}}");
}

/* A hit on the probes lane: USDT, an entry of a function without return
 * probe, a return whose entry came before the recording. */
static void hit(struct cexport *x, __u32 tgid, __u32 tid, const char *name, __u64 ts,
		__u32 nargs, const __u64 *args, const __s64 *ret)
{
	name_probe_lane(x, tid, tgid);
	instant_begin(x, name, "probe", ts, tgid, PROBE_LANE(tid));
	probe_args(x, nargs, args);
	if (ret) {
		frec_out__str(x->ew.o, nargs ? ",\"ret\":" : "\"ret\":");
		frec_out__s64(x->ew.o, *ret);
	}
	frec_out__str(x->ew.o, "}}");
}

static __u64 lane_of(void *ctx, __u32 tgid, __u32 tid, __u64 ts, __u32 cpu)
{
	(void)ts;
	(void)cpu;
	name_probe_lane(ctx, tid, tgid);
	return 0;
}

static __u64 open_lane(void *ctx, __u32 tgid, __u32 tid)
{
	(void)ctx;
	(void)tgid;
	(void)tid;
	return 0;	/* named at the entry */
}

/* A call still open at the end ran until the last event. */
static void call_ended(void *ctx, __u64 lane, __u32 tgid, __u32 tid, const struct frec_call_frame *f,
		       __u64 end, const __s64 *ret, bool open)
{
	struct cexport *x = ctx;

	(void)lane;
	call_slice(x, tgid, tid, f, open ? x->ew.last_ts : end, ret);
}

static void probe_hit(void *ctx, __u64 lane, __u32 tgid, __u32 tid, const char *name, __u64 ts,
		      __u32 nargs, const __u64 *args, const __s64 *ret, bool unfinished)
{
	(void)lane;
	(void)unfinished;
	hit(ctx, tgid, tid, name, ts, nargs, args, ret);
}

static const struct frec_export_call_ops call_ops = {
	.track = lane_of,
	.open_track = open_lane,
	.slice = call_ended,
	.hit = probe_hit,
};

static void on_gap(struct cexport *x, const struct frec_event *ev)
{
	if (!x->ncpus)
		return;
	instant_scoped(x, "gap: nothing recorded", "lost", ev->ts, CPUS_PID, CPU_LANE(0), 'p');
	frec_out__printf(x->ew.o, "\"reason\":\"%s\",\"duration_ns\":%llu}}",
			 ev->gap.kind == FREC_GAP_RELOAD ? "reload" : "unknown",
			 (unsigned long long)(ev->gap.last_ts - ev->gap.first_ts));
}

static void on_lost(struct cexport *x, const struct frec_event *ev)
{
	/* Lost on no known CPU: one mark across the CPU lanes. */
	if (ev->cpu == FREC_CPU_UNKNOWN && x->ncpus) {
		instant_scoped(x, "lost records", "lost", ev->ts, CPUS_PID, CPU_LANE(0), 'p');
		frec_out__printf(x->ew.o, "\"cpu\":\"unknown\",\"count\":%llu}}",
				 (unsigned long long)ev->lost.count);
		return;
	}
	if (!cpu_of(x, ev->cpu))
		return;
	instant_begin(x, "lost records", "lost", ev->ts, CPUS_PID, CPU_LANE(ev->cpu));
	frec_out__printf(x->ew.o, "\"cpu\":%u,\"count\":%llu}}", ev->cpu,
			 (unsigned long long)ev->lost.count);
}

/* A trigger's firing, or its suppressed ones: an instant on the thread
 * the condition held for; one with no thread (lost records) is global. */
static void on_trigger(struct cexport *x, const struct frec_event *ev)
{
	char buf[16], *name;
	const char *tn = frec_walk__trigger_name(x->ew.w, ev->trigger.id, buf);
	size_t n = strlen(tn) + sizeof("trigger ");

	name = malloc(n);
	if (!name) {
		x->err = -ENOMEM;
		return;
	}
	snprintf(name, n, "trigger %s", tn);
	if (ev->tid || ev->tgid) {
		name_thread(x, ev->tid);
		instant_begin(x, name, "trigger", ev->ts, ev->tgid, ev->tid);
	} else {
		instant_scoped(x, name, "trigger", ev->ts, 0, 0, 'g');
	}
	frec_out__printf(x->ew.o, "\"trigger_id\":%u,\"value_ns\":%llu,\"count\":%llu,"
			 "\"suppressed\":%s}}", ev->trigger.id,
			 (unsigned long long)ev->trigger.value,
			 (unsigned long long)ev->trigger.count,
			 ev->trigger.flags & FREC_TRIGGER_SUPPRESSED ? "true" : "false");
	free(name);
}

/* A move: an instant "cgroup PATH" (the id when unnamed) on the thread. */
static void on_cgroup(struct cexport *x, const struct frec_event *ev)
{
	const struct frec_cgroup_info *c = frec_walk__cgroup_info(x->ew.w, ev->cgroup.id);
	char name[4096 + 32];
	__u32 tgid;

	if (!ev->tid)
		return;
	if (c && c->path && c->path[0])
		snprintf(name, sizeof(name), "cgroup %s", c->path);
	else
		snprintf(name, sizeof(name), "cgroup id %llu", (unsigned long long)ev->cgroup.id);
	tgid = frec_walk__tgid(x->ew.w, ev->tid);
	name_thread(x, ev->tid);
	instant_begin(x, name, "cgroup", ev->ts, tgid, ev->tid);
	frec_out__printf(x->ew.o, "\"cgroup_id\":%llu}}", (unsigned long long)ev->cgroup.id);
}

/* A process named by a comm, or by another command line, is named again by
 * the one this generation knows (an exec's): in Chrome's format the later
 * process_name wins. */
static void rename_processes(struct cexport *x)
{
	const struct frec_gen *g = frec_walk__gen(x->ew.w);
	const struct frec_process *p;
	uint64_t *slot;

	for (__u32 i = 0; !x->err && (p = frec_gen__process_at(g, i)); i++) {
		slot = frec_map__get(&x->pnamed, p->tgid);
		if (slot && p->cmdline && p->cmdline[0] && *slot != pnamed_cmdline(p->cmdline))
			name_process(x, p->tgid);
	}
}

static int export_gen(struct cexport *x)
{
	const struct frec_event *ev;
	enum frec_chain_verdict v;
	struct frec_chain_run run;
	int rc;

	if ((rc = frec_export_walk__gen(&x->ew)))
		return rc;
	rename_processes(x);
	while (!x->err && (ev = frec_export_walk__next(&x->ew, &v, &run))) {
		switch (ev->type) {
		case FREC_EV_SCHED_SWITCH:
			on_switch(x, ev, v, &run);
			break;
		case FREC_EV_PROCESS_FORK:
		case FREC_EV_PROCESS_EXEC:
			on_task_event(x, ev);
			break;
		case FREC_EV_PROCESS_EXIT:
			on_task_event(x, ev);
			frec_export_calls__exit(x->ew.calls, ev, exit_tgid(x, ev), &call_ops, x);
			break;
		case FREC_EV_TASK_RENAME:
			/* name the lane again once the new name is in the table */
			break;
		case FREC_EV_UPROBE:
		case FREC_EV_URETPROBE:
		case FREC_EV_USDT:
			frec_export_calls__event(x->ew.calls, ev, &call_ops, x);
			break;
		case FREC_EV_LOST:
			on_lost(x, ev);
			break;
		case FREC_EV_GAP:
			on_gap(x, ev);
			break;
		case FREC_EV_TRIGGER:
			on_trigger(x, ev);
			break;
		case FREC_EV_CGROUP:
			on_cgroup(x, ev);
			break;
		default:
			break;
		}
		if (frec_out__error(x->ew.o))
			return frec_out__error(x->ew.o);
	}
	return x->err ? x->err : frec_chain__error(x->ew.chain);
}

static void header(struct cexport *x)
{
	const struct frec_header *h = frec_walk__header(x->ew.w);

	frec_out__str(x->ew.o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"frec_version\":");
	frec_json__str(x->ew.o, h->frec_version, sizeof(h->frec_version));
	frec_out__str(x->ew.o, ",\"hostname\":");
	frec_json__str(x->ew.o, h->hostname, sizeof(h->hostname));
	frec_out__str(x->ew.o, ",\"kernel\":");
	frec_json__str(x->ew.o, h->kernel_release, sizeof(h->kernel_release));
	frec_out__str(x->ew.o, ",\"reason\":");
	frec_json__str(x->ew.o, h->reason, sizeof(h->reason));
	frec_out__str(x->ew.o, ",\"clock\":\"boottime\"},\"traceEvents\":[");
}

int frec_export_chrome__run(const char *path, const struct frec_export_opts *opts, FILE *out,
			    FILE *err, struct frec_export_stats *st)
{
	struct cexport x;
	__u32 cpu;
	int rc;

	memset(&x, 0, sizeof(x));
	x.first = true;
	frec_map__init(&x.named);
	frec_map__init(&x.pnamed);
	frec_map__init(&x.plane);
	rc = frec_export_walk__open(&x.ew, path, opts, out, err);
	if (rc > 0)
		return rc;
	if (!rc) {
		header(&x);
		while (!rc && frec_export_walk__next_gen(&x.ew) > 0)
			rc = export_gen(&x);
		/* tasks still on their CPU ran until the last event */
		for (cpu = 0; !rc && cpu < x.ncpus; cpu++)
			running(&x, cpu, &x.cpus[cpu], x.ew.last_ts);
		if (!rc)
			frec_export_calls__open(x.ew.calls, &call_ops, &x);
		frec_out__str(x.ew.o, "\n]}\n");
	}
	frec_map__fini(&x.named);
	frec_map__fini(&x.pnamed);
	frec_map__fini(&x.plane);
	free(x.names);
	free(x.cpus);
	return frec_export_walk__close(&x.ew, rc, path, err, st);
}
