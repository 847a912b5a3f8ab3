// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A generation's event stream (docs/FORMAT.md, "Events"), decoded one event
 * at a time: the time deltas, the per-CPU running thread, the names that
 * exec and rename change as the stream goes, extended types skipped when
 * unknown. An invalid event ends the generation (-EBADMSG). Called by the
 * reader's user, one thread at a time (see reader.c).
 */
#include <errno.h>
#include <string.h>
#include <frec/snapshot.h>
#include "format.h"
#include "reader_int.h"
#include "varint.h"

/* idx names a thread of the table: 0, or -1 when out of range. */
static int thread_at(struct frec_gen *g, uint64_t idx)
{
	if (idx >= g->info.nthreads)
		return -1;
	/* A tid named twice (pid reuse): lookups follow the latest mention. */
	if (g->dup[idx])
		*map_slot(&g->tmap, g->threads[idx].tid) = (uint32_t)idx;
	return 0;
}

static int thread_idx(struct frec_gen *g, const uint8_t **pp, const uint8_t *end, uint32_t *idx)
{
	if (get_varint32(pp, end, idx))
		return -1;
	return thread_at(g, *idx);
}

/* x, a switch's next or a waking's pid coded through cpu's recent threads
 * (format.h), as the thread index it stands for. */
static int recent_idx(struct frec_gen *g, uint32_t cpu, uint64_t x, uint32_t *idx)
{
	uint32_t *slots = g->recent + (size_t)cpu * RECENT_SLOTS;

	if (x < RECENT_SLOTS) {
		if (slots[x] == RECENT_NONE)
			return -1;
		*idx = slots[x];
	} else {
		x -= RECENT_SLOTS;
		if (x >= g->info.nthreads)
			return -1;
		*idx = (uint32_t)x;
		slots[x & (RECENT_SLOTS - 1)] = (uint32_t)x;
	}
	return thread_at(g, *idx);
}

/* A wide field x (format.h): v * (G + 1) + h. h = G is the escape, whose
 * cpu nibble (nib) must be 0, and its v too for a time delta (the plain
 * one follows); else the cpu is h's group and the nibble. */
static int wide_split(uint64_t x, uint32_t groups, uint32_t nib, bool is_dts, uint64_t *v,
		      uint32_t *cpu, bool *esc)
{
	uint32_t h = (uint32_t)(x % ((uint64_t)groups + 1));

	*v = x / ((uint64_t)groups + 1);
	*esc = h == groups;
	if (*esc)
		return nib || (is_dts && *v) ? -1 : 0;
	*cpu = h << EV_CPU_GROUP_SHIFT | nib;
	return 0;
}

#define TIDX(x)	do { if (thread_idx(g, &p, end, &(x))) return -1; } while (0)
#define EV32(x) do { if (get_varint32(&p, end, &(x))) return -1; } while (0)
#define EV64(x) do { uint64_t v_; if (get_varint(&p, end, &v_)) return -1; (x) = v_; } while (0)

static int get_prio(const uint8_t **pp, const uint8_t *end, bool present, __s32 *prio)
{
	uint64_t v;
	int64_t s;

	if (!present) {
		*prio = DEFAULT_PRIO;
		return 0;
	}
	if (get_varint(pp, end, &v))
		return -1;
	s = unzigzag(v);
	if (s < INT32_MIN || s > INT32_MAX)
		return -1;
	*prio = (__s32)s;
	return 0;
}

static int get_stridx(struct frec_gen *g, const uint8_t **pp, const uint8_t *end, const char **s)
{
	uint32_t i;

	if (get_varint32(pp, end, &i) || i >= g->nstr)
		return -1;
	*s = g->strs[i];
	return 0;
}

static int ext_body(struct frec_event *ev, const uint8_t *p, const uint8_t *end);

/* 0: *ev is the next event; 1: an event of a type this reader does not
 * know was skipped; -1: the stream is damaged. */
static int decode_one(struct frec_gen *g, struct frec_event *ev)
{
	const uint8_t *p = g->p, *end = g->end;
	uint32_t type, cpu, info, ti = NONE, x, y, *cur, groups = g->cpu_groups;
	uint64_t v, w;
	bool esc;

	if (end - p < EV_MIN_BYTES)
		return -1;
	type = *p & EV_TYPE_MASK;
	cpu = *p++ >> EV_CPU_SHIFT;
	if (type == FREC_EV_NONE || (g->version < 2 && type > FREC_EV_LOST))
		return -1;
	if (!groups && cpu == EV_CPU_ESC)
		EV32(cpu);
	if (type == FREC_EV_ESCAPE) {
		EV32(type);
		if (type < EXT_TYPE_MIN)
			return -1;
	}
	EV64(v);
	if (groups) {
		/* wide: the time delta carries the cpu's high part */
		if (wide_split(v, groups, cpu, true, &v, &cpu, &esc))
			return -1;
		if (esc) {
			EV32(cpu);
			EV64(v);
		}
	}
	g->prev_ts += (uint64_t)unzigzag(v);
	if (p >= end)
		return -1;
	info = *p++;

	memset(ev, 0, sizeof(*ev));
	ev->ts = g->prev_ts;
	ev->type = type;
	ev->cpu = cpu;
	cur = cpu < g->info.ncpus ? &g->cur[cpu] : NULL;
	if ((type == FREC_EV_LOST || type >= EXT_TYPE_MIN) && (info & LOST_NOTHREAD)) {
		/* no thread */
	} else {
		if (info & INFO_T)
			TIDX(ti);
		else if (cur && *cur != NONE)
			ti = *cur;
		else
			return -1;
		ev->tid = g->threads[ti].tid;
		ev->tgid = g->threads[ti].tgid;
	}

	switch (type) {
	case FREC_EV_SCHED_SWITCH:
		x = ti;
		if (info & SW_PREV)
			TIDX(x);
		if (g->recent_on && cur) {
			EV64(w);
			if (recent_idx(g, cpu, w, &y))
				return -1;
		} else {
			TIDX(y);
		}
		ev->sw.prev_pid = g->threads[x].tid;
		ev->sw.next_pid = g->threads[y].tid;
		x = info >> SW_STATE_SHIFT;
		if (x == STATE_ESC)
			EV64(ev->sw.prev_state);
		else
			ev->sw.prev_state = state_value(x);
		if (get_prio(&p, end, info & SW_PREV_PRIO, &ev->sw.prev_prio) ||
		    get_prio(&p, end, info & SW_NEXT_PRIO, &ev->sw.next_prio))
			return -1;
		if (cur)
			*cur = y;
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		esc = false;
		if (groups) {
			/* wide: pid's index carries the target's high part */
			EV64(w);
			if (wide_split(w, groups, info >> WK_CPU_SHIFT, false, &w, &ev->wake.target_cpu, &esc))
				return -1;
			if (g->recent_on && !esc) {
				/* the writer escapes a target of C or more */
				if (ev->wake.target_cpu >= g->info.ncpus ||
				    recent_idx(g, ev->wake.target_cpu, w, &x))
					return -1;
			} else {
				if (thread_at(g, w))
					return -1;
				x = (uint32_t)w;
			}
		} else {
			TIDX(x);
			ev->wake.target_cpu = info >> WK_CPU_SHIFT;
			esc = ev->wake.target_cpu == EV_CPU_ESC;
		}
		ev->wake.pid = g->threads[x].tid;
		ev->wake.waker = ev->tid;
		if (info & WK_WAKER) {
			TIDX(y);
			ev->wake.waker = g->threads[y].tid;
		}
		if (get_prio(&p, end, info & WK_PRIO, &ev->wake.prio))
			return -1;
		if (esc)
			EV32(ev->wake.target_cpu);
		break;
	case FREC_EV_PROCESS_FORK:
		x = ti;
		if (info & FK_PARENT)
			TIDX(x);
		TIDX(y);
		ev->fork.parent_pid = g->threads[x].tid;
		ev->fork.child_pid = g->threads[y].tid;
		break;
	case FREC_EV_PROCESS_EXEC:
		TIDX(x);
		ev->exec.pid = g->threads[x].tid;
		EV32(ev->exec.old_pid);
		if (get_stridx(g, &p, end, &ev->exec.filename) ||
		    get_stridx(g, &p, end, &ev->exec.comm))
			return -1;
		set_comm(&g->threads[x], ev->exec.comm);
		break;
	case FREC_EV_PROCESS_EXIT:
		TIDX(x);
		ev->exit.pid = g->threads[x].tid;
		ev->exit.tgid = g->threads[x].tgid;
		if (info & EX_TGID)
			EV32(ev->exit.tgid);
		break;
	case FREC_EV_TASK_RENAME:
		TIDX(x);
		ev->rename.pid = g->threads[x].tid;
		if (get_stridx(g, &p, end, &ev->rename.newcomm))
			return -1;
		set_comm(&g->threads[x], ev->rename.newcomm);
		break;
	case FREC_EV_MIGRATE_TASK:
		TIDX(x);
		ev->migrate.pid = g->threads[x].tid;
		EV32(ev->migrate.orig_cpu);
		EV32(ev->migrate.dest_cpu);
		if (get_prio(&p, end, info & MG_PRIO, &ev->migrate.prio))
			return -1;
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		ev->probe.nargs = info >> PR_NARGS_SHIFT;
		if (ev->probe.nargs > FREC_MAX_PROBE_ARGS)
			return -1;
		EV32(ev->probe.probe_id);
		for (uint32_t i = 0; i < ev->probe.nargs; i++)
			EV64(ev->probe.args[i]);
		if (type == FREC_EV_URETPROBE) {
			EV64(v);
			ev->probe.ret = unzigzag(v);
		}
		break;
	case FREC_EV_LOST:
		EV64(ev->lost.count);
		if (info & LOST_UNKNOWN)
			ev->lost.flags |= FREC_LOST_UNKNOWN;
		if (info & LOST_SPAN) {
			ev->lost.flags |= FREC_LOST_SPAN;
			EV64(v);
			ev->lost.first_ts = ev->ts + (uint64_t)unzigzag(v);
			EV64(v);
			ev->lost.last_ts = ev->ts + (uint64_t)unzigzag(v);
		}
		break;
	case FREC_EV_STACK:
		/* Each index names a stack of its kind in section 4, or none. */
		EV32(ev->stack.kstack);
		EV32(ev->stack.ustack);
		if ((ev->stack.kstack && (ev->stack.kstack > g->info.nstacks ||
					  g->stks[ev->stack.kstack - 1].kind != FREC_STACK_KERNEL)) ||
		    (ev->stack.ustack && (ev->stack.ustack > g->info.nstacks ||
					  g->stks[ev->stack.ustack - 1].kind != FREC_STACK_USER)))
			return -1;
		break;
	default: {	/* an extended type: its body has a length */
		const uint8_t *body_end;

		EV32(x);
		if (x > (size_t)(end - p))
			return -1;
		body_end = p + x;
		if (ext_body(ev, p, body_end))
			return -1;
		if (ev->type == FREC_EV_CGROUP) {
			/* the moved thread, named: from now on in that cgroup */
			if (ti == NONE || !(info & INFO_T))	/* N, or cur[cpu] */
				return -1;
			g->threads[ti].cgroup = ev->cgroup.id;
		}
		p = body_end;
		break;
	}
	}
	g->p = p;
	return ev->type ? 0 : 1;
}

/* An extended type's body; an unknown type leaves ev->type 0: skipped. */
static int ext_body(struct frec_event *ev, const uint8_t *p, const uint8_t *end)
{
	uint64_t v;

	switch (ev->type) {
	case FREC_EV_TRIGGER:
		EV32(ev->trigger.id);
		EV32(ev->trigger.flags);
		EV64(ev->trigger.value);
		/* Drafts of version 2 ended the body here: one firing. */
		ev->trigger.count = 1;
		if (p < end)
			EV64(ev->trigger.count);
		break;
	case FREC_EV_GAP:
		EV32(ev->gap.kind);
		EV64(v);
		ev->gap.first_ts = ev->ts + (uint64_t)unzigzag(v);
		EV64(v);
		ev->gap.last_ts = ev->ts + (uint64_t)unzigzag(v);
		break;
	case FREC_EV_CGROUP:
		EV64(ev->cgroup.id);
		if (!ev->cgroup.id)
			return -1;
		break;
	default:
		ev->type = FREC_EV_NONE;
		return 0;
	}
	/* A longer body is a later writer's addition to a known type. */
	return 0;
}

int frec_gen__next_event(struct frec_gen *g, struct frec_event *ev)
{
	if (g->bad)
		return -EBADMSG;
	for (;;) {
		int ret;

		if (!g->left)
			return 0;
		ret = decode_one(g, ev);
		if (ret < 0) {
			g->bad = true;
			return -EBADMSG;
		}
		g->left--;
		if (!ret)
			return 1;
		g->info.nevents_skipped++;
	}
}
