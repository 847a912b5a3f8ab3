// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format perfetto: a Perfetto trace, hand-encoded (field
 * numbers in shared/DESIGN.md section 7 and Perfetto's protos/perfetto/trace).
 * This file is the driver; the packet writers are in the files perfetto.h
 * lists, each saying what trace_processor needs of its packets.
 *
 * First, what trace_processor needs to read the rest right: system_info,
 * a ClockSnapshot and the FtraceStats of the start (perfetto_trace.c). Then
 * per generation, in time order:
 *  - one ProcessTree packet at the generation's start naming every process
 *    and thread of its task table, and a TrackDescriptor labelling each
 *    process with its cgroup and container when first known
 *    (perfetto_tasks.c);
 *  - per CPU, FtraceEventBundles: sched_switch and sched_waking in the
 *    compact_sched arrays, the other scheduler and task events as full
 *    FtraceEvents; a bundle following lost records has lost_events set
 *    (perfetto_ftrace.c, perfetto_tasks.c);
 *  - probe hits, trigger firings and cgroup moves as TrackEvents on one
 *    track per thread (perfetto_slices.c);
 *  - the stacks of blocking switches as PerfSamples on the blocked thread,
 *    with sched_blocked_reason (perfetto_stacks.c).
 * Last, the calls still open and the FtraceStats of the end, with the
 * records lost on each CPU.
 *
 * No clock is set: Perfetto then takes timestamps as CLOCK_BOOTTIME, which is
 * what the BPF programs record.
 */
#include <errno.h>
#include <string.h>
#include "calls.h"
#include "out.h"
#include "perfetto.h"
#include "tools.h"
#include "walk.h"

void pexport__emit(struct pexport *x)
{
	if (x->pkt.err) {
		x->err = x->pkt.err;
	} else {
		frec_out__write(x->ew.o, x->pkt.buf, x->pkt.len);
		if (frec_out__error(x->ew.o))
			x->err = frec_out__error(x->ew.o);
	}
	frec_pb__reset(&x->pkt);
}

static int export_gen(struct pexport *x)
{
	const struct frec_event *ev;
	enum frec_chain_verdict v;
	struct frec_chain_run run;
	int rc;

	if ((rc = frec_export_walk__gen(&x->ew)))
		return rc;
	pexport__process_tree(x);
	pexport__process_labels(x);
	while (!x->err && (ev = frec_export_walk__next(&x->ew, &v, &run))) {
		switch (ev->type) {
		case FREC_EV_SCHED_SWITCH:
			pexport__switch(x, ev, v, &run);
			pexport__stacks_switch(x, ev);
			break;
		case FREC_EV_SCHED_WAKING:
			pexport__waking(x, ev);
			break;
		case FREC_EV_PROCESS_EXIT:
			pexport__task_event(x, ev);
			pexport__thread_exit(x, ev);
			break;
		case FREC_EV_PROCESS_EXEC:
			pexport__task_event(x, ev);
			pexport__forget_comm(x, ev->exec.pid);
			break;
		case FREC_EV_TASK_RENAME:
			pexport__task_event(x, ev);
			pexport__forget_comm(x, ev->rename.pid);
			break;
		case FREC_EV_PROCESS_FORK:
			pexport__task_event(x, ev);
			pexport__learn_parent(x, ev);
			/* a child the table did not name takes its parent's name */
			pexport__forget_comm(x, ev->fork.child_pid);
			break;
		case FREC_EV_SCHED_WAKEUP:
		case FREC_EV_SCHED_WAKEUP_NEW:
		case FREC_EV_MIGRATE_TASK:
			pexport__sched_event(x, ev);
			break;
		case FREC_EV_UPROBE:
		case FREC_EV_URETPROBE:
		case FREC_EV_USDT:
			pexport__probe(x, ev);
			break;
		case FREC_EV_LOST:
			pexport__lost(x, ev);
			break;
		case FREC_EV_GAP:
			pexport__gap(x, ev);
			break;
		case FREC_EV_TRIGGER:
			pexport__trigger(x, ev);
			break;
		case FREC_EV_CGROUP:
			pexport__cgroup_move(x, ev);
			break;
		default:
			break;
		}
	}
	/* memory stays bounded by one generation: flush every CPU */
	pexport__flush_all(x);
	if (!x->err)
		x->err = frec_chain__error(x->ew.chain);
	return x->err;
}

int frec_export_perfetto__run(const char *path, const struct frec_export_opts *opts, FILE *out,
			      FILE *err, struct frec_export_stats *st)
{
	struct pexport x;
	int rc;

	memset(&x, 0, sizeof(x));
	frec_pb__init(&x.pkt);
	frec_map__init(&x.tracks);
	frec_map__init(&x.seen);
	frec_map__init(&x.ppids);
	frec_map__init(&x.labeled);
	frec_lost__init(&x.lost);
	x.debug_dir = opts ? opts->debug_dir : NULL;
	rc = frec_export_walk__open(&x.ew, path, opts, out, err);
	if (rc > 0)
		return rc;
	if (!rc) {
		bool started = false;

		pexport__system_info(&x);
		while (!rc && frec_export_walk__next_gen(&x.ew) > 0) {
			if (!started) {
				__u64 t0 = frec_walk__gen_info(x.ew.w)->start_ts;

				started = true;
				pexport__clock_snapshot(&x, t0);
				pexport__ftrace_stats(&x, FS_START_OF_TRACE, t0);
				x.ew.last_ts = t0;
			}
			rc = export_gen(&x);
		}
		if (!rc) {
			pexport__open_calls(&x);
			rc = x.err;
		}
		if (!rc && started) {
			pexport__ftrace_stats(&x, FS_END_OF_TRACE, x.ew.last_ts);
			rc = x.err;
		}
	}
	pexport__bundles_free(&x);
	pexport__stacks_free(&x);
	frec_map__fini(&x.tracks);
	frec_map__fini(&x.seen);
	frec_map__fini(&x.ppids);
	frec_map__fini(&x.labeled);
	frec_lost__fini(&x.lost);
	frec_pb__fini(&x.pkt);
	return frec_export_walk__close(&x.ew, rc, path, err, st);
}
