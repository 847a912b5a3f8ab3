// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ring buffer records (include/frec/record.h) to decoded events, and the
 * names of event types. The ring is 8-byte aligned, but decode also serves
 * fuzzers and tests with arbitrary buffers, so fields are copied out with
 * memcpy (which the compiler turns into plain loads).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <frec/event.h>
#include "recorder_int.h"

static const char *const type_names[FREC_EV__MAX] = {
	[FREC_EV_SCHED_SWITCH]	   = "sched_switch",
	[FREC_EV_SCHED_WAKING]	   = "sched_waking",
	[FREC_EV_SCHED_WAKEUP]	   = "sched_wakeup",
	[FREC_EV_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
	[FREC_EV_PROCESS_FORK]	   = "sched_process_fork",
	[FREC_EV_PROCESS_EXEC]	   = "sched_process_exec",
	[FREC_EV_PROCESS_EXIT]	   = "sched_process_exit",
	[FREC_EV_TASK_RENAME]	   = "task_rename",
	[FREC_EV_MIGRATE_TASK]	   = "sched_migrate_task",
	[FREC_EV_UPROBE]	   = "uprobe",
	[FREC_EV_URETPROBE]	   = "uretprobe",
	[FREC_EV_USDT]		   = "usdt",
	[FREC_EV_LOST]		   = "lost",
	[FREC_EV_STACK]		   = "stack",
	[FREC_EV_TRIGGER]	   = "trigger",
	[FREC_EV_GAP]		   = "gap",
	/* FREC_EV_CGROUP has no name here yet: the tools list every named
	 * type, with its count, for every file, and older files' outputs
	 * must stay as they were (the tools name it themselves). */
};

const char *frec_type__name(unsigned int type)
{
	return type < FREC_EV__MAX ? type_names[type] : NULL;
}

static const char *const trigger_kind_names[FREC_TRIG__MAX] = {
	[FREC_TRIG_RUNQ]   = "runq",
	[FREC_TRIG_OFFCPU] = "offcpu",
	[FREC_TRIG_ONCPU]  = "oncpu",
	[FREC_TRIG_FUNC]   = "func",
	[FREC_TRIG_PROBE]  = "probe",
	[FREC_TRIG_LOST]   = "lost",
	[FREC_TRIG_MANUAL] = "manual",
};

const char *frec_trigger_kind__name(unsigned int kind)
{
	return kind < FREC_TRIG__MAX ? trigger_kind_names[kind] : NULL;
}

/* The record size each type needs; 0 for types that have no ring record. */
static const size_t rec_size[FREC_EV__MAX] = {
	[FREC_EV_SCHED_SWITCH]	   = sizeof(struct frec_rec_switch),
	[FREC_EV_SCHED_WAKING]	   = sizeof(struct frec_rec_wake),
	[FREC_EV_SCHED_WAKEUP]	   = sizeof(struct frec_rec_wake),
	[FREC_EV_SCHED_WAKEUP_NEW] = sizeof(struct frec_rec_wake),
	[FREC_EV_PROCESS_FORK]	   = sizeof(struct frec_rec_fork),
	[FREC_EV_PROCESS_EXEC]	   = sizeof(struct frec_rec_exec),
	[FREC_EV_PROCESS_EXIT]	   = sizeof(struct frec_rec_exit),
	[FREC_EV_TASK_RENAME]	   = sizeof(struct frec_rec_rename),
	[FREC_EV_MIGRATE_TASK]	   = sizeof(struct frec_rec_migrate),
	[FREC_EV_UPROBE]	   = sizeof(struct frec_rec_probe),
	[FREC_EV_URETPROBE]	   = sizeof(struct frec_rec_probe),
	[FREC_EV_USDT]		   = sizeof(struct frec_rec_probe),
	[FREC_EV_TRIGGER]	   = sizeof(struct frec_rec_trigger),
};

#define FIELD(data, type, f, dst) \
	memcpy(&(dst), (const char *)(data) + offsetof(type, f), sizeof(dst))

#define NAME_A(data, type, tidf, tgidf, commf)					\
	do {									\
		if (nm) {							\
			FIELD(data, type, tidf, nm->a_tid);			\
			FIELD(data, type, tgidf, nm->a_tgid);			\
			nm->a_comm = (const char *)(data) + offsetof(type, commf);	\
			nm->a = true;						\
		}								\
	} while (0)
#define NAME_B(data, type, tgidf, commf)					\
	do {									\
		if (nm) {							\
			FIELD(data, type, tgidf, nm->b_tgid);			\
			nm->b_comm = (const char *)(data) + offsetof(type, commf);	\
			nm->b = true;						\
		}								\
	} while (0)

/* Fills the fields of ev that its type defines (and nm, if given). */
int record_decode(const void *data, size_t len, struct frec_event *ev, struct rec_names *nm)
{
	struct frec_rec_hdr h;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	/* LOST has no ring record: frecd reports drops with add_lost(). */
	if (h.type >= FREC_EV__MAX || !rec_size[h.type] || len < rec_size[h.type])
		return -EINVAL;

	ev->ts = h.ts;
	ev->type = h.type;
	ev->cpu = h.cpu == FREC_REC_CPU_NONE ? FREC_CPU_UNKNOWN : h.cpu;
	ev->tid = h.tid;
	ev->tgid = h.tgid;
	if (nm) {
		nm->a = nm->b = false;
		nm->a_cgroup = nm->b_cgroup = 0;
		nm->b_task = NULL;
	}

	switch (h.type) {
	case FREC_EV_SCHED_SWITCH:
		FIELD(data, struct frec_rec_switch, prev_pid, ev->sw.prev_pid);
		FIELD(data, struct frec_rec_switch, next_pid, ev->sw.next_pid);
		FIELD(data, struct frec_rec_switch, prev_prio, ev->sw.prev_prio);
		FIELD(data, struct frec_rec_switch, next_prio, ev->sw.next_prio);
		FIELD(data, struct frec_rec_switch, prev_state, ev->sw.prev_state);
		NAME_A(data, struct frec_rec_switch, prev_pid, prev_tgid, prev_comm);
		NAME_B(data, struct frec_rec_switch, next_tgid, next_comm);
		if (nm)
			FIELD(data, struct frec_rec_switch, next_cgroup, nm->b_cgroup);
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		FIELD(data, struct frec_rec_wake, pid, ev->wake.pid);
		FIELD(data, struct frec_rec_wake, prio, ev->wake.prio);
		FIELD(data, struct frec_rec_wake, target_cpu, ev->wake.target_cpu);
		ev->wake.waker = h.tid;
		NAME_A(data, struct frec_rec_wake, pid, tgid, comm);
		break;
	case FREC_EV_PROCESS_FORK:
		FIELD(data, struct frec_rec_fork, parent_pid, ev->fork.parent_pid);
		FIELD(data, struct frec_rec_fork, child_pid, ev->fork.child_pid);
		NAME_A(data, struct frec_rec_fork, parent_pid, parent_tgid, parent_comm);
		NAME_B(data, struct frec_rec_fork, child_tgid, child_comm);
		if (nm)
			FIELD(data, struct frec_rec_fork, child_cgroup, nm->b_cgroup);
		break;
	case FREC_EV_PROCESS_EXEC:
		FIELD(data, struct frec_rec_exec, pid, ev->exec.pid);
		FIELD(data, struct frec_rec_exec, old_pid, ev->exec.old_pid);
		ev->exec.filename = (const char *)data + offsetof(struct frec_rec_exec, filename);
		ev->exec.comm = (const char *)data + offsetof(struct frec_rec_exec, comm);
		break;
	case FREC_EV_PROCESS_EXIT:
		FIELD(data, struct frec_rec_exit, pid, ev->exit.pid);
		FIELD(data, struct frec_rec_exit, tgid, ev->exit.tgid);
		NAME_A(data, struct frec_rec_exit, pid, tgid, comm);
		break;
	case FREC_EV_TASK_RENAME:
		FIELD(data, struct frec_rec_rename, pid, ev->rename.pid);
		ev->rename.newcomm = (const char *)data + offsetof(struct frec_rec_rename, newcomm);
		/* The thread is named as it was: the rename is the event. */
		NAME_A(data, struct frec_rec_rename, pid, tgid, oldcomm);
		break;
	case FREC_EV_MIGRATE_TASK:
		FIELD(data, struct frec_rec_migrate, pid, ev->migrate.pid);
		FIELD(data, struct frec_rec_migrate, prio, ev->migrate.prio);
		FIELD(data, struct frec_rec_migrate, orig_cpu, ev->migrate.orig_cpu);
		FIELD(data, struct frec_rec_migrate, dest_cpu, ev->migrate.dest_cpu);
		NAME_A(data, struct frec_rec_migrate, pid, tgid, comm);
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		FIELD(data, struct frec_rec_probe, probe_id, ev->probe.probe_id);
		FIELD(data, struct frec_rec_probe, nargs, ev->probe.nargs);
		if (ev->probe.nargs > FREC_MAX_PROBE_ARGS)
			return -EINVAL;
		FIELD(data, struct frec_rec_probe, args, ev->probe.args);
		/* Unused slots are whatever the BPF side left: make them 0 so
		 * that a decoded event equals what the reader gives back. */
		for (__u32 i = ev->probe.nargs; i < FREC_MAX_PROBE_ARGS; i++)
			ev->probe.args[i] = 0;
		ev->probe.ret = 0;
		if (h.type == FREC_EV_URETPROBE)
			FIELD(data, struct frec_rec_probe, ret, ev->probe.ret);
		break;
	case FREC_EV_TRIGGER:
		/* The event's thread is the one the condition held for (for
		 * runq, the thread switched in), not the one current when it
		 * was measured: that is whom the snapshot is about. */
		FIELD(data, struct frec_rec_trigger, trigger_id, ev->trigger.id);
		if (!ev->trigger.id || ev->trigger.id > FREC_MAX_TRIGGERS)
			return -EINVAL;
		FIELD(data, struct frec_rec_trigger, pid, ev->tid);
		FIELD(data, struct frec_rec_trigger, tgid, ev->tgid);
		FIELD(data, struct frec_rec_trigger, flags, ev->trigger.flags);
		FIELD(data, struct frec_rec_trigger, value, ev->trigger.value);
		ev->trigger.count = 1;
		NAME_A(data, struct frec_rec_trigger, pid, tgid, comm);
		break;
	}
	return 0;
}

int frec_record__decode(const void *data, size_t len, struct frec_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	return record_decode(data, len, ev, NULL);
}
