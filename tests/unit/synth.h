/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Synthetic recordings for tests, built through the core library: ring
 * records pushed into a recorder exactly as frecd pushes them, random event
 * streams, snapshots of known content written to a temporary directory, and
 * event comparison. Header-only (static functions), include it from any
 * tests/unit/test_*.c; it needs only the core API and cmocka.
 *
 *   synth_tmpdir(dir)                 mkdtemp a directory, synth_rmdir() removes it
 *   synth_recorder(ncpus)             a recorder with test-friendly options
 *   synth_tables_recorder(t, p)       2 CPUs, 1 ms seals, at most t threads and
 *                                     p processes: for the task tables' upkeep
 *   synth_compress_level              set it to 1-9 to deflate the blocks of the
 *                                     files synth_write() writes (default 0: stored;
 *                                     synth_deflate.h)
 *   synth_switch/_wake/_fork/_exec/_exit/_rename/_migrate/_probe(rec, ...)
 *                                     push one ring record of that type
 *   synth_switch_cg/_fork_cg(rec, ..., cgroup)
 *                                     the same with next's or the child's cgroup id
 *   synth_cgroup(rec, ts, cpu, tid, tgid, id)
 *                                     push_event() a FREC_EV_CGROUP
 *   synth_namer / synth_cgroup_namer(&ctx) a fake cgroup namer, rules below
 *   synth_stack(rec, ts, cpu, tid, tgid, kips, kn, uips, un, flags)
 *                                     push a stack record (kn kernel then un user
 *                                     addresses); synth_stack_record() only builds it
 *   synth_sym / synth_symbolizer(&ctx) a fake symbolizer, rules below
 *   synth_offcpu_snapshot(dir, name)  a thread blocking in a known stack, below
 *   synth_write(rec, dir, name, now)  seal, pin, write dir/name, unpin
 *   synth_known_snapshot(dir, name)   write the snapshot described below
 *   synth_rand_event(st, ev)          a random event over a fixed thread set
 *   synth_event_eq(a, b)              every field of the type, strings by value
 *
 * synth_known_snapshot() writes two generations on 2 CPUs. Generation 1
 * (events at 1000000000 + n * 1000 ns, sealed at 1000010000):
 *   cpu0 sched_switch  swapper/0 (0) -> worker (101, tgid 100), prev_state 0
 *   cpu0 sched_waking  worker wakes helper (102, tgid 100) target_cpu 1
 *   cpu1 sched_switch  swapper/1 (0) -> helper (102), prev_state 0
 *   cpu0 sched_switch  worker -> swapper/0, prev_state 1 (S)
 *   cpu1 uprobe        helper, probe 1 "uprobe:/bin/app:handle", args {7, 8}
 *   cpu1 uretprobe     helper, probe 2 "uretprobe:/bin/app:handle", ret -5
 *   cpu1 sched_process_fork  helper forks 103 (tgid 103, "child")
 *   cpu1 sched_process_exec  103 execs "/bin/true" (comm "true")
 * Generation 2 (events at 1001000000 + n * 1000, sealed at 1001010000):
 *   cpu0 sched_switch  swapper/0 -> true (103), prev_state 0
 *   cpu0 task_rename   103 -> "renamed"
 *   cpu0 sched_process_exit  103 (tgid 103)
 *   frec_recorder__add_lost(cpu 1, 3 records)
 * Process 100 has cmdline "app --serve". Header reason "synth".
 */
#ifndef FREC_TEST_SYNTH_H
#define FREC_TEST_SYNTH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <frec/recorder.h>
#include <frec/snapshot.h>
#include <frec/cgroup.h>
#include "synth_deflate.h"

#define SYNTH_KNOWN_EVENTS	12
#define SYNTH_KNOWN_GENS	2

static inline int synth_tmpdir(char dir[64])
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, 64, "%s/frec-test.XXXXXX", base && strlen(base) < 40 ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static inline void synth_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static unsigned synth_compress_level;
/* synth_write() writes zstd blocks, as frecd --compress zstd does */
static bool synth_zstd;

/* min_age 10 s, max_bytes 1 MiB, period 1 s, 4 KiB chunks. */
static inline struct frec_recorder *synth_recorder(unsigned ncpus)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 1 << 20,
		.chunk_bytes = 4096,
		.ncpus = ncpus,
		.max_threads = 4096,
		.max_processes = 1024,
	};

	return frec_recorder__new(&o);
}

/* 2 CPUs, max_bytes 1 MiB, 4 KiB chunks, a period of 1 ms and min_age 2 ms
 * (seals come fast, entries age out fast), at most max_threads threads and
 * max_procs processes. */
static inline struct frec_recorder *synth_tables_recorder(__u32 max_threads, __u32 max_procs)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 1 << 20,
		.chunk_bytes = 4096,
		.ncpus = 2,
		.min_age_ns = 2000000,
		.period_ns = 1000000,
		.max_threads = max_threads,
		.max_processes = max_procs,
	};

	return frec_recorder__new(&o);
}

static inline void synth_hdr(struct frec_rec_hdr *h, __u64 ts, __u32 cpu, __u32 tid, __u32 tgid,
			     __u16 type, __u32 size)
{
	h->ts = ts;
	h->cpu = (__u16)cpu;
	h->tid = tid;
	h->tgid = tgid;
	h->type = type;
	h->size = size;
}

static inline void synth_comm(char *dst, const char *src)
{
	memset(dst, 0, FREC_COMM_LEN);
	strncpy(dst, src, FREC_COMM_LEN - 1);
}

/* A switch whose record shows next's cgroup id (0: not read). */
static inline int synth_switch_cg(struct frec_recorder *rec, __u64 ts, __u32 cpu,
				  __u32 prev, __u32 prev_tgid, const char *prev_comm,
				  __u64 prev_state, __u32 next, __u32 next_tgid,
				  const char *next_comm, __u64 next_cgroup)
{
	struct frec_rec_switch r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, prev, prev_tgid, FREC_EV_SCHED_SWITCH, sizeof(r));
	r.prev_pid = prev;
	r.prev_tgid = prev_tgid;
	r.next_pid = next;
	r.next_tgid = next_tgid;
	r.prev_prio = 120;
	r.next_prio = 120;
	r.prev_state = prev_state;
	synth_comm(r.prev_comm, prev_comm);
	synth_comm(r.next_comm, next_comm);
	r.next_cgroup = next_cgroup;
	return frec_recorder__push(rec, &r, sizeof(r));
}

static inline int synth_switch(struct frec_recorder *rec, __u64 ts, __u32 cpu,
			       __u32 prev, __u32 prev_tgid, const char *prev_comm, __u64 prev_state,
			       __u32 next, __u32 next_tgid, const char *next_comm)
{
	return synth_switch_cg(rec, ts, cpu, prev, prev_tgid, prev_comm, prev_state, next,
			       next_tgid, next_comm, 0);
}

/* type: FREC_EV_SCHED_WAKING, _WAKEUP or _WAKEUP_NEW; the waker is tid. */
static inline int synth_wake(struct frec_recorder *rec, __u16 type, __u64 ts, __u32 cpu,
			     __u32 tid, __u32 tgid, __u32 pid, __u32 pid_tgid, const char *comm,
			     __u32 target_cpu)
{
	struct frec_rec_wake r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, tid, tgid, type, sizeof(r));
	r.pid = pid;
	r.tgid = pid_tgid;
	r.prio = 120;
	r.target_cpu = (__s32)target_cpu;
	synth_comm(r.comm, comm);
	return frec_recorder__push(rec, &r, sizeof(r));
}

/* A fork whose record shows the child's cgroup id (0: not read). */
static inline int synth_fork_cg(struct frec_recorder *rec, __u64 ts, __u32 cpu,
				__u32 parent, __u32 parent_tgid, const char *parent_comm,
				__u32 child, __u32 child_tgid, const char *child_comm,
				__u64 child_cgroup)
{
	struct frec_rec_fork r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, parent, parent_tgid, FREC_EV_PROCESS_FORK, sizeof(r));
	r.parent_pid = parent;
	r.parent_tgid = parent_tgid;
	r.child_pid = child;
	r.child_tgid = child_tgid;
	synth_comm(r.parent_comm, parent_comm);
	synth_comm(r.child_comm, child_comm);
	r.child_cgroup = child_cgroup;
	return frec_recorder__push(rec, &r, sizeof(r));
}

static inline int synth_fork(struct frec_recorder *rec, __u64 ts, __u32 cpu,
			     __u32 parent, __u32 parent_tgid, const char *parent_comm,
			     __u32 child, __u32 child_tgid, const char *child_comm)
{
	return synth_fork_cg(rec, ts, cpu, parent, parent_tgid, parent_comm, child, child_tgid,
			     child_comm, 0);
}

/* frec_recorder__push_event() of a FREC_EV_CGROUP: tid is in cgroup id
 * from ts on (a move if the recorder knew another one). */
static inline int synth_cgroup(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 tid,
			       __u32 tgid, __u64 id)
{
	struct frec_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = FREC_EV_CGROUP;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.tid = tid;
	ev.tgid = tgid;
	ev.cgroup.id = id;
	return frec_recorder__push_event(rec, &ev);
}

/*
 * A fake cgroup namer: id i (1 <= i < 64) is "/synth.slice/cg-<i>.scope",
 * and odd ones name container <i> in 64 hex digits; ids from 64 on are
 * unknown (-ENOENT). It counts its calls, and seen() keeps the ids it is
 * told, in order.
 */
struct synth_namer {
	unsigned seen_calls, name_calls;
	__u64 seen[64];
	char path[64], cont[FREC_CONTAINER_ID_LEN];
	/* late_id (not 0) is not named the first time it is asked: a cgroup
	 * frecd's resolver had not named by that seal */
	__u64 late_id;
	bool late_asked;
};

static inline void synth_namer_seen(void *ctx, __u64 id)
{
	struct synth_namer *n = ctx;

	if (n->seen_calls < 64)
		n->seen[n->seen_calls] = id;
	n->seen_calls++;
}

static inline int synth_namer_name(void *ctx, __u64 id, const char **path, const char **cont)
{
	struct synth_namer *n = ctx;

	n->name_calls++;
	if (!id || id >= 64)
		return -ENOENT;
	if (id == n->late_id && !n->late_asked) {
		n->late_asked = true;
		return -ENOENT;
	}
	snprintf(n->path, sizeof(n->path), "/synth.slice/cg-%llu.scope", (unsigned long long)id);
	if (id & 1)
		snprintf(n->cont, sizeof(n->cont), "%064llx", (unsigned long long)id);
	else
		n->cont[0] = '\0';
	*path = n->path;
	*cont = n->cont;
	return 0;
}

static inline struct frec_cgroup_namer synth_cgroup_namer(struct synth_namer *ctx)
{
	struct frec_cgroup_namer n = {
		.ctx = ctx,
		.seen = synth_namer_seen,
		.name = synth_namer_name,
	};

	return n;
}

static inline int synth_exec(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 pid,
			     __u32 old_pid, const char *comm, const char *filename)
{
	struct frec_rec_exec r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, pid, pid, FREC_EV_PROCESS_EXEC, sizeof(r));
	r.pid = pid;
	r.old_pid = old_pid;
	synth_comm(r.comm, comm);
	strncpy(r.filename, filename, FREC_FILENAME_LEN - 1);
	return frec_recorder__push(rec, &r, sizeof(r));
}

static inline int synth_exit(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 pid,
			     __u32 tgid, const char *comm)
{
	struct frec_rec_exit r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, pid, tgid, FREC_EV_PROCESS_EXIT, sizeof(r));
	r.pid = pid;
	r.tgid = tgid;
	r.prio = 120;
	synth_comm(r.comm, comm);
	return frec_recorder__push(rec, &r, sizeof(r));
}

static inline int synth_rename(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 pid,
			       __u32 tgid, const char *oldcomm, const char *newcomm)
{
	struct frec_rec_rename r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, pid, tgid, FREC_EV_TASK_RENAME, sizeof(r));
	r.pid = pid;
	r.tgid = tgid;
	synth_comm(r.oldcomm, oldcomm);
	synth_comm(r.newcomm, newcomm);
	return frec_recorder__push(rec, &r, sizeof(r));
}

static inline int synth_migrate(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 tid,
				__u32 tgid, __u32 pid, __u32 pid_tgid, const char *comm,
				__u32 orig_cpu, __u32 dest_cpu)
{
	struct frec_rec_migrate r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, tid, tgid, FREC_EV_MIGRATE_TASK, sizeof(r));
	r.pid = pid;
	r.tgid = pid_tgid;
	r.prio = 120;
	r.orig_cpu = orig_cpu;
	r.dest_cpu = dest_cpu;
	synth_comm(r.comm, comm);
	return frec_recorder__push(rec, &r, sizeof(r));
}

/* type: FREC_EV_UPROBE, _URETPROBE or _USDT. */
static inline int synth_probe(struct frec_recorder *rec, __u16 type, __u64 ts, __u32 cpu,
			      __u32 tid, __u32 tgid, __u32 probe_id, __u32 nargs,
			      const __u64 *args, __s64 ret)
{
	struct frec_rec_probe r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, tid, tgid, type, sizeof(r));
	r.probe_id = probe_id;
	r.nargs = nargs;
	for (__u32 i = 0; i < nargs && i < FREC_MAX_PROBE_ARGS; i++)
		r.args[i] = args[i];
	r.ret = ret;
	return frec_recorder__push(rec, &r, sizeof(r));
}

/* A trigger's ring record: current thread tid/tgid, subject pid/ptgid/comm. */
static inline int synth_trigger(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 tid,
				__u32 tgid, __u32 id, __u32 pid, __u32 ptgid, const char *comm,
				__u64 value)
{
	struct frec_rec_trigger r;

	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, ts, cpu, tid, tgid, FREC_EV_TRIGGER, sizeof(r));
	r.trigger_id = id;
	r.pid = pid;
	r.tgid = ptgid;
	r.value = value;
	synth_comm(r.comm, comm);
	return frec_recorder__push(rec, &r, sizeof(r));
}

/* A stack record in buf (at least SYNTH_STACK_REC_MAX bytes, 8-aligned):
 * its length. kn and un up to FREC_MAX_STACK_DEPTH. */
#define SYNTH_STACK_REC_MAX (sizeof(struct frec_rec_stack) + 16 * FREC_MAX_STACK_DEPTH)

static inline size_t synth_stack_record(void *buf, __u64 ts, __u32 cpu, __u32 tid, __u32 tgid,
					const __u64 *kips, __u32 kn, const __u64 *uips, __u32 un,
					__u32 flags)
{
	struct frec_rec_stack *r = buf;
	size_t n = sizeof(*r) + 8 * (size_t)(kn + un);

	memset(r, 0, sizeof(*r));
	synth_hdr(&r->h, ts, cpu, tid, tgid, FREC_EV_STACK, (__u32)n);
	r->kframes = (__u16)kn;
	r->uframes = (__u16)un;
	r->flags = flags;
	if (kn)
		memcpy(r->ips, kips, 8 * (size_t)kn);
	if (un)
		memcpy(r->ips + kn, uips, 8 * (size_t)un);
	return n;
}

static inline int synth_stack(struct frec_recorder *rec, __u64 ts, __u32 cpu, __u32 tid,
			      __u32 tgid, const __u64 *kips, __u32 kn, const __u64 *uips,
			      __u32 un, __u32 flags)
{
	_Alignas(8) unsigned char buf[SYNTH_STACK_REC_MAX];
	size_t n = synth_stack_record(buf, ts, cpu, tid, tgid, kips, kn, uips, un, flags);

	return frec_recorder__push(rec, buf, n);
}

/*
 * A fake symbolizer with fixed rules, for stacks in tests:
 *   kernel: ip >= SYNTH_KBASE is named "k_<ip >> 12 in hex>", sym_offset
 *           ip & 0xfff; anything lower is not named.
 *   user:   [SYNTH_APP, +1 MiB) is "/bin/app" (build-id "b1ab"), file offset
 *           ip - SYNTH_APP, named "app_<ip >> 8 in hex>" with sym_offset
 *           ip & 0xff, except addresses with bit 7 set, which are not named;
 *           [SYNTH_LIBC, +1 MiB) is "/lib/libc.so.6" (no build-id), named
 *           "libc_<ip >> 8 in hex>"; anything else: no mapping known.
 *           With image > 0 the app is "/bin/app.<image>" instead. Besides,
 *           SYNTH_FN(i) + off (i < 4: "inner", "middle", "outer", "main")
 *           and SYNTH_KFN(i) + off (i < 4: "schedule", "do_nanosleep",
 *           "hrtimer_nanosleep", "__x64_sys_nanosleep"), off < 0x1000, are
 *           named so, with sym_offset off (file offset: ip - SYNTH_APP).
 *   image:  images[tgid % 8] (a test bumps it for an exec).
 * Names live in one buffer overwritten by every call, as a real symbolizer
 * may do: the recorder must copy them.
 */
#define SYNTH_KBASE	0xffffffff81000000ull
#define SYNTH_APP	0x400000ull
#define SYNTH_LIBC	0x7f0000000000ull
#define SYNTH_FN(i)	(SYNTH_APP + 0x10000ull + 0x1000ull * (i))
#define SYNTH_KFN(i)	(SYNTH_KBASE + 0x100000ull + 0x1000ull * (i))

static const char *const synth_fn_names[4] = { "inner", "middle", "outer", "main" };
static const char *const synth_kfn_names[4] = { "schedule", "do_nanosleep", "hrtimer_nanosleep",
						"__x64_sys_nanosleep" };

struct synth_sym {
	__u64 images[8];
	unsigned image_calls, kernel_calls, user_calls;
	struct frec_image_id last_id;	/* image()'s latest */
	char name[64], path[64];
};

static inline __u64 synth_sym_image(void *ctx, __u32 tgid, const struct frec_image_id *id,
				    __u64 ts)
{
	struct synth_sym *s = ctx;

	(void)ts;
	s->image_calls++;
	s->last_id = *id;
	return s->images[tgid % 8];
}

static inline int synth_sym_kernel(void *ctx, __u64 ip, const char **sym, __u64 *off)
{
	struct synth_sym *s = ctx;

	s->kernel_calls++;
	if (ip < SYNTH_KBASE)
		return -ENOENT;
	if (ip >= SYNTH_KFN(0) && ip < SYNTH_KFN(4)) {
		*sym = synth_kfn_names[(ip - SYNTH_KFN(0)) >> 12];
		*off = ip & 0xfff;
		return 0;
	}
	snprintf(s->name, sizeof(s->name), "k_%llx", (unsigned long long)(ip >> 12));
	*sym = s->name;
	*off = ip & 0xfff;
	return 0;
}

static inline int synth_sym_user(void *ctx, __u32 tgid, __u64 image, __u64 ip,
				 struct frec_user_frame *out)
{
	struct synth_sym *s = ctx;

	(void)tgid;
	s->user_calls++;
	memset(out, 0, sizeof(*out));
	if (ip >= SYNTH_APP && ip < SYNTH_APP + (1 << 20)) {
		if (image)
			snprintf(s->path, sizeof(s->path), "/bin/app.%llu", (unsigned long long)image);
		else
			snprintf(s->path, sizeof(s->path), "/bin/app");
		out->path = s->path;
		out->build_id = "b1ab";
		out->file_offset = ip - SYNTH_APP;
		if (ip >= SYNTH_FN(0) && ip < SYNTH_FN(4)) {
			out->sym = synth_fn_names[(ip - SYNTH_FN(0)) >> 12];
			out->sym_offset = ip & 0xfff;
		} else if (!(ip & 0x80)) {
			snprintf(s->name, sizeof(s->name), "app_%llx", (unsigned long long)(ip >> 8));
			out->sym = s->name;
			out->sym_offset = ip & 0xff;
		}
		return 0;
	}
	if (ip >= SYNTH_LIBC && ip < SYNTH_LIBC + (1 << 20)) {
		snprintf(s->path, sizeof(s->path), "/lib/libc.so.6");
		out->path = s->path;
		out->build_id = "";
		out->file_offset = ip - SYNTH_LIBC;
		snprintf(s->name, sizeof(s->name), "libc_%llx", (unsigned long long)(ip >> 8));
		out->sym = s->name;
		out->sym_offset = ip & 0xff;
		return 0;
	}
	return -ENOENT;
}

static inline struct frec_symbolizer synth_symbolizer(struct synth_sym *ctx)
{
	struct frec_symbolizer s = {
		.ctx = ctx,
		.image = synth_sym_image,
		.kernel = synth_sym_kernel,
		.user = synth_sym_user,
	};

	return s;
}

/* Seal at now, pin, write dir/name (reason "synth"), unpin: 0 or -errno. */
/*
 * Off-CPU time in a known stack, named through synth_symbolizer(), on 2
 * CPUs, one generation (t = 4 s, sealed at t + 300 ms):
 *   t + i x 25 ms, i = 0..9: cpu0 swapper/0 -> sleeper (401, tgid 400);
 *     2 ms later sleeper blocks (S) -> swapper/0, with the kernel stack
 *     schedule+0x10, do_nanosleep+0x20, hrtimer_nanosleep+0x30,
 *     __x64_sys_nanosleep+0x40 and the user stack inner+0x8, middle+0x18,
 *     outer+0x28, main+0x38 ("/bin/app", build-id "b1ab"); 20 ms later
 *     cpu1 swapper/1 wakes it (sched_waking, target cpu 0).
 *   t + 250 ms: cpu0 swapper/0 -> sleeper; t + 251 ms sleeper is
 *     preempted (R) by worker (402, tgid 400): no stack; t + 252 ms worker
 *     blocks (D) with the kernel stack schedule+0x10 only (its user
 *     capture failed); t + 252.5 ms cpu1 swapper/1 -> sleeper, and at
 *     t + 253 ms its uprobe 1 ("uprobe:/bin/app:main") hit carries the
 *     user stack main+0x38;
 *   t + 260 ms sleeper exits (sched_process_exit, cpu1).
 * So sleeper was off the CPU 10 x 23 ms = 230 ms in one stack pair (stacks
 * 1 and 2), worker's kernel stack is stack 3, the probe's user stack 4.
 * Process 400 has cmdline "app --sleep". The header has both stack flags.
 */
#define SYNTH_OFFCPU_T		4000000000ull
#define SYNTH_OFFCPU_BLOCKS	10
#define SYNTH_OFFCPU_BLOCK_NS	23000000ull

static inline int synth_offcpu_snapshot(const char *dir, const char *name)
{
	static const struct frec_probe_info probe = {
		.id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:main",
		.path = "/bin/app", .func = "main", .build_id = "b1ab",
	};
	const __u64 t = SYNTH_OFFCPU_T, ms = 1000000;
	const __u64 k[4] = { SYNTH_KFN(0) + 0x10, SYNTH_KFN(1) + 0x20, SYNTH_KFN(2) + 0x30,
			     SYNTH_KFN(3) + 0x40 };
	const __u64 u[4] = { SYNTH_FN(0) + 0x8, SYNTH_FN(1) + 0x18, SYNTH_FN(2) + 0x28,
			     SYNTH_FN(3) + 0x38 };
	struct frec_recorder *rec = synth_recorder(2);
	struct synth_sym ctx;
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	int err = 0;

	if (!rec)
		return -1;
	memset(&ctx, 0, sizeof(ctx));
	frec_recorder__set_symbolizer(rec, &sym);
	frec_recorder__set_probes(rec, &probe, 1);
	frec_recorder__set_cmdline(rec, 400, "app --sleep");
	frec_recorder__tick(rec, t);
	for (unsigned i = 0; i < SYNTH_OFFCPU_BLOCKS && !err; i++) {
		__u64 b = t + i * 25 * ms;

		err = synth_switch(rec, b, 0, 0, 0, "swapper/0", 0, 401, 400, "sleeper") ||
		      synth_switch(rec, b + 2 * ms, 0, 401, 400, "sleeper", 1, 0, 0, "swapper/0") ||
		      synth_stack(rec, b + 2 * ms, 0, 401, 400, k, 4, u, 4, 0) ||
		      synth_wake(rec, FREC_EV_SCHED_WAKING, b + 25 * ms, 1, 0, 0, 401, 400,
				 "sleeper", 0);
	}
	if (!err)
		err = synth_switch(rec, t + 250 * ms, 0, 0, 0, "swapper/0", 0, 401, 400, "sleeper") ||
		      synth_switch(rec, t + 251 * ms, 0, 401, 400, "sleeper", 0, 402, 400, "worker") ||
		      synth_switch(rec, t + 252 * ms, 0, 402, 400, "worker", 2, 0, 0, "swapper/0") ||
		      synth_stack(rec, t + 252 * ms, 0, 402, 400, k, 1, NULL, 0,
				  FREC_STACK_USER_ERR) ||
		      synth_switch(rec, t + 252 * ms + 500000, 1, 0, 0, "swapper/1", 0, 401, 400,
				   "sleeper") ||
		      synth_probe(rec, FREC_EV_UPROBE, t + 253 * ms, 1, 401, 400, 1, 0, NULL, 0) ||
		      synth_stack(rec, t + 253 * ms, 1, 401, 400, NULL, 0, u + 3, 1,
				  FREC_STACK_KERN_ERR) ||
		      synth_exit(rec, t + 260 * ms, 1, 401, 400, "sleeper");
	if (!err) {
		struct frec_header hdr;
		struct frec_pin *pin;
		int dfd;

		/* synth_write() with the stack flags in the header */
		frec_recorder__seal(rec, t + 300 * ms);
		frec_header__init(&hdr);
		snprintf(hdr.reason, sizeof(hdr.reason), "synth");
		hdr.config.flags = FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES;
		pin = frec_recorder__pin(rec);
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		err = pin && dfd >= 0 ? frec_snapshot__write(dfd, name, &hdr, pin) : -1;
		if (dfd >= 0)
			close(dfd);
		if (pin)
			frec_recorder__unpin(rec, pin);
	}
	frec_recorder__free(rec);
	return err ? -1 : 0;
}

static inline int synth_write(struct frec_recorder *rec, const char *dir, const char *name,
			      __u64 now)
{
	struct frec_header hdr;
	struct frec_pin *pin;
	int dfd, err;

	frec_recorder__seal(rec, now);
	frec_header__init(&hdr);
	snprintf(hdr.reason, sizeof(hdr.reason), "synth");
	pin = frec_recorder__pin(rec);
	if (!pin)
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	{
		struct frec_snapshot_opts o = {
			.sz = sizeof(o),
			.compress = synth_zstd ? FREC_COMPRESS_ZSTD : FREC_COMPRESS_NONE,
		};

		err = frec_snapshot__write_opts(dfd, name, &hdr, pin, &o);
	}
	close(dfd);
	frec_recorder__unpin(rec, pin);
	if (!err && synth_compress_level) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		err = synth_deflate_file(path, (int)synth_compress_level);
	}
	return err;
}

static inline int synth_known_snapshot(const char *dir, const char *name)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:handle",
		  .path = "/bin/app", .func = "handle", .build_id = "", .nargs = 2 },
		{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/bin/app:handle",
		  .path = "/bin/app", .func = "handle", .build_id = "" },
	};
	static const __u64 args[2] = { 7, 8 };
	struct frec_recorder *rec = synth_recorder(2);
	__u64 t = 1000000000;
	int err;

	if (!rec)
		return -1;
	frec_recorder__set_probes(rec, probes, 2);
	frec_recorder__set_cmdline(rec, 100, "app --serve");
	frec_recorder__tick(rec, t);
	synth_switch(rec, t + 0, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
	synth_wake(rec, FREC_EV_SCHED_WAKING, t + 1000, 0, 101, 100, 102, 100, "helper", 1);
	synth_switch(rec, t + 2000, 1, 0, 0, "swapper/1", 0, 102, 100, "helper");
	synth_switch(rec, t + 3000, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	synth_probe(rec, FREC_EV_UPROBE, t + 4000, 1, 102, 100, 1, 2, args, 0);
	synth_probe(rec, FREC_EV_URETPROBE, t + 5000, 1, 102, 100, 2, 0, NULL, -5);
	synth_fork(rec, t + 6000, 1, 102, 100, "helper", 103, 103, "child");
	synth_exec(rec, t + 7000, 1, 103, 103, "true", "/bin/true");
	frec_recorder__seal(rec, t + 10000);
	t = 1001000000;
	synth_switch(rec, t + 0, 0, 0, 0, "swapper/0", 0, 103, 103, "true");
	synth_rename(rec, t + 1000, 0, 103, 103, "true", "renamed");
	synth_exit(rec, t + 2000, 0, 103, 103, "renamed");
	frec_recorder__add_lost(rec, 1, 3, t + 3000);
	err = synth_write(rec, dir, name, t + 10000);
	frec_recorder__free(rec);
	return err;
}

/*
 * Records lost on no known CPU (FREC_CPU_UNKNOWN: they named a CPU out of
 * range) end what is known of every CPU:
 *   t+0      cpu0 idle -> alpha (201), cpu1 idle -> beta (202)
 *   t+10000  7 records lost, CPU unknown
 *   t+20000  sealed
 * with t = 2 s.
 */
static inline int synth_unknown_cpu_snapshot(const char *dir, const char *name)
{
	const __u64 t = 2000000000ull;
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_event lost = { .ts = t + 10000, .type = FREC_EV_LOST,
				   .cpu = FREC_CPU_UNKNOWN, .lost.count = 7 };
	int err;

	if (!rec)
		return -1;
	frec_recorder__tick(rec, t);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 201, 200, "alpha");
	synth_switch(rec, t, 1, 0, 0, "swapper/1", 0, 202, 200, "beta");
	frec_recorder__push_event(rec, &lost);
	err = synth_write(rec, dir, name, t + 20000);
	frec_recorder__free(rec);
	return err;
}

/* --- random streams ------------------------------------------------------- */

#define SYNTH_NTHREADS 40

struct synth_rand {
	__u64 x;		/* xorshift state, nonzero */
	__u64 ts;
	unsigned ncpus;		/* events use CPUs up to ncpus + 5 */
	bool all_types;		/* also the types only frecd makes (trigger, gap) */
	char strs[4][FREC_FILENAME_LEN];
	unsigned nstr;
};

static inline __u64 synth_next(struct synth_rand *s)
{
	s->x ^= s->x << 13;
	s->x ^= s->x >> 7;
	s->x ^= s->x << 17;
	return s->x;
}

static inline __u32 synth_below(struct synth_rand *s, __u32 n)
{
	return (__u32)(synth_next(s) % n);
}

static inline __u32 synth_tid(unsigned i)
{
	return i ? 1000 + i : 0;
}

static inline __u32 synth_tgid(unsigned i)
{
	return i ? 1000 + (i & ~3u) + 1 : 0;
}

/* Tell the recorder every thread of the random set (push_event needs it). */
static inline void synth_rand_threads(struct frec_recorder *rec)
{
	char comm[16];

	for (unsigned i = 0; i < SYNTH_NTHREADS; i++) {
		snprintf(comm, sizeof(comm), "thread-%u", i);
		frec_recorder__set_thread(rec, synth_tid(i), synth_tgid(i), comm);
	}
}

static inline const char *synth_rand_str(struct synth_rand *s, size_t max)
{
	char *d = s->strs[s->nstr++ & 3];
	size_t n = synth_below(s, 4) ? synth_below(s, 20) : synth_below(s, (__u32)max + 1);

	if (n > max)
		n = max;

	for (size_t i = 0; i < n; i++)
		d[i] = (char)('a' + synth_below(s, 26));
	d[n] = '\0';
	return d;
}

static inline __s32 synth_rand_prio(struct synth_rand *s)
{
	switch (synth_below(s, 4)) {
	case 0:
		return (__s32)synth_next(s);
	case 1:
		return (__s32)synth_below(s, 140);
	default:
		return 120;
	}
}

static inline __u64 synth_rand_u64(struct synth_rand *s)
{
	return synth_next(s) >> synth_below(s, 64);
}

/* A random event of any kind, with every field the encoding keeps set. */
static inline void synth_rand_event(struct synth_rand *s, struct frec_event *ev)
{
	unsigned ti = synth_below(s, SYNTH_NTHREADS);

	memset(ev, 0, sizeof(*ev));
	/* In time order, as frecd's merge of the per-CPU rings hands them
	 * over: an event older than a generation sealed before it would be
	 * late, and a lost event instead (test_pool covers that). */
	s->ts += synth_below(s, 5000);
	ev->ts = s->ts;
	if (s->all_types) {
		/* Stack events come only from stack records (synth_stack). */
		do
			ev->type = 1 + synth_below(s, FREC_EV__MAX - 1);
		while (ev->type == FREC_EV_ESCAPE || ev->type == FREC_EV_STACK);
	} else {
		ev->type = 1 + synth_below(s, FREC_EV_LOST);
	}
	ev->cpu = synth_below(s, 8) ? synth_below(s, s->ncpus) : synth_below(s, s->ncpus + 5);
	ev->tid = synth_tid(ti);
	ev->tgid = synth_tgid(ti);
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		ev->sw.prev_pid = synth_below(s, 10) ? ev->tid : synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->sw.next_pid = synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->sw.prev_prio = synth_rand_prio(s);
		ev->sw.next_prio = synth_rand_prio(s);
		switch (synth_below(s, 5)) {
		case 0: ev->sw.prev_state = 0; break;
		case 1: ev->sw.prev_state = 1; break;
		case 2: ev->sw.prev_state = 0x402; break;
		case 3: ev->sw.prev_state = 1ull << synth_below(s, 16); break;
		default: ev->sw.prev_state = synth_rand_u64(s); break;
		}
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		ev->wake.pid = synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->wake.prio = synth_rand_prio(s);
		/* mostly a CPU of the machine (its high part in the wide
		 * encoding), sometimes any number (an escape) */
		ev->wake.target_cpu = synth_below(s, 4) ? synth_below(s, s->ncpus + 2) :
							  (__u32)synth_next(s);
		ev->wake.waker = synth_below(s, 10) ? ev->tid : synth_tid(synth_below(s, SYNTH_NTHREADS));
		break;
	case FREC_EV_PROCESS_FORK:
		ev->fork.parent_pid = synth_below(s, 10) ? ev->tid : synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->fork.child_pid = synth_tid(synth_below(s, SYNTH_NTHREADS));
		break;
	case FREC_EV_PROCESS_EXEC:
		ev->exec.pid = synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->exec.old_pid = synth_below(s, 2) ? ev->exec.pid : (__u32)synth_next(s);
		ev->exec.filename = synth_rand_str(s, FREC_FILENAME_LEN - 1);
		ev->exec.comm = synth_rand_str(s, FREC_COMM_LEN - 1);
		break;
	case FREC_EV_PROCESS_EXIT:
		ti = synth_below(s, SYNTH_NTHREADS);
		ev->exit.pid = synth_tid(ti);
		ev->exit.tgid = synth_below(s, 8) ? synth_tgid(ti) : (__u32)synth_next(s);
		break;
	case FREC_EV_TASK_RENAME:
		ev->rename.pid = synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->rename.newcomm = synth_rand_str(s, FREC_COMM_LEN - 1);
		break;
	case FREC_EV_MIGRATE_TASK:
		ev->migrate.pid = synth_tid(synth_below(s, SYNTH_NTHREADS));
		ev->migrate.prio = synth_rand_prio(s);
		ev->migrate.orig_cpu = (__u32)synth_rand_u64(s);
		ev->migrate.dest_cpu = (__u32)synth_rand_u64(s);
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		ev->probe.probe_id = synth_below(s, 4) ? 1 + synth_below(s, 8) : (__u32)synth_next(s);
		ev->probe.nargs = synth_below(s, FREC_MAX_PROBE_ARGS + 1);
		for (__u32 i = 0; i < ev->probe.nargs; i++)
			ev->probe.args[i] = synth_rand_u64(s);
		if (ev->type == FREC_EV_URETPROBE)
			ev->probe.ret = (__s64)synth_rand_u64(s) * (synth_below(s, 2) ? 1 : -1);
		break;
	case FREC_EV_LOST:
		if (synth_below(s, 2))
			ev->tid = ev->tgid = 0;
		ev->lost.count = synth_rand_u64(s);
		ev->lost.flags = synth_below(s, 4);	/* FREC_LOST_SPAN, _UNKNOWN */
		if (ev->lost.flags & FREC_LOST_SPAN) {
			ev->lost.first_ts = ev->ts - synth_below(s, 3) * synth_rand_u64(s);
			ev->lost.last_ts = ev->lost.first_ts + synth_rand_u64(s);
		}
		break;
	case FREC_EV_STACK:
		ev->stack.kstack = (__u32)synth_rand_u64(s);
		ev->stack.ustack = (__u32)synth_rand_u64(s);
		break;
	case FREC_EV_TRIGGER:
		ev->trigger.id = (__u32)synth_rand_u64(s);
		ev->trigger.flags = synth_below(s, 2);
		ev->trigger.value = synth_rand_u64(s);
		ev->trigger.count = synth_below(s, 2) ? 1 : synth_rand_u64(s);
		break;
	case FREC_EV_GAP:
		if (synth_below(s, 2))
			ev->tid = ev->tgid = 0;
		ev->cpu = synth_below(s, 2) ? FREC_CPU_UNKNOWN : ev->cpu;
		ev->gap.kind = synth_below(s, 3);
		ev->gap.first_ts = ev->ts - synth_below(s, 1000000);
		ev->gap.last_ts = ev->gap.first_ts + synth_rand_u64(s);
		break;
	case FREC_EV_CGROUP:
		/* A few ids, so that threads move back and forth, and
		 * sometimes a large one. The recorder writes it only when it
		 * is a move (stats.cgroup_moves). */
		ev->cgroup.id = synth_below(s, 8) ? 1 + synth_below(s, 5) : 1 + synth_rand_u64(s) / 2;
		break;
	}
}

static inline int synth_streq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Equal in every field the type defines. */
static inline int synth_event_eq(const struct frec_event *a, const struct frec_event *b)
{
	if (a->ts != b->ts || a->type != b->type || a->cpu != b->cpu || a->tid != b->tid ||
	    a->tgid != b->tgid)
		return 0;
	switch (a->type) {
	case FREC_EV_SCHED_SWITCH:
		return a->sw.prev_pid == b->sw.prev_pid && a->sw.next_pid == b->sw.next_pid &&
		       a->sw.prev_prio == b->sw.prev_prio && a->sw.next_prio == b->sw.next_prio &&
		       a->sw.prev_state == b->sw.prev_state;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		return a->wake.pid == b->wake.pid && a->wake.prio == b->wake.prio &&
		       a->wake.target_cpu == b->wake.target_cpu && a->wake.waker == b->wake.waker;
	case FREC_EV_PROCESS_FORK:
		return a->fork.parent_pid == b->fork.parent_pid &&
		       a->fork.child_pid == b->fork.child_pid;
	case FREC_EV_PROCESS_EXEC:
		return a->exec.pid == b->exec.pid && a->exec.old_pid == b->exec.old_pid &&
		       synth_streq(a->exec.filename, b->exec.filename) &&
		       synth_streq(a->exec.comm, b->exec.comm);
	case FREC_EV_PROCESS_EXIT:
		return a->exit.pid == b->exit.pid && a->exit.tgid == b->exit.tgid;
	case FREC_EV_TASK_RENAME:
		return a->rename.pid == b->rename.pid &&
		       synth_streq(a->rename.newcomm, b->rename.newcomm);
	case FREC_EV_MIGRATE_TASK:
		return a->migrate.pid == b->migrate.pid && a->migrate.prio == b->migrate.prio &&
		       a->migrate.orig_cpu == b->migrate.orig_cpu &&
		       a->migrate.dest_cpu == b->migrate.dest_cpu;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		return a->probe.probe_id == b->probe.probe_id && a->probe.nargs == b->probe.nargs &&
		       !memcmp(a->probe.args, b->probe.args, sizeof(a->probe.args)) &&
		       a->probe.ret == b->probe.ret;
	case FREC_EV_LOST:
		return a->lost.count == b->lost.count && a->lost.flags == b->lost.flags &&
		       a->lost.first_ts == b->lost.first_ts && a->lost.last_ts == b->lost.last_ts;
	case FREC_EV_STACK:
		return a->stack.kstack == b->stack.kstack && a->stack.ustack == b->stack.ustack;
	case FREC_EV_TRIGGER:
		return a->trigger.id == b->trigger.id && a->trigger.flags == b->trigger.flags &&
		       a->trigger.value == b->trigger.value && a->trigger.count == b->trigger.count;
	case FREC_EV_GAP:
		return a->gap.kind == b->gap.kind && a->gap.first_ts == b->gap.first_ts &&
		       a->gap.last_ts == b->gap.last_ts;
	case FREC_EV_CGROUP:
		return a->cgroup.id == b->cgroup.id;
	}
	return 0;
}

#endif /* FREC_TEST_SYNTH_H */
