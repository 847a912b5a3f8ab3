// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The encoder round trip: random streams of every kind of event, pushed as
 * decoded events and as ring records, sealed into several generations,
 * written to a file and read back must give every field of every event
 * back, in order. Also record decoding and type names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "core/format.h"

struct saved {
	struct frec_event ev;
	char s1[FREC_FILENAME_LEN], s2[FREC_FILENAME_LEN];
};

/* Keep a copy of ev whose strings outlive the generator's buffers. */
static void save(struct saved *sv, const struct frec_event *ev)
{
	sv->ev = *ev;
	if (ev->type == FREC_EV_PROCESS_EXEC) {
		snprintf(sv->s1, sizeof(sv->s1), "%s", ev->exec.filename);
		snprintf(sv->s2, sizeof(sv->s2), "%s", ev->exec.comm);
		sv->ev.exec.filename = sv->s1;
		sv->ev.exec.comm = sv->s2;
	} else if (ev->type == FREC_EV_TASK_RENAME) {
		snprintf(sv->s1, sizeof(sv->s1), "%s", ev->rename.newcomm);
		sv->ev.rename.newcomm = sv->s1;
	}
}

/* Read dir/name and compare with want[0..n), in order; returns generations. */
static unsigned read_compare(const char *dir, const char *name, const struct saved *want, size_t n)
{
	char path[256];
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	size_t i = 0;
	unsigned gens = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &r), 0);
	assert_string_equal(frec_reader__header(r)->reason, "synth");
	/* the writer's version, zstd blocks or not */
	assert_int_equal(frec_reader__header(r)->version, FREC_FORMAT_VERSION);
	while ((rc = frec_reader__next_gen(r, &g)) == 1) {
		__u64 in_gen = 0;

		gens++;
		while ((rc = frec_gen__next_event(g, &ev)) == 1) {
			assert_true(i < n);
			if (!synth_event_eq(&ev, &want[i].ev))
				fail_msg("event %zu (type %u ts %llu) differs", i, want[i].ev.type,
					 (unsigned long long)want[i].ev.ts);
			/* Every thread an event names is in the generation's table. */
			assert_non_null(frec_gen__thread(g, ev.tid));
			i++;
			in_gen++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(in_gen, frec_gen__info(g)->nevents);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, n);
	assert_int_equal(frec_reader__damaged(r), 0);
	frec_reader__free(r);
	return gens;
}

/* The machine of the random round trips: 20 CPUs takes the wide cpu
 * encoding (format.h), 8 the plain one, 256 the wide one with 16 groups. */
static unsigned rand_ncpus = 20;

static struct frec_recorder *rand_recorder(void)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 8 << 20,
		.gen_max_bytes = 16 << 10,
		.chunk_bytes = 4096,
		.ncpus = rand_ncpus,
		.max_threads = 1024,
		.max_processes = 256,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

#define NRAND 30000

static __u64 moves_of(const struct frec_recorder *rec)
{
	struct frec_recorder_stats st;

	frec_recorder__stats(rec, &st);
	return st.cgroup_moves;
}

static void test_roundtrip_events(void **state)
{
	struct synth_rand s = { .x = 0x9e3779b97f4a7c15ull, .ts = 1000000000, .ncpus = rand_ncpus,
				.all_types = true };
	struct saved *want = calloc(NRAND, sizeof(*want));
	struct frec_recorder *rec = rand_recorder();
	struct frec_recorder_stats st;
	struct frec_event ev;
	char dir[64];
	unsigned gens, silent = 0;
	size_t n = 0;

	assert_int_equal(synth_tmpdir(dir), 0);
	synth_rand_threads(rec);
	for (size_t i = 0; i < NRAND; i++) {
		__u64 moves = moves_of(rec);

		synth_rand_event(&s, &ev);
		assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
		/* A cgroup event is stored only when it is a move: one that
		 * tells a thread's first cgroup, or the one it is in, or
		 * concerns the idle tasks, only sets it. */
		if (ev.type != FREC_EV_CGROUP || moves_of(rec) == moves + 1)
			save(&want[n++], &ev);
		else
			silent++;
		if (i % 5000 == 4999)	/* some generations end by seal, others by size */
			assert_int_equal(frec_recorder__seal(rec, s.ts), 1);
	}
	assert_int_equal(synth_write(rec, dir, "r.frec", s.ts), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events, n);
	assert_true(st.cgroup_moves > 100 && silent > 100);
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.generations_evicted, 0);
	gens = read_compare(dir, "r.frec", want, n);
	assert_int_equal(gens, st.generations_sealed);
	assert_true(gens > 6);	/* 6 explicit seals plus the size limit */
	frec_recorder__free(rec);
	synth_rmdir(dir);
	free(want);
}

/* A ring record carrying ev (and names from the random thread set). */
static size_t to_record(const struct frec_event *ev, void *buf)
{
	struct frec_rec_hdr h = {
		.ts = ev->ts, .tid = ev->tid, .tgid = ev->tgid,
		.type = (__u16)ev->type, .cpu = (__u16)ev->cpu,
	};
	size_t n = 0;

	memset(buf, 0xa5, 512);		/* garbage where the BPF side leaves garbage */
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH: {
		struct frec_rec_switch *r = buf;

		n = sizeof(*r);
		r->prev_pid = ev->sw.prev_pid;
		r->prev_tgid = ev->sw.prev_pid == ev->tid ? ev->tgid : r->prev_pid;
		r->next_pid = ev->sw.next_pid;
		r->next_tgid = ev->sw.next_pid % 7;
		r->prev_prio = ev->sw.prev_prio;
		r->next_prio = ev->sw.next_prio;
		r->prev_state = ev->sw.prev_state;
		/* a few cgroups, which threads leave and come back to often:
		 * their tgids change with their role (pid reuse), and each
		 * change starts them with no cgroup */
		r->next_cgroup = r->next_pid % 5 ? 100 + (r->next_pid + (ev->ts >> 14)) % 3 : 0;
		snprintf(r->prev_comm, FREC_COMM_LEN, "p%u", r->prev_pid);
		snprintf(r->next_comm, FREC_COMM_LEN, "n%u", r->next_pid);
		break;
	}
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW: {
		struct frec_rec_wake *r = buf;

		n = sizeof(*r);
		r->pid = ev->wake.pid;
		r->tgid = ev->wake.pid & ~3u;
		r->prio = ev->wake.prio;
		r->target_cpu = (__s32)ev->wake.target_cpu;
		snprintf(r->comm, FREC_COMM_LEN, "w%u", r->pid);
		break;
	}
	case FREC_EV_PROCESS_FORK: {
		struct frec_rec_fork *r = buf;

		n = sizeof(*r);
		r->parent_pid = ev->fork.parent_pid;
		r->parent_tgid = ev->tgid;
		r->child_pid = ev->fork.child_pid;
		r->child_tgid = ev->fork.child_pid;
		r->child_cgroup = 100 + (r->child_pid + (ev->ts >> 13)) % 3;
		snprintf(r->parent_comm, FREC_COMM_LEN, "parent");
		snprintf(r->child_comm, FREC_COMM_LEN, "child");
		break;
	}
	case FREC_EV_PROCESS_EXEC: {
		struct frec_rec_exec *r = buf;

		n = sizeof(*r);
		r->pid = ev->exec.pid;
		r->old_pid = ev->exec.old_pid;
		snprintf(r->comm, FREC_COMM_LEN, "%s", ev->exec.comm);
		snprintf(r->filename, FREC_FILENAME_LEN, "%s", ev->exec.filename);
		break;
	}
	case FREC_EV_PROCESS_EXIT: {
		struct frec_rec_exit *r = buf;

		n = sizeof(*r);
		r->pid = ev->exit.pid;
		r->tgid = ev->exit.tgid;
		r->prio = 120;
		snprintf(r->comm, FREC_COMM_LEN, "x");
		break;
	}
	case FREC_EV_TASK_RENAME: {
		struct frec_rec_rename *r = buf;

		n = sizeof(*r);
		r->pid = ev->rename.pid;
		r->tgid = ev->tgid;
		snprintf(r->oldcomm, FREC_COMM_LEN, "old");
		snprintf(r->newcomm, FREC_COMM_LEN, "%s", ev->rename.newcomm);
		break;
	}
	case FREC_EV_MIGRATE_TASK: {
		struct frec_rec_migrate *r = buf;

		n = sizeof(*r);
		r->pid = ev->migrate.pid;
		r->tgid = ev->migrate.pid;
		r->prio = ev->migrate.prio;
		r->orig_cpu = ev->migrate.orig_cpu;
		r->dest_cpu = ev->migrate.dest_cpu;
		snprintf(r->comm, FREC_COMM_LEN, "m");
		break;
	}
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT: {
		struct frec_rec_probe *r = buf;

		n = sizeof(*r);
		r->probe_id = ev->probe.probe_id;
		r->nargs = ev->probe.nargs;
		memcpy(r->args, ev->probe.args, sizeof(r->args));
		r->ret = ev->probe.ret;
		break;
	}
	default:
		return 0;
	}
	h.size = (__u32)n;
	memcpy(buf, &h, sizeof(h));
	return n;
}

static void test_roundtrip_records(void **state)
{
	struct synth_rand s = { .x = 12345, .ts = 5000000000, .ncpus = rand_ncpus, .all_types = true };
	struct saved *want = calloc(NRAND, sizeof(*want));
	struct frec_recorder *rec = rand_recorder();
	_Alignas(8) unsigned char buf[512];
	struct frec_event ev, dec;
	size_t n = 0, nmoves = 0;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	while (n + 1 < NRAND) {
		size_t len;
		__u64 moves;

		synth_rand_event(&s, &ev);
		len = to_record(&ev, buf);
		if (!len && ev.type != FREC_EV_LOST)
			continue;	/* made by frecd, never a ring record */
		if (!len) {	/* lost: no ring record */
			assert_int_equal(frec_recorder__add_lost(rec, ev.cpu, ev.lost.count, ev.ts), 0);
			ev.tid = ev.tgid = 0;
			ev.lost.flags = 0;	/* add_lost() knows no span */
			ev.lost.first_ts = ev.lost.last_ts = 0;
			save(&want[n++], &ev);
			continue;
		}
		assert_int_equal(frec_record__decode(buf, len, &dec), 0);
		moves = moves_of(rec);
		assert_int_equal(frec_recorder__push(rec, buf, len), 0);
		/* A move goes right before the record that revealed it: next
		 * of a switch, at the record's ts and cpu. */
		if (moves_of(rec) == moves + 1) {
			struct frec_event mv = { .type = FREC_EV_CGROUP, .ts = dec.ts, .cpu = dec.cpu };
			const struct frec_rec_switch *r = (const void *)buf;

			/* a fork's child is a new task: never a move */
			assert_int_equal(dec.type, FREC_EV_SCHED_SWITCH);
			mv.tid = r->next_pid;
			mv.tgid = r->next_tgid;
			mv.cgroup.id = r->next_cgroup;
			save(&want[n++], &mv);
			nmoves++;
		} else {
			assert_int_equal(moves_of(rec), moves);
		}
		save(&want[n++], &dec);
	}
	assert_int_equal(synth_write(rec, dir, "r.frec", s.ts), 0);
	/* 63 with this seed: a switch's next whose cgroup changed (a fork's
	 * child is a new task, never a move) */
	assert_true(nmoves > 50);
	read_compare(dir, "r.frec", want, n);
	frec_recorder__free(rec);
	synth_rmdir(dir);
	free(want);
}

static void test_decode(void **state)
{
	struct frec_rec_switch sw = { .h = { .ts = 5, .tid = 7, .tgid = 8, .cpu = 3,
					     .type = FREC_EV_SCHED_SWITCH, .size = sizeof(sw) },
				      .prev_pid = 7, .next_pid = 9, .prev_prio = 100,
				      .next_prio = 120, .prev_state = 2 };
	struct frec_rec_probe pr = { .h = { .type = FREC_EV_UPROBE, .size = sizeof(pr) },
				     .probe_id = 4, .nargs = 2, .args = { 1, 2, 3, 4, 5, 6 } };
	struct frec_rec_hdr h = { .type = FREC_EV_LOST };
	struct frec_event ev;

	assert_int_equal(frec_record__decode(&sw, sizeof(sw), &ev), 0);
	assert_int_equal(ev.ts, 5);
	assert_int_equal(ev.cpu, 3);
	assert_int_equal(ev.tid, 7);
	assert_int_equal(ev.tgid, 8);
	assert_int_equal(ev.sw.prev_pid, 7);
	assert_int_equal(ev.sw.next_pid, 9);
	assert_int_equal(ev.sw.prev_prio, 100);
	assert_int_equal(ev.sw.prev_state, 2);
	assert_int_equal(frec_record__decode(&sw, sizeof(sw) - 1, &ev), -EINVAL);
	assert_int_equal(frec_record__decode(&sw, 4, &ev), -EINVAL);
	assert_int_equal(frec_record__decode(&h, sizeof(h), &ev), -EINVAL);
	h.type = FREC_EV__MAX;
	assert_int_equal(frec_record__decode(&h, sizeof(h), &ev), -EINVAL);
	/* Unused argument slots come out as 0. */
	assert_int_equal(frec_record__decode(&pr, sizeof(pr), &ev), 0);
	assert_int_equal(ev.probe.nargs, 2);
	assert_int_equal(ev.probe.args[1], 2);
	assert_int_equal(ev.probe.args[2], 0);
	pr.nargs = 7;
	assert_int_equal(frec_record__decode(&pr, sizeof(pr), &ev), -EINVAL);
}

static void test_type_names(void **state)
{
	assert_string_equal(frec_type__name(FREC_EV_SCHED_SWITCH), "sched_switch");
	assert_string_equal(frec_type__name(FREC_EV_SCHED_WAKING), "sched_waking");
	assert_string_equal(frec_type__name(FREC_EV_SCHED_WAKEUP_NEW), "sched_wakeup_new");
	assert_string_equal(frec_type__name(FREC_EV_PROCESS_FORK), "sched_process_fork");
	assert_string_equal(frec_type__name(FREC_EV_TASK_RENAME), "task_rename");
	assert_string_equal(frec_type__name(FREC_EV_MIGRATE_TASK), "sched_migrate_task");
	assert_string_equal(frec_type__name(FREC_EV_URETPROBE), "uretprobe");
	assert_string_equal(frec_type__name(FREC_EV_USDT), "usdt");
	assert_string_equal(frec_type__name(FREC_EV_LOST), "lost");
	assert_null(frec_type__name(FREC_EV_NONE));
	assert_null(frec_type__name(FREC_EV__MAX));
}

/* The task and process tables start as zeroed memory: tid and tgid 0 (the
 * idle task) are real entries, the one tid no thread has is refused, and a
 * full table says so. */
static void test_task_tables(void **state)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 1 << 20,
		.ncpus = 2,
		.max_threads = 4,
		.max_processes = 2,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	assert_int_equal(frec_recorder__set_thread(rec, 0xffffffffu, 1, "bad"), -EINVAL);
	for (__u32 tid = 0; tid < 4; tid++)
		assert_int_equal(frec_recorder__set_thread(rec, tid, tid, "t"), 0);
	assert_int_equal(frec_recorder__set_thread(rec, 9, 9, "x"), -ENOSPC);
	assert_int_equal(frec_recorder__set_thread(rec, 0, 0, "swapper/0"), 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 0xffffffffu, "x"), -EINVAL);
	assert_int_equal(frec_recorder__set_cmdline(rec, 0, "a"), 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 2, "b"), 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 3, "c"), -ENOSPC);
	assert_int_equal(frec_recorder__set_cmdline(rec, 0, "a2"), 0);
	frec_recorder__free(rec);
}

static void push_wake(struct frec_recorder *rec, __u64 ts, __u32 waker, __u32 waker_tgid,
		      __u32 wakee, const char *comm)
{
	struct frec_rec_wake w = {
		.h = { .ts = ts, .tid = waker, .tgid = waker_tgid, .cpu = 0,
		       .type = FREC_EV_SCHED_WAKING, .size = sizeof(w) },
		.pid = wakee, .tgid = wakee, .prio = 120, .target_cpu = 1,
	};

	snprintf(w.comm, sizeof(w.comm), "%s", comm);
	assert_int_equal(frec_recorder__push(rec, &w, sizeof(w)), 0);
}

static const char *gen_comm(struct frec_gen *g, __u32 tid, __u32 *tgid)
{
	const struct frec_thread *t = frec_gen__thread(g, tid);

	assert_non_null(t);
	*tgid = t->tgid;
	return t->comm;
}

/*
 * Names read from /proc while recording (frec_recorder__seed_thread) name
 * what no event has named, also in the open generation (a waker is
 * mentioned without its name), and never replace a name an event gave.
 */
static void test_seed_thread(void **state)
{
	struct frec_rec_rename rn = {
		.h = { .ts = 2000, .tid = 300, .tgid = 300, .type = FREC_EV_TASK_RENAME,
		       .size = sizeof(rn) },
		.pid = 300, .tgid = 300, .oldcomm = "old", .newcomm = "new",
	};
	struct frec_recorder *rec = rand_recorder();
	struct frec_reader *r;
	struct frec_gen *g;
	char dir[64], path[128];
	__u32 tgid;

	assert_int_equal(synth_tmpdir(dir), 0);
	push_wake(rec, 1000, 100, 100, 200, "wakee");
	assert_int_equal(frec_recorder__push(rec, &rn, sizeof(rn)), 0);
	assert_int_equal(frec_recorder__seed_thread(rec, 100, 100, "seeded"), 0);
	assert_int_equal(frec_recorder__seed_thread(rec, 100, 100, "again"), 0);
	assert_int_equal(frec_recorder__seed_thread(rec, 200, 200, "stale"), 0);
	assert_int_equal(frec_recorder__seed_thread(rec, 300, 300, "stale"), 0);
	assert_int_equal(frec_recorder__seed_thread(rec, 500, 7, "seeded500"), 0);
	assert_int_equal(frec_recorder__seed_thread(rec, 0xffffffffu, 1, "bad"), -EINVAL);
	assert_int_equal(frec_recorder__seal(rec, 3000), 1);
	push_wake(rec, 4000, 300, 300, 200, "wakee");
	push_wake(rec, 4001, 500, 7, 200, "wakee");
	assert_int_equal(synth_write(rec, dir, "s.frec", 5000), 0);

	snprintf(path, sizeof(path), "%s/s.frec", dir);
	assert_int_equal(frec_reader__open(path, &r), 0);
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_string_equal(gen_comm(g, 100, &tgid), "seeded");
	assert_string_equal(gen_comm(g, 200, &tgid), "wakee");
	assert_string_equal(gen_comm(g, 300, &tgid), "old");	/* as before the rename */
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_string_equal(gen_comm(g, 300, &tgid), "new");
	assert_string_equal(gen_comm(g, 500, &tgid), "seeded500");
	assert_int_equal(tgid, 7);
	assert_string_equal(gen_comm(g, 200, &tgid), "wakee");
	assert_int_equal(frec_reader__next_gen(r, &g), 0);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

static int stored(void **state)
{
	synth_compress_level = 0;
	synth_zstd = false;
	rand_ncpus = 20;
	return 0;
}

static int deflated(void **state)
{
	synth_compress_level = 1;
	synth_zstd = false;
	rand_ncpus = 20;
	return 0;
}

static int zstd(void **state)
{
	synth_compress_level = 0;
	synth_zstd = true;
	rand_ncpus = 20;
	return 0;
}

static int narrow(void **state)
{
	synth_compress_level = 0;
	synth_zstd = false;
	rand_ncpus = 8;
	return 0;
}

static int wide256(void **state)
{
	synth_compress_level = 0;
	synth_zstd = false;
	rand_ncpus = 256;
	return 0;
}

static __u32 le32_at(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

/* The event stream's bytes of the first block of dir/name (its header's
 * events_len, format.h), which must be a stored block. */
static __u64 stream_bytes(const char *dir, const char *name)
{
	unsigned char buf[1 << 16];
	char path[256];
	size_t len, off;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "rb"));
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(len > FILE_PREFIX_LEN);
	off = FILE_PREFIX_LEN + le32_at(buf + 12) + 4;
	assert_true(off + BLOCK_HDR_LEN <= len);
	assert_memory_equal(buf + off, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	assert_int_equal(le32_at(buf + off + BLOCK_OFF_FLAGS), BLOCK_COMP_NONE);
	return le32_at(buf + off + BLOCK_OFF_EVENTS);
}

/*
 * The wide cpu encoding (format.h): on a 256-CPU machine an event on CPU
 * 200 costs what the same event costs on CPU 2 of an 8-CPU one, but for
 * the bits the high part adds to its time delta (at most one byte, none
 * for a small delta); escapes (a cpu past the machine's, a target_cpu past
 * it, a time delta that cannot be multiplied) read back exact.
 */
static void wide_one(unsigned ncpus, unsigned cpu, __u64 *bytes)
{
	struct frec_recorder *rec = synth_recorder(ncpus);
	char dir[64];

	assert_non_null(rec);
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, 1000);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(synth_switch(rec, 1000 + i * 4, cpu, 100, 100, "a", 1, 101, 100, "b"), 0);
		assert_int_equal(synth_wake(rec, FREC_EV_SCHED_WAKING, 1002 + i * 4, cpu, 101, 100,
					    100, 100, "a", cpu), 0);
	}
	assert_int_equal(synth_write(rec, dir, "w.frec", 2000), 0);
	frec_recorder__free(rec);
	*bytes = stream_bytes(dir, "w.frec");
	synth_rmdir(dir);
}

static void test_wide_cpus(void **state)
{
	struct frec_recorder *rec = synth_recorder(256);
	struct saved want[6];
	__u64 narrow_bytes, wide_bytes, plain_hi_bytes;
	struct frec_event ev;
	char dir[64];
	size_t n = 0;

	synth_compress_level = 0;
	/* the same stream on CPU 2 of 8 and on CPU 200 of 256: the deltas
	 * of 2 ns (zigzag 4) times 17, plus 12, still fit one byte, and so
	 * do the thread indices with the target's; the first delta, 1000
	 * from 0, takes 3 bytes instead of 2, and the first waking's pid,
	 * not yet among the CPU's recent threads (format.h), is coded as
	 * (64 + 0) * 17 + 12, two bytes instead of one; every later one is
	 * its slot's number, 0 * 17 + 12, one byte */
	wide_one(8, 2, &narrow_bytes);
	wide_one(256, 200, &wide_bytes);
	assert_int_equal(wide_bytes, narrow_bytes + 2);
	/* on CPU 14 of 15 (plain), no escape either; on 15 of 15 there was;
	 * on 15 of 16 (wide, G 1) none, the deltas times 2 still one byte,
	 * but the first waking's pid is (64 + 0) * 2, two bytes */
	wide_one(15, 14, &plain_hi_bytes);
	assert_int_equal(plain_hi_bytes, narrow_bytes);
	wide_one(16, 15, &wide_bytes);
	assert_int_equal(wide_bytes, narrow_bytes + 1);

	/* escapes, read back exact */
	assert_non_null(rec);
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, 1000);
	memset(&ev, 0, sizeof(ev));
	ev.type = FREC_EV_SCHED_WAKING;
	ev.ts = 2000;
	ev.cpu = 255;
	ev.tid = ev.tgid = 100;
	ev.wake.pid = 101;
	ev.wake.waker = 100;
	ev.wake.prio = 120;
	ev.wake.target_cpu = 256;		/* past the machine: escaped */
	assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
	save(&want[n++], &ev);
	ev.ts = 3000;
	ev.cpu = 4000;				/* escaped cpu */
	ev.wake.target_cpu = 241;
	assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
	save(&want[n++], &ev);
	ev.ts = 1ull << 63;			/* a delta too large to multiply */
	ev.cpu = 17;
	ev.wake.target_cpu = 4294967295u;
	assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
	save(&want[n++], &ev);
	ev.ts = 4000;				/* and back */
	ev.cpu = 16;
	ev.wake.target_cpu = 15;
	assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
	save(&want[n++], &ev);
	assert_int_equal(synth_write(rec, dir, "e.frec", 5000), 0);
	read_compare(dir, "e.frec", want, n);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_task_tables),
		cmocka_unit_test(test_seed_thread),
		cmocka_unit_test_setup(test_roundtrip_events, stored),
		cmocka_unit_test_setup(test_roundtrip_records, stored),
		cmocka_unit_test_setup(test_roundtrip_events, deflated),
		cmocka_unit_test_setup(test_roundtrip_records, deflated),
		cmocka_unit_test_setup(test_roundtrip_events, zstd),
		cmocka_unit_test_setup(test_roundtrip_records, zstd),
		cmocka_unit_test_setup(test_roundtrip_events, narrow),
		cmocka_unit_test_setup(test_roundtrip_records, narrow),
		cmocka_unit_test_setup(test_roundtrip_events, wide256),
		cmocka_unit_test_setup(test_roundtrip_records, wide256),
		cmocka_unit_test(test_wide_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
