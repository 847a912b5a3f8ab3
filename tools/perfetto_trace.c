// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Perfetto trace's trace-level packets (perfetto.h): what
 * trace_processor needs to read the rest right, written around the events.
 *
 *  - system_info with the utsname's sysname and release (the header's
 *    kernel_release): without a release trace_processor decodes prev_state
 *    with Linux 4.4's bits, in which 0x80 (idle) reads as K and 0x100
 *    (preempted) as W. frec stores the bits of 4.14 and later. The machine
 *    is not in the snapshot header: it is left out rather than guessed
 *    (trace_processor only uses it for syscall tables, which frec has none
 *    of);
 *  - a ClockSnapshot pairing BOOTTIME and REALTIME (the header's offset), so
 *    that the UI can show wall-clock time;
 *  - FtraceStats at the start and the end (phase START_OF_TRACE with zeros,
 *    END_OF_TRACE with the records lost on each CPU as dropped_events):
 *    trace_processor's stats table then shows the losses as
 *    ftrace_cpu_dropped_events_delta, an error, per CPU. Records lost on no
 *    known CPU are only in the bundles' lost_events.
 */
#include "perfetto.h"
#include "walk.h"

/* SystemInfo, Utsname */
#define SI_UTSNAME		1
#define SI_NUM_CPUS		8
#define UTS_SYSNAME		1
#define UTS_RELEASE		3
/* ClockSnapshot, ClockSnapshot.Clock, builtin clock ids */
#define CLS_CLOCKS		1
#define CLS_PRIMARY_CLOCK	2
#define CLK_ID			1
#define CLK_TIMESTAMP		2
#define CLOCK_REALTIME_ID	1
#define CLOCK_BOOTTIME_ID	6
/* FtraceStats, FtraceCpuStats */
#define FS_PHASE		1
#define FS_CPU_STATS		2
#define FCS_CPU			1
#define FCS_DROPPED_EVENTS	8

void pexport__system_info(struct pexport *x)
{
	const struct frec_header *h = frec_walk__header(x->ew.w);
	struct frec_pb *p = &x->pkt;

	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_SYSTEM_INFO);
	frec_pb__begin(p, SI_UTSNAME);
	frec_pb__string(p, UTS_SYSNAME, "Linux");
	if (h->kernel_release[0])
		frec_pb__strn(p, UTS_RELEASE, h->kernel_release, sizeof(h->kernel_release));
	frec_pb__end(p);
	if (h->ncpus)
		frec_pb__uint(p, SI_NUM_CPUS, h->ncpus);
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
}

/* BOOTTIME, the trace's clock, at t and REALTIME then: the header's offset. */
void pexport__clock_snapshot(struct pexport *x, __u64 t)
{
	const struct frec_header *h = frec_walk__header(x->ew.w);
	struct frec_pb *p = &x->pkt;
	__s64 real;

	if (!frec_walk__wall_ns(h, t, &real))
		return;		/* the UI shows boot time only */
	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_CLOCK_SNAPSHOT);
	frec_pb__begin(p, CLS_CLOCKS);
	frec_pb__uint(p, CLK_ID, CLOCK_BOOTTIME_ID);
	frec_pb__uint(p, CLK_TIMESTAMP, t);
	frec_pb__end(p);
	frec_pb__begin(p, CLS_CLOCKS);
	frec_pb__uint(p, CLK_ID, CLOCK_REALTIME_ID);
	frec_pb__uint(p, CLK_TIMESTAMP, (__u64)real);
	frec_pb__end(p);
	frec_pb__uint(p, CLS_PRIMARY_CLOCK, CLOCK_BOOTTIME_ID);
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
}

/* Records lost per CPU, where trace_processor's stats table shows them: the
 * difference between the END and START phases. */
void pexport__ftrace_stats(struct pexport *x, int phase, __u64 ts)
{
	const struct frec_header *h = frec_walk__header(x->ew.w);
	struct frec_pb *p = &x->pkt;
	/* at the start nothing is counted yet: the header's CPUs */
	__u32 cpu, n = frec_lost__ncpus(&x->lost, h);

	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
	frec_pb__begin(p, TP_FTRACE_STATS);
	frec_pb__uint(p, FS_PHASE, (__u64)phase);
	for (cpu = 0; cpu < n; cpu++) {
		frec_pb__begin(p, FS_CPU_STATS);
		frec_pb__uint(p, FCS_CPU, cpu);
		frec_pb__uint(p, FCS_DROPPED_EVENTS,
			      phase == FS_END_OF_TRACE ? frec_lost__cpu(&x->lost, cpu) : 0);
		frec_pb__end(p);
	}
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
}
