// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks in the Perfetto export, for its flame graphs and thread states.
 *
 * Each blocking switch-out that has a stack (frec_walk__stacks()) becomes:
 *  - a PerfSample (TracePacket field 66) on the blocked thread at the
 *    switch's ts, on its own sequence SEQ_STACKS, whose callstack_iid names
 *    an interned Callstack (bottom frame first: the user frames from the
 *    outermost, then the kernel's) of interned Frames (function name,
 *    mapping, rel_pc) in interned Mappings (path, build-id as raw bytes, as
 *    trace_processor's build_ids want them; the kernel's frames are in the
 *    mapping "/kernel", which it treats as the kernel). Interned data goes
 *    in the packet that first needs it; the sequence's first packet clears
 *    its incremental state, and every one needs it. A frame frec could not
 *    name is the function "module+0xOFFSET" (frames.h), never a guess;
 *  - a sched_blocked_reason FtraceEvent in the CPU's bundle right after the
 *    switch, whose caller is the iid of an interned kernel symbol
 *    (InternedData.kernel_symbols, on SEQ_KERNEL, written before the
 *    bundle that uses it): the innermost named kernel frame that is not the
 *    scheduler's or the tracing's own. trace_processor puts it on the
 *    thread state the switch began as blocked_function. No named frame, no
 *    event: a raw address is never written.
 * Keys are interned by content for the whole trace, so the iids never
 * repeat with another meaning and the state is never cleared again.
 *
 * Field numbers: Perfetto's protos/perfetto/trace (trace_packet.proto,
 * interned_data/interned_data.proto, profiling/profile_common.proto and
 * profile_packet.proto, ftrace/ftrace_event.proto and sched.proto), in
 * tests/proto/frec_perfetto.proto.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "debugsym.h"
#include "frames.h"
#include "intern.h"
#include "offcpu.h"
#include "perfetto.h"
#include "walk.h"

#define TP_INTERNED_DATA	12
#define TP_PERF_SAMPLE		66
#define SEQ_NEEDS_INCREMENTAL_STATE	2
/* InternedData */
#define ID_FUNCTION_NAMES	5
#define ID_FRAMES		6
#define ID_CALLSTACKS		7
#define ID_BUILD_IDS		16
#define ID_MAPPING_PATHS	17
#define ID_MAPPINGS		19
#define ID_KERNEL_SYMBOLS	26
/* InternedString */
#define IS_IID			1
#define IS_STR			2
/* Mapping */
#define MP_IID			1
#define MP_BUILD_ID		2
#define MP_PATH_STRING_IDS	7
/* Frame */
#define FR_IID			1
#define FR_FUNCTION_NAME_ID	2
#define FR_MAPPING_ID		3
#define FR_REL_PC		4
/* Callstack */
#define CS_IID			1
#define CS_FRAME_IDS		2
/* PerfSample */
#define PS_CPU			1
#define PS_PID			2
#define PS_TID			3
#define PS_CALLSTACK_IID	4
/* FtraceEvent.sched_blocked_reason and its fields */
#define FE_SCHED_BLOCKED_REASON	18
#define SBR_PID			1
#define SBR_CALLER		2

#define LABEL_MAX		512
#define KEY_MAX			8192
#define MAX_FRAMES		(2 * FREC_MAX_STACK_DEPTH)

struct pstacks {
	struct frec_debugsym *ds;
	/* iid - 1 by content */
	struct frec_intern names, paths, build_ids, mappings, frames, callstacks, ksyms;
	bool seq_started;		/* SEQ_STACKS has cleared its state */
	bool kseq_started;		/* SEQ_KERNEL has, for kernel_symbols */
	struct frec_pb interned;	/* the InternedData of the packet being built */
	unsigned int ninterned;
};

static struct pstacks *stacks_of(struct pexport *x)
{
	if (!x->stacks) {
		x->stacks = calloc(1, sizeof(*x->stacks));
		if (x->stacks) {
			frec_pb__init(&x->stacks->interned);
			x->stacks->ds = frec_debugsym__new(x->debug_dir);
		}
		if (!x->stacks || !x->stacks->ds) {
			pexport__stacks_free(x);
			x->err = -ENOMEM;
		}
	}
	return x->stacks;
}

void pexport__stacks_free(struct pexport *x)
{
	struct pstacks *s = x->stacks;

	if (!s)
		return;
	frec_debugsym__free(s->ds);
	frec_intern__free(&s->names);
	frec_intern__free(&s->paths);
	frec_intern__free(&s->build_ids);
	frec_intern__free(&s->mappings);
	frec_intern__free(&s->frames);
	frec_intern__free(&s->callstacks);
	frec_intern__free(&s->ksyms);
	frec_pb__fini(&s->interned);
	free(s);
	x->stacks = NULL;
}

/* The iid of key in t; new ones are *added. 0 on ENOMEM (x->err). */
static __u64 iid_of(struct pexport *x, struct frec_intern *t, const char *key, bool *added)
{
	long i = frec_intern__get(t, key, added);

	if (i < 0) {
		x->err = -ENOMEM;
		*added = false;
		return 0;
	}
	return (__u64)i + 1;
}

static void interned_string(struct pstacks *s, __u32 field, __u64 iid, const void *p, size_t n)
{
	frec_pb__begin(&s->interned, field);
	frec_pb__uint(&s->interned, IS_IID, iid);
	frec_pb__bytes(&s->interned, IS_STR, p, n);
	frec_pb__end(&s->interned);
	s->ninterned++;
}

static __u64 string_iid(struct pexport *x, struct frec_intern *t, __u32 field, const char *str)
{
	struct pstacks *s = x->stacks;
	bool added;
	__u64 iid = iid_of(x, t, str, &added);

	if (added)
		interned_string(s, field, iid, str, strlen(str));
	return iid;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A build-id as trace_processor takes it: the raw bytes of the hex. */
static __u64 build_id_iid(struct pexport *x, const char *hex)
{
	struct pstacks *s = x->stacks;
	unsigned char raw[64];
	size_t n = 0;
	bool added;
	__u64 iid;

	for (; hex[0] && hex[1] && n < sizeof(raw); hex += 2) {
		int hi = hexval(hex[0]), lo = hexval(hex[1]);

		if (hi < 0 || lo < 0)
			return 0;
		raw[n++] = (unsigned char)(hi << 4 | lo);
	}
	if (!n || hex[0])
		return 0;
	iid = iid_of(x, &s->build_ids, hex - 2 * n, &added);
	if (added)
		interned_string(s, ID_BUILD_IDS, iid, raw, n);
	return iid;
}

static __u64 mapping_iid(struct pexport *x, const struct frec_frame *f)
{
	struct pstacks *s = x->stacks;
	const char *path = frec_frame__is_kernel(f) ? "kernel" : f->module ? f->module : "[unknown]";
	const char *bid = !frec_frame__is_kernel(f) && f->build_id ? f->build_id : "";
	char key[KEY_MAX];
	__u64 iid, path_iid, bid_iid = 0;
	bool added;

	snprintf(key, sizeof(key), "%s\n%s", path, bid);
	iid = iid_of(x, &s->mappings, key, &added);
	if (!added)
		return iid;
	/* one component: a full path (trace_processor drops the doubled '/') */
	path_iid = string_iid(x, &s->paths, ID_MAPPING_PATHS, path);
	if (bid[0])
		bid_iid = build_id_iid(x, bid);
	frec_pb__begin(&s->interned, ID_MAPPINGS);
	frec_pb__uint(&s->interned, MP_IID, iid);
	if (bid_iid)
		frec_pb__uint(&s->interned, MP_BUILD_ID, bid_iid);
	frec_pb__uint(&s->interned, MP_PATH_STRING_IDS, path_iid);
	frec_pb__end(&s->interned);
	s->ninterned++;
	return iid;
}

static __u64 frame_iid(struct pexport *x, const struct frec_frame *f)
{
	struct pstacks *s = x->stacks;
	char label[LABEL_MAX], key[KEY_MAX];
	__u64 iid, name_iid, map_iid;
	/* a kernel frame has no address: its offset into the function */
	__u64 rel_pc = frec_frame__is_kernel(f) ? f->sym_offset : f->file_offset;
	bool added;

	frec_frame__label(f, false, label, sizeof(label));
	snprintf(key, sizeof(key), "%s\n%s\n%s\n%llx", label, f->module ? f->module : "",
		 f->build_id ? f->build_id : "", (unsigned long long)rel_pc);
	iid = iid_of(x, &s->frames, key, &added);
	if (!added)
		return iid;
	name_iid = string_iid(x, &s->names, ID_FUNCTION_NAMES, label);
	map_iid = mapping_iid(x, f);
	frec_pb__begin(&s->interned, ID_FRAMES);
	frec_pb__uint(&s->interned, FR_IID, iid);
	frec_pb__uint(&s->interned, FR_FUNCTION_NAME_ID, name_iid);
	frec_pb__uint(&s->interned, FR_MAPPING_ID, map_iid);
	frec_pb__uint(&s->interned, FR_REL_PC, rel_pc);
	frec_pb__end(&s->interned);
	s->ninterned++;
	return iid;
}

/* The frames of k then u, innermost first, named through --debug-dir. */
static __u32 gather(struct pstacks *s, const struct frec_stack *k, const struct frec_stack *u,
		    struct frec_frame *out)
{
	__u32 n = 0;

	for (__u32 i = 0; k && i < k->nframes && n < MAX_FRAMES; i++)
		frec_frame__resolve(&k->frames[i], s->ds, &out[n++]);
	for (__u32 i = 0; u && i < u->nframes && n < MAX_FRAMES; i++)
		frec_frame__resolve(&u->frames[i], s->ds, &out[n++]);
	return n;
}

static __u64 callstack_iid(struct pexport *x, const struct frec_frame *fr, __u32 n)
{
	struct pstacks *s = x->stacks;
	__u64 ids[MAX_FRAMES], iid;
	char key[MAX_FRAMES * 17 + 1];
	size_t len = 0;
	bool added;

	/* bottom frame first: the outermost */
	for (__u32 i = 0; i < n; i++) {
		ids[i] = frame_iid(x, &fr[n - 1 - i]);
		len += (size_t)snprintf(key + len, sizeof(key) - len, "%llx,",
					(unsigned long long)ids[i]);
	}
	key[len] = '\0';
	iid = iid_of(x, &s->callstacks, key, &added);
	if (!added)
		return iid;
	frec_pb__begin(&s->interned, ID_CALLSTACKS);
	frec_pb__uint(&s->interned, CS_IID, iid);
	/* proto2 repeated, not packed: one field per frame */
	for (__u32 i = 0; i < n; i++)
		frec_pb__uint(&s->interned, CS_FRAME_IDS, ids[i]);
	frec_pb__end(&s->interned);
	s->ninterned++;
	return iid;
}

/* The interned data gathered so far, as the current packet's field. */
static void put_interned(struct pexport *x)
{
	struct pstacks *s = x->stacks;

	if (!s->ninterned)
		return;
	frec_pb__begin(&x->pkt, TP_INTERNED_DATA);
	frec_pb__reserve(&x->pkt, s->interned.len);
	if (!x->pkt.err && !s->interned.err) {
		memcpy(x->pkt.buf + x->pkt.len, s->interned.buf, s->interned.len);
		x->pkt.len += s->interned.len;
	} else if (s->interned.err) {
		x->err = s->interned.err;
	}
	frec_pb__end(&x->pkt);
	frec_pb__reset(&s->interned);
	s->ninterned = 0;
}

static void perf_sample(struct pexport *x, const struct frec_event *ev, __u64 cs)
{
	struct pstacks *s = x->stacks;
	struct frec_pb *p = &x->pkt;
	__u32 tid = ev->sw.prev_pid;

	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, ev->ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_STACKS);
	frec_pb__uint(p, TP_SEQ_FLAGS, (s->seq_started ? 0 : SEQ_INCREMENTAL_STATE_CLEARED) |
			      SEQ_NEEDS_INCREMENTAL_STATE);
	s->seq_started = true;
	put_interned(x);
	frec_pb__begin(p, TP_PERF_SAMPLE);
	frec_pb__uint(p, PS_CPU, ev->cpu);
	frec_pb__uint(p, PS_PID, frec_walk__tgid(x->ew.w, tid));
	frec_pb__uint(p, PS_TID, tid);
	frec_pb__uint(p, PS_CALLSTACK_IID, cs);
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
}

/* The scheduler's and the tracing's own frames say nothing of why. */
static bool sched_frame(const char *sym)
{
	static const char *const prefixes[] = {
		"bpf_", "__bpf_", "__traceiter_", "trace_", "__trace_", "perf_trace_",
		"__switch_to", "finish_task_switch", "__cond_resched", "preempt_",
	};

	if (strstr(sym, "schedule"))
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* sched_blocked_reason of the blocked thread, its caller interned on
 * SEQ_KERNEL first. */
static void blocked_reason(struct pexport *x, const struct frec_event *ev,
			   const struct frec_stack *k)
{
	struct pstacks *s = x->stacks;
	const char *caller = NULL;
	struct frec_pb *e;
	__u64 iid;
	bool added;

	for (__u32 i = 0; k && i < k->nframes && !caller; i++)
		if (k->frames[i].sym && !sched_frame(k->frames[i].sym))
			caller = k->frames[i].sym;
	if (!caller)
		return;
	iid = iid_of(x, &s->ksyms, caller, &added);
	if (!iid)
		return;
	if (added) {
		struct frec_pb *p = &x->pkt;

		frec_pb__begin(p, TRACE_PACKET);
		frec_pb__uint(p, TP_SEQ_ID, SEQ_KERNEL);
		if (!s->kseq_started)
			frec_pb__uint(p, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		s->kseq_started = true;
		frec_pb__begin(p, TP_INTERNED_DATA);
		frec_pb__begin(p, ID_KERNEL_SYMBOLS);
		frec_pb__uint(p, IS_IID, iid);
		frec_pb__string(p, IS_STR, caller);
		frec_pb__end(p);
		frec_pb__end(p);
		frec_pb__end(p);
		pexport__emit(x);
	}
	e = pexport__event_begin(x, ev->cpu, ev->ts, ev->sw.prev_pid);
	if (!e)
		return;
	frec_pb__begin(e, FE_SCHED_BLOCKED_REASON);
	frec_pb__int(e, SBR_PID, (__s32)ev->sw.prev_pid);
	frec_pb__uint(e, SBR_CALLER, iid);
	pexport__event_end(x, ev->cpu);	/* ends both messages */
	pexport__event_done(x, ev->cpu);
}

void pexport__stacks_switch(struct pexport *x, const struct frec_event *ev)
{
	struct frec_frame fr[MAX_FRAMES];
	const struct frec_stack *k, *u;
	struct pstacks *s;
	__u64 cs;
	__u32 n;

	if (!ev->sw.prev_pid || !frec_offcpu__blocking(ev->sw.prev_state) ||
	    !frec_walk__stacks(x->ew.w, &k, &u) || !(s = stacks_of(x)))
		return;
	blocked_reason(x, ev, k);
	n = gather(s, k, u, fr);
	if (!n)
		return;
	cs = callstack_iid(x, fr, n);
	if (cs)
		perf_sample(x, ev, cs);
}
