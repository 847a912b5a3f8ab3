// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Processes and threads in the Perfetto trace (perfetto.h).
 *
 * A ProcessTree packet at each generation's start names every process
 * (with its command line) and thread of its task table. It names a
 * process's parent (ppid) when a fork seen earlier in the walk created it.
 *
 * Lifetimes: trace_processor starts threads and processes at task_newtask
 * and ends them at sched_process_free, so these are written beside the
 * kernel's sched_process_fork and sched_process_exit (free at the exit: frec
 * does not record the free). frec records no clone flags: task_newtask says
 * CLONE_THREAD when the child joined its parent's thread group, nothing
 * else. Exec and rename are full FtraceEvents too, in the CPU's bundle.
 *
 * Cgroups: a process is labelled once, when a generation first places it
 * (its main thread's cgroup, else its first placed thread's): a
 * TrackDescriptor for the process whose ProcessDescriptor carries
 * process_labels "container=<12 hex>" and "cgroup=<path>", which the UI
 * shows beside the process's name.
 */
#include <errno.h>
#include <string.h>
#include "perfetto.h"
#include "walk.h"

/* FtraceEvent's task events */
#define FE_TASK_NEWTASK		235
#define FE_TASK_RENAME		236
#define FE_PROCESS_EXEC		237
#define FE_PROCESS_EXIT		238
#define FE_PROCESS_FORK		239
#define FE_PROCESS_FREE		240
#define CLONE_THREAD_		0x00010000	/* include/uapi/linux/sched.h */
/* ProcessTree */
#define PT_PROCESSES		1
#define PT_THREADS		2
#define PT_PROC_PID		1
#define PT_PROC_PPID		2
#define PT_PROC_CMDLINE		3
#define PT_PROC_CMDLINE_IS_COMM	9
#define PT_THR_TID		1
#define PT_THR_NAME		2
#define PT_THR_TGID		3
/* TrackDescriptor, ProcessDescriptor (track_event/process_descriptor.proto) */
#define TD_UUID			1
#define TD_PROCESS		3
#define PD_PID			1
#define PD_NAME			6
#define PD_LABELS		8
/* A process's track: above every thread track's (tgid << 32 | tid) */
#define PROCESS_TRACK(tgid)	((1ull << 63) | (tgid))

/* A fork that made a new process: its parent is the forking thread's
 * process. */
void pexport__learn_parent(struct pexport *x, const struct frec_event *ev)
{
	__u32 child = ev->fork.child_pid;
	uint64_t *slot;

	if (frec_walk__tgid(x->ew.w, child) != child)
		return;		/* a thread of its parent's process */
	slot = frec_map__put(&x->ppids, child, NULL);
	if (!slot) {
		x->err = -ENOMEM;
		return;
	}
	*slot = frec_walk__tgid(x->ew.w, ev->fork.parent_pid);
}

/* The parent process of tgid, 0 when not known: from the forks walked so
 * far. A ppid that the snapshot's process table may name is to be taken
 * here where no fork gives one. */
static __u32 ppid_of(const struct pexport *x, __u32 tgid)
{
	uint64_t *slot = frec_map__get(&x->ppids, tgid);

	return slot ? (__u32)*slot : 0;
}

static void ppid_field(struct frec_pb *p, const struct pexport *x, __u32 tgid)
{
	__u32 ppid = ppid_of(x, tgid);

	if (ppid)
		frec_pb__int(p, PT_PROC_PPID, (__s32)ppid);
}

static void cmdline_args(struct frec_pb *p, const char *cmdline)
{
	const char *s = cmdline, *e;

	/* the reader joins arguments with spaces; Perfetto wants them apart
	 * (the first names the process) */
	while (*s) {
		e = strchr(s, ' ');
		if (!e)
			e = s + strlen(s);
		if (e > s)
			frec_pb__bytes(p, PT_PROC_CMDLINE, s, (size_t)(e - s));
		s = *e ? e + 1 : e;
	}
}

void pexport__process_tree(struct pexport *x)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(x->ew.w);
	struct frec_gen *g = frec_walk__gen(x->ew.w);
	struct frec_pb *p = &x->pkt;
	size_t i, n = frec_walk__nthreads(x->ew.w);

	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, gi->start_ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_PROCESS_TREE);
	frec_map__clear(&x->seen);
	for (i = 0; i < gi->nprocesses; i++) {
		const struct frec_process *pr = frec_gen__process_at(g, (__u32)i);

		if (!pr || !pr->cmdline || !pr->cmdline[0])
			continue;
		frec_pb__begin(p, PT_PROCESSES);
		frec_pb__int(p, PT_PROC_PID, (__s32)pr->tgid);
		ppid_field(p, x, pr->tgid);
		cmdline_args(p, pr->cmdline);
		frec_pb__end(p);
		if (!frec_map__put(&x->seen, pr->tgid, NULL))
			x->err = -ENOMEM;
	}
	/* every other process of a thread: named after its main thread (or
	 * the first of its threads), flagged as a comm, not a command line */
	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_walk__thread_at(x->ew.w, i), *lead;
		bool created;

		if (!t->tid || !t->tgid || !frec_map__put(&x->seen, t->tgid, &created) || !created)
			continue;
		lead = frec_walk__thread(x->ew.w, t->tgid);
		frec_pb__begin(p, PT_PROCESSES);
		frec_pb__int(p, PT_PROC_PID, (__s32)t->tgid);
		ppid_field(p, x, t->tgid);
		frec_pb__strn(p, PT_PROC_CMDLINE, lead ? lead->comm : t->comm, FREC_COMM_LEN);
		frec_pb__uint(p, PT_PROC_CMDLINE_IS_COMM, 1);
		frec_pb__end(p);
	}
	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_walk__thread_at(x->ew.w, i);

		if (!t->tid)
			continue;	/* the idle tasks: Perfetto names them itself */
		frec_pb__begin(p, PT_THREADS);
		frec_pb__int(p, PT_THR_TID, (__s32)t->tid);
		frec_pb__strn(p, PT_THR_NAME, t->comm, FREC_COMM_LEN);
		if (t->tgid)
			frec_pb__int(p, PT_THR_TGID, (__s32)t->tgid);
		frec_pb__end(p);
	}
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
}

void pexport__task_event(struct pexport *x, const struct frec_event *ev)
{
	char buf[FREC_COMM_LEN + 8], buf2[FREC_COMM_LEN + 8];
	const char *comm;
	struct frec_pb *p;

	switch (ev->type) {
	case FREC_EV_PROCESS_FORK:
		if (!(p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid)))
			return;
		frec_pb__begin(p, FE_PROCESS_FORK);
		frec_pb__string(p, 1, frec_walk__comm(x->ew.w, ev->fork.parent_pid, ev->cpu, buf));
		frec_pb__int(p, 2, (__s32)ev->fork.parent_pid);
		comm = frec_walk__comm(x->ew.w, ev->fork.child_pid, ev->cpu, buf2);
		frec_pb__string(p, 3, comm);
		frec_pb__int(p, 4, (__s32)ev->fork.child_pid);
		pexport__event_end(x, ev->cpu);
		/* the same moment as trace_processor counts lifetimes */
		p = pexport__event_begin(x, ev->cpu, ev->ts, ev->fork.parent_pid);
		frec_pb__begin(p, FE_TASK_NEWTASK);
		frec_pb__int(p, 1, (__s32)ev->fork.child_pid);
		frec_pb__string(p, 2, comm);
		if (frec_walk__tgid(x->ew.w, ev->fork.child_pid) != ev->fork.child_pid)
			frec_pb__uint(p, 3, CLONE_THREAD_);
		break;
	case FREC_EV_PROCESS_EXEC:
		if (!(p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid)))
			return;
		frec_pb__begin(p, FE_PROCESS_EXEC);
		frec_pb__strn(p, 1, ev->exec.filename, FREC_FILENAME_LEN);
		frec_pb__int(p, 2, (__s32)ev->exec.pid);
		frec_pb__int(p, 3, (__s32)ev->exec.old_pid);
		break;
	case FREC_EV_PROCESS_EXIT:
		if (!(p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid)))
			return;
		frec_pb__begin(p, FE_PROCESS_EXIT);
		comm = frec_walk__comm(x->ew.w, ev->exit.pid, ev->cpu, buf);
		frec_pb__string(p, 1, comm);
		frec_pb__int(p, 2, (__s32)ev->exit.pid);
		frec_pb__int(p, 3, (__s32)ev->exit.tgid);
		pexport__event_end(x, ev->cpu);
		p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid);
		frec_pb__begin(p, FE_PROCESS_FREE);
		frec_pb__string(p, 1, comm);
		frec_pb__int(p, 2, (__s32)ev->exit.pid);
		break;
	case FREC_EV_TASK_RENAME:
		if (!(p = pexport__event_begin(x, ev->cpu, ev->ts, ev->tid)))
			return;
		frec_pb__begin(p, FE_TASK_RENAME);
		frec_pb__int(p, 1, (__s32)ev->rename.pid);
		/* the walker applies the rename after this event: the old name */
		frec_pb__string(p, 2, frec_walk__comm(x->ew.w, ev->rename.pid, ev->cpu, buf));
		frec_pb__strn(p, 3, ev->rename.newcomm, FREC_COMM_LEN);
		break;
	default:
		return;
	}
	pexport__event_end(x, ev->cpu);
	pexport__event_done(x, ev->cpu);
}

/* first: the process's first thread in the table, whose name the process
 * tree gives it when its main thread is not named */
static void process_label(struct pexport *x, const struct frec_thread *first,
			  const struct frec_cgroup_info *c, __u64 ts)
{
	__u32 tgid = first->tgid;
	const struct frec_thread *lead = frec_walk__thread(x->ew.w, tgid);
	struct frec_pb *p = &x->pkt;
	char buf[4096 + 16];

	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_TRACKS);
	if (!x->seq_started) {
		frec_pb__uint(p, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		x->seq_started = true;
	}
	frec_pb__begin(p, TP_TRACK_DESCRIPTOR);
	frec_pb__uint(p, TD_UUID, PROCESS_TRACK(tgid));
	frec_pb__begin(p, TD_PROCESS);
	frec_pb__int(p, PD_PID, (__s32)tgid);
	if (!lead)
		lead = first;
	if (lead->comm[0])
		frec_pb__strn(p, PD_NAME, lead->comm, FREC_COMM_LEN);
	if (c->container && c->container[0]) {
		snprintf(buf, sizeof(buf), "container=%.12s", c->container);
		frec_pb__string(p, PD_LABELS, buf);
	}
	snprintf(buf, sizeof(buf), "cgroup=%s", c->path);
	frec_pb__string(p, PD_LABELS, buf);
	frec_pb__end(p);
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
}

void pexport__process_labels(struct pexport *x)
{
	__u64 ts = frec_walk__gen_info(x->ew.w)->start_ts;
	size_t i, n = frec_walk__nthreads(x->ew.w);

	/* A process is looked up once per generation: labeled ones are
	 * UINT64_MAX, those whose cgroup this generation does not name are
	 * its seq + 1 (a scan of every thread each, for each of its threads,
	 * would be quadratic). */
	__u64 tried = frec_walk__gen_info(x->ew.w)->seq + 1;

	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_walk__thread_at(x->ew.w, i);
		const struct frec_cgroup_info *c;
		uint64_t *slot;
		bool created;

		/* only what the table places: older files have no labels */
		if (!t->tid || !t->tgid || !t->cgroup)
			continue;
		slot = frec_map__get(&x->labeled, t->tgid);
		if (slot && (*slot == UINT64_MAX || *slot == tried))
			continue;
		c = frec_walk__process_cgroup(x->ew.w, t->tgid);
		slot = frec_map__put(&x->labeled, t->tgid, &created);
		if (!slot) {
			x->err = -ENOMEM;
			return;
		}
		*slot = c ? UINT64_MAX : tried;
		if (c)
			process_label(x, t, c, ts);
	}
}
