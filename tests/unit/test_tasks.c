// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The task and process tables (src/core/tasks.c) and their upkeep by the
 * recorder: growth up to the bound, eviction of what was not seen for a
 * window's time, exec from a thread other than the leader, pid reuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "core/tasks.h"

#define T0	1000000000ull
#define MS	1000000ull

/* A table grows by doubling as tasks come, never past what its bound
 * needs, and refuses a task beyond the bound. */
static void test_grow_to_bound(void **state)
{
	struct task_table t;
	bool inserted;

	assert_int_equal(tasks_init(&t, 100000), 0);
	assert_int_equal(t.mask + 1, 1u << TABLE_INIT_BITS);
	for (uint32_t tid = 1; tid <= 100000; tid++) {
		struct task *k;

		assert_int_equal(tasks_reserve(&t, 1), 0);
		k = tasks_get(&t, tid * 7919u, &inserted);
		assert_non_null(k);
		assert_true(inserted);
		k->tgid = tid;
		assert_true((uint64_t)t.count * 2 <= (uint64_t)t.mask + 1);
	}
	assert_int_equal(t.count, 100000);
	assert_int_equal(t.mask + 1, tables_slots_max(100000));
	assert_int_equal(t.mask + 1, 262144);
	/* the bound: reserving more grows nothing, and a new task is refused */
	assert_int_equal(tasks_reserve(&t, 1), 0);
	assert_int_equal(t.mask + 1, 262144);
	assert_null(tasks_get(&t, 1, &inserted));
	/* every task survived the moves */
	for (uint32_t tid = 1; tid <= 100000; tid++) {
		struct task *k = tasks_find(&t, tid * 7919u);

		assert_non_null(k);
		assert_int_equal(k->tgid, tid);
	}
	for (uint32_t tid = 1; tid <= 100000; tid += 2)
		tasks_remove(&t, tid * 7919u);
	for (uint32_t tid = 1; tid <= 100000; tid++)
		assert_true((tasks_find(&t, tid * 7919u) == NULL) == (tid & 1));
	tasks_fini(&t);
}

/* Without tasks_reserve() a table takes no more than half its slots. */
static void test_no_growth_without_reserve(void **state)
{
	struct task_table t;
	bool inserted;
	uint32_t n = 0;

	assert_int_equal(tasks_init(&t, 100000), 0);
	while (tasks_get(&t, n + 1, &inserted))
		n++;
	assert_int_equal(n, (1u << TABLE_INIT_BITS) / 2);
	tasks_fini(&t);
}

/* Eviction removes what was seen before the stamp given, whatever the
 * backward shifts move under the cursor. */
static void test_evict_stale_table(void **state)
{
	struct task_table t;
	uint32_t cursor = 0, removed;
	bool inserted;

	assert_int_equal(tasks_init(&t, 4096), 0);
	assert_int_equal(tasks_reserve(&t, 3000), 0);
	for (uint32_t tid = 1; tid <= 3000; tid++) {
		t.now = tid % 3 ? 5 : 9;
		assert_non_null(tasks_get(&t, tid, &inserted));
	}
	removed = tasks_evict_stale(&t, &cursor, t.mask + 1, 9);
	assert_int_equal(removed, 2000);
	assert_int_equal(t.count, 1000);
	for (uint32_t tid = 1; tid <= 3000; tid++)
		assert_true(!tasks_find(&t, tid) == !!(tid % 3));
	/* stamps wrap: 0xfffffff0 is before 5 */
	t.now = 0xfffffff0u;
	assert_non_null(tasks_get(&t, 5000, &inserted));
	assert_int_equal(tasks_evict_stale(&t, &cursor, t.mask + 1, 5), 1);
	assert_int_equal(tasks_evict_stale(&t, &cursor, t.mask + 1, 5), 0);
	tasks_fini(&t);
}

static struct frec_recorder *tasks_recorder(__u32 max_threads, __u32 max_procs)
{
	struct frec_recorder *rec = synth_tables_recorder(max_threads, max_procs);

	assert_non_null(rec);
	return rec;
}

/* What the newest generation of dir/name says of tid and its process. */
struct seen_thread {
	bool found;
	__u32 tgid;
	char comm[FREC_COMM_LEN];
	__u64 cgroup;
	bool has_proc;
	char cmdline[64];
};

static void newest_view(const char *dir, const char *name, __u32 tid, struct seen_thread *out)
{
	struct frec_reader *r;
	struct frec_gen *g;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &r), 0);
	while (frec_reader__next_gen(r, &g) == 1) {
		const struct frec_thread *t;
		const struct frec_process *p;

		memset(out, 0, sizeof(*out));
		/* the last entry for tid: pid reuse may add one */
		for (__u32 i = 0; (t = frec_gen__thread_at(g, i)); i++) {
			if (t->tid != tid)
				continue;
			out->found = true;
			out->tgid = t->tgid;
			memcpy(out->comm, t->comm, FREC_COMM_LEN);
			out->cgroup = t->cgroup;
		}
		p = out->found ? frec_gen__process(g, out->tgid) : NULL;
		if (p && p->cmdline) {
			out->has_proc = true;
			snprintf(out->cmdline, sizeof(out->cmdline), "%s", p->cmdline);
		}
	}
	frec_reader__free(r);
}

/* One generation on cpu 0 at ms: tid runs and leaves. */
static void run_once(struct frec_recorder *rec, __u64 ms, __u32 tid, __u32 tgid, const char *comm)
{
	assert_int_equal(synth_switch(rec, T0 + ms * MS + 1000, 0, 0, 0, "swapper/0", 0, tid, tgid,
				      comm), 0);
	assert_int_equal(synth_switch(rec, T0 + ms * MS + 2000, 0, tid, tgid, comm, 1, 0, 0,
				      "swapper/0"), 0);
	frec_recorder__tick(rec, T0 + ms * MS + 500000);
}

/*
 * A thread whose exit was never recorded (filtered or lost) leaves the
 * table once a window's time has passed without it; its process's cmdline
 * stays while the table has room. When it runs again, its record names it.
 */
static void test_evict_unseen(void **state)
{
	struct frec_recorder *rec = tasks_recorder(1024, 64);
	struct frec_recorder_stats st;
	struct seen_thread v;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 100, "sleeper --long"), 0);
	run_once(rec, 0, 101, 100, "sleeper");
	for (__u64 ms = 1; ms < 10; ms++)
		run_once(rec, ms, 202, 202, "busy");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.threads_evicted, 1);
	assert_int_equal(st.threads, 2);	/* the idle task and busy */
	assert_int_equal(st.processes, 1);
	assert_int_equal(st.processes_evicted, 0);
	assert_int_equal(st.threads_untracked, 0);

	run_once(rec, 10, 101, 100, "sleeper");
	assert_int_equal(synth_write(rec, dir, "e.frec", T0 + 11 * MS), 0);
	newest_view(dir, "e.frec", 101, &v);
	assert_true(v.found);
	assert_int_equal(v.tgid, 100);
	assert_string_equal(v.comm, "sleeper");
	assert_true(v.has_proc);
	assert_string_equal(v.cmdline, "sleeper --long");
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* Processes not seen for a window's time go once the table is half full. */
static void test_evict_processes_when_half_full(void **state)
{
	struct frec_recorder *rec = tasks_recorder(1024, 8);
	struct frec_recorder_stats st;

	frec_recorder__tick(rec, T0);
	for (__u32 p = 300; p < 305; p++)
		assert_int_equal(frec_recorder__set_cmdline(rec, p, "gone"), 0);
	for (__u64 ms = 1; ms < 10; ms++)
		run_once(rec, ms, 202, 202, "busy");
	assert_int_equal(frec_recorder__set_cmdline(rec, 202, "busy -x"), 0);
	for (__u64 ms = 10; ms < 12; ms++)
		run_once(rec, ms, 202, 202, "busy");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.processes_evicted, 5);
	assert_int_equal(st.processes, 1);
	frec_recorder__free(rec);
}

/*
 * A seal that names threads of a process without a cmdline (forked and
 * not exec'd, or evicted) lists the process for frecd to read from /proc:
 * once per take, never the idle task's 0 nor a process with a cmdline,
 * at most FREC_UNNAMED_MAX; a cmdline set then ends it.
 */
static void test_unnamed_processes(void **state)
{
	struct frec_recorder *rec = tasks_recorder(1024, 256);
	__u32 tgids[FREC_UNNAMED_MAX + 8];

	frec_recorder__tick(rec, T0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 100, "named"), 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);
	run_once(rec, 0, 101, 100, "named");
	run_once(rec, 1, 201, 200, "worker");
	run_once(rec, 2, 202, 200, "worker");
	assert_true(frec_recorder__seal(rec, T0 + 2 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 1);
	assert_int_equal(tgids[0], 200);
	/* emptied; the next seal that names it lists it again */
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);
	run_once(rec, 4, 202, 200, "worker");
	assert_true(frec_recorder__seal(rec, T0 + 4 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 1);
	assert_int_equal(tgids[0], 200);
	assert_int_equal(frec_recorder__set_cmdline(rec, 200, "worker --child"), 0);
	run_once(rec, 5, 202, 200, "worker");
	assert_true(frec_recorder__seal(rec, T0 + 5 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);

	/* more than the bound in one generation: the first FREC_UNNAMED_MAX */
	for (__u32 p = 0; p < FREC_UNNAMED_MAX + 6; p++)
		assert_int_equal(synth_switch(rec, T0 + 6 * MS + 1000 + p, 0, 0, 0, "swapper/0", 0,
					      1000 + p, 1000 + p, "many"), 0);
	assert_true(frec_recorder__seal(rec, T0 + 6 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX + 8),
			 FREC_UNNAMED_MAX);
	for (__u32 i = 0; i < FREC_UNNAMED_MAX; i++)
		assert_int_equal(tgids[i], 1000 + i);
	/* and at most max of them */
	for (__u32 p = 0; p < 4; p++)
		assert_int_equal(synth_switch(rec, T0 + 7 * MS + 1000 + p, 0, 0, 0, "swapper/0", 0,
					      2000 + p, 2000 + p, "few"), 0);
	assert_true(frec_recorder__seal(rec, T0 + 7 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, 2), 2);
	frec_recorder__free(rec);
}

/* tid runs briefly on CPU 1 at ms, under comm, before run_once(rec, ms,
 * ...): seen just now, whatever the 1 ms seals evicted. */
static void seen_now(struct frec_recorder *rec, __u64 ms, __u32 tid, __u32 tgid, const char *comm)
{
	assert_int_equal(synth_switch(rec, T0 + ms * MS + 100, 1, 0, 0, "swapper/1", 0, tid, tgid,
				      comm), 0);
	assert_int_equal(synth_switch(rec, T0 + ms * MS + 200, 1, tid, tgid, comm, 1, 0, 0,
				      "swapper/1"), 0);
}

/*
 * A main thread that a record names otherwise, with no exec or rename
 * record before it (lost), or that a rename record renames (an exec's
 * comes before its own record, which may be lost): its process is listed
 * for frecd to read its cmdline again (it may be the old program's), and
 * listed again by each seal that names it until the cmdline is set. Not
 * after a recorded exec alone (frecd reads it then), nor for another
 * thread of the process (counted only), nor for a kernel thread (its
 * cmdline is empty), nor for a thread first named.
 */
static void test_lost_exec_rereads_cmdline(void **state)
{
	struct frec_recorder *rec = tasks_recorder(1024, 256);
	struct frec_recorder_stats st;
	__u32 tgids[FREC_UNNAMED_MAX];

	frec_recorder__tick(rec, T0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 300, "old --args"), 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 2, ""), 0);	/* kthreadd */
	/* recorded: nothing to read again */
	seen_now(rec, 0, 300, 300, "old");
	assert_int_equal(synth_exec(rec, T0 + 300, 0, 300, 300, "new", "/bin/new"), 0);
	run_once(rec, 0, 300, 300, "new");
	seen_now(rec, 1, 301, 300, "old-worker");
	assert_int_equal(synth_rename(rec, T0 + MS + 300, 0, 301, 300, "old-worker", "w2"), 0);
	run_once(rec, 1, 301, 300, "w2");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.names_repaired, 0);
	assert_true(frec_recorder__seal(rec, T0 + MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);

	/* another thread's name changed unannounced: counted, no read */
	seen_now(rec, 2, 301, 300, "w2");
	run_once(rec, 2, 301, 300, "renamed-worker");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.names_repaired, 1);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);
	/* a kernel thread's: counted, nothing to read */
	seen_now(rec, 3, 2, 2, "kthreadd");
	run_once(rec, 3, 2, 2, "kthreadd-x");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.names_repaired, 2);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);
	/* the main thread's: its exec was lost */
	seen_now(rec, 4, 300, 300, "new");
	run_once(rec, 4, 300, 300, "other");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.names_repaired, 3);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 1);
	assert_int_equal(tgids[0], 300);
	/* the name is the record's from then on; each seal that lists the
	 * process asks again until the cmdline comes */
	run_once(rec, 5, 300, 300, "other");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.names_repaired, 3);
	assert_true(frec_recorder__seal(rec, T0 + 5 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 1);
	assert_int_equal(tgids[0], 300);
	assert_int_equal(frec_recorder__set_cmdline(rec, 300, "/bin/other"), 0);
	run_once(rec, 6, 300, 300, "other");
	assert_true(frec_recorder__seal(rec, T0 + 6 * MS + 600000) >= 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 0);
	/* a rename record of the main thread: an exec's, maybe */
	assert_int_equal(synth_rename(rec, T0 + 7 * MS, 0, 300, 300, "other", "third"), 0);
	assert_int_equal(frec_recorder__take_unnamed(rec, tgids, FREC_UNNAMED_MAX), 1);
	assert_int_equal(tgids[0], 300);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.names_repaired, 3);
	frec_recorder__free(rec);
}

/* At its bound the task table refuses new threads: they are counted, and
 * each generation still names them from their records. */
static void test_bound_untracked(void **state)
{
	struct frec_recorder *rec = tasks_recorder(16, 16);
	struct frec_recorder_stats st;
	struct seen_thread v;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	for (__u32 tid = 1000; tid < 1020; tid++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "t%u", tid);
		assert_int_equal(synth_switch(rec, T0 + tid, 0, 0, 0, "swapper/0", 0, tid, tid, comm), 0);
	}
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.threads, 16);	/* the idle task and 15 */
	assert_int_equal(st.threads_untracked, 5);
	assert_int_equal(st.max_threads, 16);
	assert_int_equal(st.max_processes, 16);
	/* small bounds: both tables start at their bound's 32 slots */
	assert_int_equal(st.tasks_bytes, 32 * (sizeof(struct task) + sizeof(struct proc)));
	assert_int_equal(synth_write(rec, dir, "b.frec", T0 + MS), 0);
	newest_view(dir, "b.frec", 1019, &v);
	assert_true(v.found);
	assert_string_equal(v.comm, "t1019");
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* tasks_bytes: the tables as grown so far, which tables_bytes counts at
 * their bound, and the cmdlines as they are stored. */
static void test_tasks_bytes_grow(void **state)
{
	struct frec_recorder *rec = tasks_recorder(4096, 64);
	struct frec_recorder_stats st;
	__u64 procs = 128 * sizeof(struct proc);	/* 64 at most: 128 slots */

	frec_recorder__tick(rec, T0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.max_threads, 4096);
	assert_int_equal(st.max_processes, 64);
	assert_int_equal(st.tasks_bytes, 1024 * sizeof(struct task) + procs);
	assert_true(st.tables_bytes >= 8192 * sizeof(struct task) + procs);
	/* 600 threads and the idle task: more than half of 1024 slots */
	for (__u32 tid = 1000; tid < 1600; tid++)
		assert_int_equal(synth_switch(rec, T0 + tid, 0, 0, 0, "swapper/0", 0, tid, tid, "t"), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.threads, 601);
	assert_int_equal(st.threads_untracked, 0);
	assert_int_equal(st.tasks_bytes, 2048 * sizeof(struct task) + procs);
	assert_int_equal(frec_recorder__set_cmdline(rec, 7, "abc"), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.tasks_bytes, 2048 * sizeof(struct task) + procs + 4);
	frec_recorder__free(rec);
}

/* The prefetch hint works once the task table has outgrown the caches
 * (32768 slots), and reads nothing past the length it is given. */
static void test_prefetch_when_big(void **state)
{
	struct frec_recorder *rec = tasks_recorder(65536, 64);
	struct frec_rec_switch *sw = malloc(sizeof(*sw));
	struct frec_rec_hdr *h = malloc(sizeof(*h));
	struct frec_recorder_stats st;

	assert_non_null(sw);
	assert_non_null(h);
	memset(sw, 0, sizeof(*sw));
	sw->h.type = FREC_EV_SCHED_SWITCH;
	sw->next_pid = 7;
	memcpy(h, &sw->h, sizeof(*h));
	frec_recorder__tick(rec, T0);
	assert_false(frec_recorder__prefetch_useful(rec));
	for (__u32 tid = 1000; tid < 1000 + 6000; tid++)
		assert_int_equal(synth_switch(rec, T0 + tid, 0, 0, 0, "swapper/0", 0, tid, tid, "t"), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.tasks_bytes, 16384 * sizeof(struct task) + 128 * sizeof(struct proc));
	assert_false(frec_recorder__prefetch_useful(rec));
	for (__u32 tid = 7000; tid < 7000 + 6000; tid++)
		assert_int_equal(synth_switch(rec, T0 + tid, 0, 0, 0, "swapper/0", 0, tid, tid, "t"), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.tasks_bytes, 32768 * sizeof(struct task) + 128 * sizeof(struct proc));
	assert_true(frec_recorder__prefetch_useful(rec));
	/* ASan sees a read past either block */
	frec_recorder__prefetch(rec, sw, sizeof(*sw));
	frec_recorder__prefetch(rec, h, sizeof(*h));
	frec_recorder__prefetch(rec, h, 3);
	frec_recorder__prefetch(rec, NULL, 0);
	free(sw);
	free(h);
	frec_recorder__free(rec);
}

/*
 * Go's syscall.Exec: thread 101 of process 100 execs. The kernel kills
 * the leader (its exit comes first, under pid 100), and 101 goes on as
 * pid 100. The process, its thread and its new cmdline live on in later
 * generations; 101 is gone.
 */
static void test_exec_from_thread(void **state)
{
	struct frec_recorder *rec = tasks_recorder(1024, 64);
	struct frec_recorder_stats st;
	struct seen_thread v;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 100, "goprog serve"), 0);
	assert_int_equal(synth_fork(rec, T0 + 1000, 0, 100, 100, "goprog", 101, 100, "goprog"), 0);
	assert_int_equal(synth_switch(rec, T0 + 2000, 1, 0, 0, "swapper/1", 0, 101, 100, "goprog"), 0);
	assert_int_equal(synth_exit(rec, T0 + 3000, 0, 100, 100, "goprog"), 0);
	assert_int_equal(synth_exec(rec, T0 + 4000, 1, 100, 101, "newprog", "/bin/newprog"), 0);
	/* what frecd reads from /proc after the exec */
	assert_int_equal(frec_recorder__set_cmdline(rec, 100, "/bin/newprog -v"), 0);
	frec_recorder__tick(rec, T0 + MS / 2);
	/* the exit's generation and one more pass: what exited is forgotten */
	for (__u64 ms = 1; ms < 4; ms++)
		run_once(rec, ms, 100, 100, "newprog");
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.threads, 2);	/* the idle tasks and 100, not 101 */
	assert_int_equal(st.processes, 1);

	/* a probe hit names 100 by tid only: the table must still know it */
	assert_int_equal(synth_probe(rec, FREC_EV_UPROBE, T0 + 4 * MS + 10, 0, 100, 100, 1, 0, NULL, 0), 0);
	assert_int_equal(synth_write(rec, dir, "x.frec", T0 + 5 * MS), 0);
	newest_view(dir, "x.frec", 100, &v);
	assert_true(v.found);
	assert_int_equal(v.tgid, 100);
	assert_string_equal(v.comm, "newprog");
	assert_true(v.has_proc);
	assert_string_equal(v.cmdline, "/bin/newprog -v");
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/*
 * pid reuse after an exit that was lost (or recorded): the new process
 * with the old pid names itself from its fork, never with the old comm,
 * cgroup or cmdline.
 */
static void reuse(bool exit_recorded, bool parent_cmdline)
{
	struct frec_recorder *rec = tasks_recorder(1024, 64);
	struct seen_thread v;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 100, "old --cmd"), 0);
	if (parent_cmdline)
		assert_int_equal(frec_recorder__set_cmdline(rec, 200, "parent --cmd"), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 1000, 0, 0, 0, "swapper/0", 0, 100, 100, "oldname",
					 5), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 2000, 0, 100, 100, "oldname", 1, 0, 0, "swapper/0",
					 0), 0);
	/* the old thread 101 of 100 leaks too */
	assert_int_equal(synth_switch_cg(rec, T0 + 3000, 1, 0, 0, "swapper/1", 0, 101, 100, "oldthr",
					 5), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 4000, 1, 101, 100, "oldthr", 1, 0, 0, "swapper/1",
					 0), 0);
	if (exit_recorded)
		assert_int_equal(synth_exit(rec, T0 + 5000, 0, 100, 100, "oldname"), 0);
	frec_recorder__tick(rec, T0 + MS);
	/* the new process 100, its cgroup not read; 101 a thread of 300 */
	assert_int_equal(synth_fork_cg(rec, T0 + MS + 1000, 0, 200, 200, "parent", 100, 100,
				       "parent", 0), 0);
	assert_int_equal(synth_fork_cg(rec, T0 + MS + 2000, 1, 300, 300, "other", 101, 300,
				       "otherthr", 0), 0);
	assert_int_equal(synth_switch(rec, T0 + MS + 3000, 0, 200, 200, "parent", 1, 100, 100,
				      "parent"), 0);
	assert_int_equal(synth_switch(rec, T0 + MS + 4000, 1, 300, 300, "other", 1, 101, 300,
				      "otherthr"), 0);
	assert_int_equal(synth_write(rec, dir, "p.frec", T0 + 2 * MS), 0);

	newest_view(dir, "p.frec", 100, &v);
	assert_true(v.found);
	assert_int_equal(v.tgid, 100);
	assert_string_equal(v.comm, "parent");
	assert_int_equal(v.cgroup, 0);
	assert_false(v.has_proc);
	newest_view(dir, "p.frec", 101, &v);
	assert_true(v.found);
	assert_int_equal(v.tgid, 300);
	assert_string_equal(v.comm, "otherthr");
	assert_int_equal(v.cgroup, 0);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/*
 * The pid comes back within a generation of its owner's exit: a new task
 * (forked, renamed, exited) that has it when the old exit's turn comes
 * must not be forgotten with the old one. Its last switch often lands in
 * the next generation, first mentioned there as the waker of its parent
 * (a record without its name): the generation must still name it.
 */
static void test_reuse_before_forget(void **state)
{
	struct frec_recorder *rec = tasks_recorder(1024, 64);
	struct seen_thread v;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	/* the old task 101: forked, renamed, exited */
	assert_int_equal(synth_fork(rec, T0 + 1000, 0, 100, 100, "parent", 101, 101, "parent"), 0);
	assert_int_equal(synth_rename(rec, T0 + 2000, 0, 101, 101, "parent", "old"), 0);
	assert_int_equal(synth_exit(rec, T0 + 3000, 0, 101, 101, "old"), 0);
	frec_recorder__tick(rec, T0 + MS);
	/* the new task 101, the whole life in the next generation */
	assert_int_equal(synth_fork(rec, T0 + MS + 1000, 0, 100, 100, "parent", 101, 101,
				    "parent"), 0);
	assert_int_equal(synth_rename(rec, T0 + MS + 2000, 0, 101, 101, "parent", "new"), 0);
	assert_int_equal(synth_exit(rec, T0 + MS + 3000, 0, 101, 101, "new"), 0);
	frec_recorder__tick(rec, T0 + 2 * MS);	/* the old exit's turn */
	/* its last moments: it wakes its parent, then switches away dead */
	assert_int_equal(synth_wake(rec, FREC_EV_SCHED_WAKING, T0 + 2 * MS + 1000, 0, 101, 101,
				    100, 100, "parent", 1), 0);
	assert_int_equal(synth_switch(rec, T0 + 2 * MS + 2000, 0, 101, 101, "new", 0x20, 0, 0,
				      "swapper/0"), 0);
	assert_int_equal(synth_write(rec, dir, "r.frec", T0 + 3 * MS), 0);

	newest_view(dir, "r.frec", 101, &v);
	assert_true(v.found);
	assert_int_equal(v.tgid, 101);
	assert_string_equal(v.comm, "new");
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

static void test_reuse_exit_lost(void **state)
{
	reuse(false, true);
	reuse(false, false);
}

static void test_reuse_exit_recorded(void **state)
{
	reuse(true, true);
	reuse(true, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_to_bound),
		cmocka_unit_test(test_no_growth_without_reserve),
		cmocka_unit_test(test_evict_stale_table),
		cmocka_unit_test(test_evict_unseen),
		cmocka_unit_test(test_evict_processes_when_half_full),
		cmocka_unit_test(test_unnamed_processes),
		cmocka_unit_test(test_lost_exec_rereads_cmdline),
		cmocka_unit_test(test_bound_untracked),
		cmocka_unit_test(test_tasks_bytes_grow),
		cmocka_unit_test(test_prefetch_when_big),
		cmocka_unit_test(test_exec_from_thread),
		cmocka_unit_test(test_reuse_exit_lost),
		cmocka_unit_test(test_reuse_exit_recorded),
		cmocka_unit_test(test_reuse_before_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
