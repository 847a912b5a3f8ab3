// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks (issue 17) through the core: stack records pushed after their
 * switch or probe hit, deduplicated into the generation's stack table,
 * named at seal through a symbolizer, written as sections 4 and 5 and read
 * back as struct frec_stack; the orphans, the full table, and what the
 * reader refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "core/format.h"
#include "core/varint.h"

#define T0	1000000000ull

static const __u64 kips[3] = { SYNTH_KBASE + 0x1234, SYNTH_KBASE + 0x5010, 0xffff0000 };
/* named, mapped but not named (bit 7), libc, unknown */
static const __u64 uips[4] = { SYNTH_APP + 0x1040, SYNTH_APP + 0x2080, SYNTH_LIBC + 0x310, 0x1234 };

static struct frec_recorder *new_rec(__u32 max_stacks, __u32 max_frames)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 1 << 20,
		.chunk_bytes = 4096,
		.ncpus = 2,
		.max_threads = 4096,
		.max_processes = 1024,
		.max_stacks = max_stacks,
		.max_stack_frames = max_frames,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

/* worker (101, tgid 100) blocks (S) on cpu0 at ts; idle comes in. */
static void block(struct frec_recorder *rec, __u64 ts, __u32 cpu)
{
	assert_int_equal(synth_switch(rec, ts, cpu, 101, 100, "worker", 1, 0, 0, "swapper"), 0);
}

struct got {
	unsigned gens;
	unsigned nev;
	struct frec_event ev[128];
	unsigned gen_of[128];
	int last_rc;
};

/* Every event of dir/name; check(g, gen index) on each generation. */
static void read_snap(const char *dir, const char *name, struct got *out,
		      void (*check)(struct frec_gen *g, unsigned gen, void *arg), void *arg)
{
	struct frec_reader *r;
	struct frec_gen *g;
	char path[128];
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &r), 0);
	while ((rc = frec_reader__next_gen(r, &g)) == 1) {
		struct frec_event ev;

		while ((rc = frec_gen__next_event(g, &ev)) == 1) {
			if (out->nev < 128) {
				out->gen_of[out->nev] = out->gens;
				out->ev[out->nev++] = ev;
			}
		}
		out->last_rc = rc;
		if (check)
			check(g, out->gens, arg);
		out->gens++;
	}
	assert_int_equal(rc, 0);
	frec_reader__free(r);
}

static void frame_eq(const struct frec_frame *f, const char *sym, __u64 sym_offset,
		     const char *module, const char *build_id, __u64 file_offset)
{
	if (sym)
		assert_string_equal(f->sym, sym);
	else
		assert_null(f->sym);
	assert_int_equal(f->sym_offset, sym_offset);
	if (module)
		assert_string_equal(f->module, module);
	else
		assert_null(f->module);
	if (build_id)
		assert_string_equal(f->build_id, build_id);
	else
		assert_null(f->build_id);
	assert_int_equal(f->file_offset, file_offset);
}

static void check_basic(struct frec_gen *g, unsigned gen, void *arg)
{
	const struct frec_gen_info *in = frec_gen__info(g);
	const struct frec_stack *k, *u, *u2;

	(void)gen;
	(void)arg;
	assert_int_equal(in->nstacks, 3);
	assert_int_equal(in->nmappings, 2);
	assert_null(frec_gen__stack(g, 0));
	assert_null(frec_gen__stack(g, 4));
	k = frec_gen__stack(g, 1);
	u = frec_gen__stack(g, 2);
	u2 = frec_gen__stack(g, 3);
	assert_non_null(k);
	assert_non_null(u);
	assert_non_null(u2);
	assert_int_equal(k->kind, FREC_STACK_KERNEL);
	assert_int_equal(k->nframes, 3);
	frame_eq(&k->frames[0], "k_ffffffff81001", 0x234, "[kernel]", NULL, 0);
	frame_eq(&k->frames[1], "k_ffffffff81005", 0x010, "[kernel]", NULL, 0);
	frame_eq(&k->frames[2], NULL, 0, "[kernel]", NULL, 0);	/* never the address */
	assert_int_equal(u->kind, FREC_STACK_USER);
	assert_int_equal(u->nframes, 4);
	frame_eq(&u->frames[0], "app_4010", 0x40, "/bin/app", "b1ab", 0x1040);
	frame_eq(&u->frames[1], NULL, 0, "/bin/app", "b1ab", 0x2080);
	frame_eq(&u->frames[2], "libc_7f00000003", 0x10, "/lib/libc.so.6", "", 0x310);
	frame_eq(&u->frames[3], NULL, 0, NULL, NULL, 0x1234);
	assert_int_equal(u2->kind, FREC_STACK_USER);
	assert_int_equal(u2->nframes, 1);
	frame_eq(&u2->frames[0], "app_4010", 0x40, "/bin/app", "b1ab", 0x1040);
}

/* A blocking switch and a probe hit, each followed by its stack record:
 * each gets a stack event with its stacks, named through the symbolizer. */
static void test_basic(void **state)
{
	static const struct frec_probe_info probe = {
		.id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:f", .path = "/bin/app",
		.func = "f", .build_id = "",
	};
	struct frec_recorder *rec = new_rec(0, 0);
	struct synth_sym ctx = { 0 };
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	_Alignas(8) unsigned char buf[SYNTH_STACK_REC_MAX];
	struct frec_recorder_stats st;
	struct got got;
	char dir[64];
	size_t n;

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(frec_recorder__set_symbolizer(rec, &sym), 0);
	frec_recorder__set_probes(rec, &probe, 1);
	frec_recorder__tick(rec, T0);
	synth_switch(rec, T0, 1, 0, 0, "swapper/1", 0, 102, 100, "helper");
	block(rec, T0 + 100, 0);
	assert_int_equal(synth_stack(rec, T0 + 100, 0, 101, 100, kips, 3, uips, 4, 0), 0);
	assert_int_equal(ctx.last_id.proc_start_ns, 0);
	synth_probe(rec, FREC_EV_UPROBE, T0 + 200, 1, 102, 100, 1, 0, NULL, 0);
	/* the program the record says the process ran goes to image() */
	n = synth_stack_record(buf, T0 + 200, 1, 102, 100, NULL, 0, uips, 1, FREC_STACK_KERN_ERR);
	((struct frec_rec_stack *)buf)->proc_start_ns = 12345;
	((struct frec_rec_stack *)buf)->exec_id = 3;
	assert_int_equal(frec_recorder__push(rec, buf, n), 0);
	assert_int_equal(ctx.last_id.proc_start_ns, 12345);
	assert_int_equal(ctx.last_id.exec_id, 3);
	assert_int_equal(synth_write(rec, dir, "s.frec", T0 + 1000), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks, 2);
	assert_int_equal(st.stacks_distinct, 3);
	assert_int_equal(st.stacks_orphaned, 0);
	assert_int_equal(st.stacks_unstored, 0);
	assert_int_equal(ctx.image_calls, 2);

	read_snap(dir, "s.frec", &got, check_basic, NULL);
	assert_int_equal(got.gens, 1);
	assert_int_equal(got.nev, 5);
	assert_int_equal(got.ev[1].type, FREC_EV_SCHED_SWITCH);
	assert_int_equal(got.ev[2].type, FREC_EV_STACK);
	assert_int_equal(got.ev[2].ts, T0 + 100);
	assert_int_equal(got.ev[2].cpu, 0);
	assert_int_equal(got.ev[2].tid, 101);
	assert_int_equal(got.ev[2].tgid, 100);
	assert_int_equal(got.ev[2].stack.kstack, 1);
	assert_int_equal(got.ev[2].stack.ustack, 2);
	assert_int_equal(got.ev[3].type, FREC_EV_UPROBE);
	assert_int_equal(got.ev[4].type, FREC_EV_STACK);
	assert_int_equal(got.ev[4].tid, 102);
	assert_int_equal(got.ev[4].stack.kstack, 0);
	assert_int_equal(got.ev[4].stack.ustack, 3);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}


/* The stack events of a read snapshot, in order. */
static unsigned stack_events(const struct got *got, struct frec_event *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < got->nev; i++)
		if (got->ev[i].type == FREC_EV_STACK && n < max)
			out[n++] = got->ev[i];
	return n;
}

/* Kernel stacks are one table for all processes; user stacks are per tgid;
 * a stack seen again is the same entry, from a switch or a probe hit. */
static void test_dedupe(void **state)
{
	struct frec_recorder *rec = new_rec(0, 0);
	struct synth_sym ctx = { 0 };
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	struct frec_recorder_stats st;
	struct frec_event se[8];
	struct got got;
	char dir[64];

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__set_symbolizer(rec, &sym);
	frec_recorder__tick(rec, T0);
	for (unsigned i = 0; i < 3; i++) {	/* the same block three times */
		block(rec, T0 + 100 * i, 0);
		assert_int_equal(synth_stack(rec, T0 + 100 * i, 0, 101, 100, kips, 3, uips, 4, 0), 0);
	}
	/* another process, same addresses: same kernel stack, new user stack */
	synth_switch(rec, T0 + 400, 1, 201, 200, "other", 2, 0, 0, "swapper/1");
	synth_stack(rec, T0 + 400, 1, 201, 200, kips, 3, uips, 4, 0);
	/* a probe hit of 101 with its user stack of before */
	synth_probe(rec, FREC_EV_USDT, T0 + 500, 0, 101, 100, 9, 0, NULL, 0);
	synth_stack(rec, T0 + 500, 0, 101, 100, NULL, 0, uips, 4, 0);
	/* a shorter kernel stack is another one */
	block(rec, T0 + 600, 0);
	synth_stack(rec, T0 + 600, 0, 101, 100, kips, 2, NULL, 0, FREC_STACK_USER_ERR);
	assert_int_equal(synth_write(rec, dir, "d.frec", T0 + 1000), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks, 6);
	assert_int_equal(st.stacks_distinct, 4);
	assert_int_equal(st.stacks_orphaned, 0);
	read_snap(dir, "d.frec", &got, NULL, NULL);
	assert_int_equal(stack_events(&got, se, 8), 6);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(se[i].stack.kstack, 1);
		assert_int_equal(se[i].stack.ustack, 2);
	}
	assert_int_equal(se[3].stack.kstack, 1);
	assert_int_equal(se[3].stack.ustack, 3);
	assert_int_equal(se[3].tid, 201);
	assert_int_equal(se[4].stack.kstack, 0);
	assert_int_equal(se[4].stack.ustack, 2);
	assert_int_equal(se[5].stack.kstack, 4);
	assert_int_equal(se[5].stack.ustack, 0);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

static void check_two_stacks(struct frec_gen *g, unsigned gen, void *arg)
{
	const struct frec_stack *k = frec_gen__stack(g, 1 + gen), *u = frec_gen__stack(g, 2 + gen);

	(void)arg;
	assert_int_equal(frec_gen__info(g)->nstacks, 2 + gen);
	assert_non_null(k);
	assert_non_null(u);
	assert_int_equal(k->kind, FREC_STACK_KERNEL);
	assert_int_equal(u->kind, FREC_STACK_USER);
	frame_eq(&u->frames[0], "app_4010", 0x40, "/bin/app", "b1ab", 0x1040);
}

/* Every generation has its own stack table: a stack seen in two is
 * stored in both, with the same index, and each names it. */
static void test_per_generation(void **state)
{
	struct frec_recorder *rec = new_rec(0, 0);
	struct synth_sym ctx = { 0 };
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	struct frec_recorder_stats st;
	struct frec_event se[4];
	struct got got;
	char dir[64];

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__set_symbolizer(rec, &sym);
	frec_recorder__tick(rec, T0);
	block(rec, T0, 0);
	synth_stack(rec, T0, 0, 101, 100, kips, 3, uips, 4, 0);
	assert_int_equal(frec_recorder__seal(rec, T0 + 1000), 1);
	/* a new stack first: the new table's first entry */
	block(rec, T0 + 1900, 0);
	synth_stack(rec, T0 + 1900, 0, 101, 100, kips + 1, 1, NULL, 0, 0);
	block(rec, T0 + 2000, 0);
	synth_stack(rec, T0 + 2000, 0, 101, 100, kips, 3, uips, 4, 0);
	assert_int_equal(synth_write(rec, dir, "g.frec", T0 + 3000), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks_distinct, 5);
	/* each frame named once per generation */
	assert_int_equal(ctx.kernel_calls, 7);
	assert_int_equal(ctx.user_calls, 8);
	read_snap(dir, "g.frec", &got, check_two_stacks, NULL);
	assert_int_equal(got.gens, 2);
	assert_int_equal(stack_events(&got, se, 4), 3);
	assert_int_equal(se[0].stack.kstack, 1);
	assert_int_equal(se[0].stack.ustack, 2);
	assert_int_equal(se[1].stack.kstack, 1);
	assert_int_equal(se[1].stack.ustack, 0);
	assert_int_equal(se[2].stack.kstack, 2);
	assert_int_equal(se[2].stack.ustack, 3);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A full table: index 0 for that kind, counted; the generation is sealed
 * before the next event, and the next one has room again. */
static void test_table_full(void **state)
{
	struct frec_recorder *rec = new_rec(2, 0);
	struct frec_recorder_stats st;
	struct frec_event se[4];
	struct got got;
	char dir[64];
	__u64 other[2] = { SYNTH_APP + 0x10, SYNTH_APP + 0x20 };

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	block(rec, T0, 0);
	synth_stack(rec, T0, 0, 101, 100, kips, 3, uips, 4, 0);	/* 2 of 2 */
	block(rec, T0 + 100, 0);
	synth_stack(rec, T0 + 100, 0, 101, 100, kips, 3, other, 2, 0);	/* user: full */
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks_unstored, 1);
	assert_int_equal(st.generations_sealed, 0);
	block(rec, T0 + 200, 0);	/* seals first */
	synth_stack(rec, T0 + 200, 0, 101, 100, kips, 3, other, 2, 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.generations_sealed, 1);
	assert_int_equal(st.stacks_unstored, 1);
	assert_int_equal(synth_write(rec, dir, "f.frec", T0 + 1000), 0);
	read_snap(dir, "f.frec", &got, NULL, NULL);
	assert_int_equal(got.gens, 2);
	assert_int_equal(stack_events(&got, se, 4), 3);
	assert_int_equal(se[1].stack.kstack, 1);	/* the kernel stack was there */
	assert_int_equal(se[1].stack.ustack, 0);
	assert_int_equal(se[2].stack.kstack, 1);
	assert_int_equal(se[2].stack.ustack, 2);
	frec_recorder__free(rec);

	/* The frame arena fills too: 5 frames hold the first stack only. */
	rec = new_rec(0, 5);
	frec_recorder__tick(rec, T0);
	block(rec, T0, 0);
	synth_stack(rec, T0, 0, 101, 100, kips, 3, uips, 4, 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks_unstored, 1);
	assert_int_equal(synth_write(rec, dir, "f2.frec", T0 + 1000), 0);
	read_snap(dir, "f2.frec", &got, NULL, NULL);
	assert_int_equal(stack_events(&got, se, 4), 1);
	assert_int_equal(se[0].stack.kstack, 1);
	assert_int_equal(se[0].stack.ustack, 0);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A stack whose event is not the last one stored on its CPU, in the open
 * generation, with its ts and thread, is dropped and counted. */
static void test_orphans(void **state)
{
	struct frec_recorder *rec = new_rec(0, 0);
	struct frec_recorder_stats st;
	_Alignas(8) unsigned char buf[SYNTH_STACK_REC_MAX];
	struct frec_rec_switch bad;
	struct frec_event se[8];
	unsigned orphans = 0;
	struct got got;
	char dir[64];
	__u64 t = T0;
	size_t n;

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, t);
#define ORPHAN(...)								\
	do {									\
		assert_int_equal(synth_stack(rec, __VA_ARGS__), 0);		\
		frec_recorder__stats(rec, &st);					\
		assert_int_equal(st.stacks_orphaned, ++orphans);		\
	} while (0)
	/* nothing before it on its CPU */
	ORPHAN(t, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* another ts */
	block(rec, t += 100, 0);
	ORPHAN(t + 1, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* another thread: next, not prev */
	block(rec, t += 100, 0);
	ORPHAN(t, 0, 0, 0, kips, 3, NULL, 0, 0);
	/* not a switch or probe hit */
	synth_wake(rec, FREC_EV_SCHED_WAKING, t += 100, 0, 101, 100, 102, 100, "helper", 1);
	ORPHAN(t, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* a lost event on that CPU came between */
	block(rec, t += 100, 0);
	frec_recorder__add_lost(rec, 0, 2, t);
	ORPHAN(t, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* a second stack for one switch */
	block(rec, t += 100, 0);
	assert_int_equal(synth_stack(rec, t, 0, 101, 100, kips, 3, NULL, 0, 0), 0);
	ORPHAN(t, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* a CPU the recorder does not track */
	synth_switch(rec, t += 100, 7, 101, 100, "worker", 1, 0, 0, "swapper/7");
	ORPHAN(t, 7, 101, 100, kips, 3, NULL, 0, 0);
	/* a malformed switch record after a good one of the same ts */
	block(rec, t += 100, 0);
	memset(&bad, 0, sizeof(bad));
	synth_hdr(&bad.h, t, 0, 101, 100, FREC_EV_SCHED_SWITCH, sizeof(bad));
	assert_int_equal(frec_recorder__push(rec, &bad, sizeof(bad) - 8), -EINVAL);
	ORPHAN(t, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* a seal between the switch and its stack */
	block(rec, t += 100, 0);
	assert_int_equal(frec_recorder__seal(rec, t + 1), 1);
	ORPHAN(t, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* a late switch (before that seal) */
	assert_int_equal(synth_switch(rec, t - 50, 0, 101, 100, "worker", 1, 0, 0, "swapper"),
			 -ESTALE);
	ORPHAN(t - 50, 0, 101, 100, kips, 3, NULL, 0, 0);
	/* events on other CPUs in between do not matter */
	block(rec, t += 100, 0);
	synth_wake(rec, FREC_EV_SCHED_WAKING, t, 1, 102, 100, 103, 100, "x", 1);
	assert_int_equal(synth_stack(rec, t, 0, 101, 100, kips, 3, NULL, 0, 0), 0);
#undef ORPHAN
	/* Malformed records: counted, refused. */
	n = synth_stack_record(buf, t, 0, 101, 100, kips, 3, NULL, 0, 0);
	((struct frec_rec_stack *)buf)->h.size += 8;
	assert_int_equal(frec_recorder__push(rec, buf, n + 8), -EINVAL);
	((struct frec_rec_stack *)buf)->h.size -= 8;
	assert_int_equal(frec_recorder__push(rec, buf, n - 1), -EINVAL);
	((struct frec_rec_stack *)buf)->kframes = FREC_MAX_STACK_DEPTH + 1;
	((struct frec_rec_stack *)buf)->h.size = (__u32)(sizeof(struct frec_rec_stack) +
							 8 * (FREC_MAX_STACK_DEPTH + 1));
	assert_int_equal(frec_recorder__push(rec, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(frec_recorder__push(rec, buf, 10), -EINVAL);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.malformed, 5);
	assert_int_equal(st.stacks, 2);
	assert_int_equal(st.stacks_orphaned, orphans);
	assert_int_equal(synth_write(rec, dir, "o.frec", t + 1000), 0);
	read_snap(dir, "o.frec", &got, NULL, NULL);
	assert_int_equal(got.last_rc, 0);
	assert_int_equal(stack_events(&got, se, 8), 2);
	/* The late switch's lost record waited for the stack of the next
	 * switch on its CPU, then followed it. */
	assert_true(got.nev >= 2);
	assert_int_equal(got.ev[got.nev - 2].type, FREC_EV_STACK);
	assert_int_equal(got.ev[got.nev - 1].type, FREC_EV_LOST);
	assert_int_equal(got.ev[got.nev - 1].cpu, 0);
	assert_int_equal(got.ev[got.nev - 1].lost.count, 1);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A switch discarded for want of memory (the window pinned, the pool
 * dry) leaves its stack an orphan, even when the switch stored before it
 * on that CPU had the same ts and thread. */
static void test_orphan_discarded(void **state)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o), .max_bytes = 64 << 10, .gen_max_bytes = 8192,
		.chunk_bytes = 4096, .ncpus = 2, .max_threads = 256, .max_processes = 64,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	__u64 t = 0, last = 0;
	int rc = 0;

	(void)state;
	assert_non_null(rec);
	/* a window of tiny generations (11 chunks: 5 are the open
	 * generation's room), pinned as a snapshot would */
	for (unsigned i = 0; i < 11; i++) {
		t = T0 + i * 2000000ull;
		synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
		block(rec, t + 1000, 0);
		assert_int_equal(frec_recorder__seal(rec, t + 1000000), 1);
	}
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);
	for (unsigned i = 0; i < 5000 && !rc; i++) {
		t = T0 + 100000000ull + i * 1000ull;
		rc = synth_switch(rec, t, 0, 101, 100, "worker", 1, 0, 0, "swapper");
		if (!rc)
			last = t;
	}
	assert_int_equal(rc, -ENOSPC);
	assert_true(last > T0 + 100000000ull);
	/* No seal made room: the last switch stored is in the open generation. */
	frec_recorder__stats(rec, &st);
	assert_true(st.open_events > 0);
	/* The one before was stored; the same switch again is discarded. */
	assert_int_equal(synth_switch(rec, last, 0, 101, 100, "worker", 1, 0, 0, "swapper"), -ENOSPC);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks_orphaned, 0);
	assert_int_equal(synth_stack(rec, last, 0, 101, 100, kips, 3, NULL, 0, 0), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.stacks_orphaned, 1);
	assert_int_equal(st.stacks, 0);
	frec_recorder__unpin(rec, pin);
	frec_recorder__free(rec);
}

static void check_images(struct frec_gen *g, unsigned gen, void *arg)
{
	const struct frec_stack *a = frec_gen__stack(g, 1), *b = frec_gen__stack(g, 2);

	(void)gen;
	(void)arg;
	assert_int_equal(frec_gen__info(g)->nstacks, 2);
	assert_int_equal(frec_gen__info(g)->nmappings, 2);
	frame_eq(&a->frames[0], "app_4010", 0x40, "/bin/app", "b1ab", 0x1040);
	frame_eq(&b->frames[0], "app_4010", 0x40, "/bin/app.1", "b1ab", 0x1040);
}

/* The same addresses before and after an exec are two stacks, each named
 * in its own image. */
static void test_images(void **state)
{
	struct frec_recorder *rec = new_rec(0, 0);
	struct synth_sym ctx = { 0 };
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	struct frec_event se[4];
	struct got got;
	char dir[64];

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__set_symbolizer(rec, &sym);
	frec_recorder__tick(rec, T0);
	block(rec, T0, 0);
	synth_stack(rec, T0, 0, 101, 100, NULL, 0, uips, 1, 0);
	ctx.images[100 % 8] = 1;	/* 100 exec'd */
	block(rec, T0 + 100, 0);
	synth_stack(rec, T0 + 100, 0, 101, 100, NULL, 0, uips, 1, 0);
	block(rec, T0 + 200, 0);
	synth_stack(rec, T0 + 200, 0, 101, 100, NULL, 0, uips, 1, 0);
	assert_int_equal(synth_write(rec, dir, "i.frec", T0 + 1000), 0);
	read_snap(dir, "i.frec", &got, check_images, NULL);
	assert_int_equal(stack_events(&got, se, 4), 3);
	assert_int_equal(se[0].stack.ustack, 1);
	assert_int_equal(se[1].stack.ustack, 2);
	assert_int_equal(se[2].stack.ustack, 2);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

static void check_unnamed(struct frec_gen *g, unsigned gen, void *arg)
{
	const struct frec_stack *k = frec_gen__stack(g, 1), *u = frec_gen__stack(g, 2);

	(void)gen;
	(void)arg;
	assert_int_equal(frec_gen__info(g)->nmappings, 0);
	for (unsigned i = 0; i < 3; i++)
		frame_eq(&k->frames[i], NULL, 0, "[kernel]", NULL, 0);
	for (unsigned i = 0; i < 4; i++)
		frame_eq(&u->frames[i], NULL, 0, NULL, NULL, uips[i]);
}

/* Does the file hold v as a varint anywhere? */
static bool file_has_varint(const char *dir, const char *name, __u64 v)
{
	uint8_t pat[VARINT_MAX], buf[8192];
	size_t plen = (size_t)(put_varint(pat, v) - pat), n;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return memmem(buf, n, pat, plen) != NULL;
}

/* No symbolizer (or one removed): kernel frames unnamed and no kernel
 * address in the file; user frames keep their addresses. */
static void test_no_symbolizer(void **state)
{
	struct frec_recorder *rec = new_rec(0, 0);
	struct synth_sym ctx = { 0 };
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	struct got got;
	char dir[64];

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__set_symbolizer(rec, &sym);
	assert_int_equal(frec_recorder__set_symbolizer(rec, NULL), 0);
	frec_recorder__tick(rec, T0);
	block(rec, T0, 0);
	synth_stack(rec, T0, 0, 101, 100, kips, 3, uips, 4, 0);
	assert_int_equal(synth_write(rec, dir, "n.frec", T0 + 1000), 0);
	assert_int_equal(ctx.image_calls + ctx.kernel_calls + ctx.user_calls, 0);
	read_snap(dir, "n.frec", &got, check_unnamed, NULL);
	assert_int_equal(got.nev, 2);
	for (unsigned i = 0; i < 3; i++)
		assert_false(file_has_varint(dir, "n.frec", kips[i]));
	assert_true(file_has_varint(dir, "n.frec", uips[0]));	/* the test can see one */
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* --- what the reader refuses ------------------------------------------------
 * Blocks built byte by byte: one thread (tid 5), strings "f" and "/x", an
 * event stream of one switch, then sections 4 and 5 as given. */

struct bb {
	uint8_t b[1 << 16];
	size_t n;
};

static void bv(struct bb *b, uint64_t v)
{
	b->n = (size_t)(put_varint(b->b + b->n, v) - b->b);
}

static void bstr(struct bb *b, const char *s)
{
	bv(b, strlen(s));
	memcpy(b->b + b->n, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
}

/* A growing buffer for a whole payload. */
struct rb {
	uint8_t *b;
	size_t n, cap;
};

static void rput(struct rb *r, const void *p, size_t n)
{
	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2;
		r->b = realloc(r->b, r->cap);
		assert_non_null(r->b);
	}
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void rv(struct rb *r, uint64_t v)
{
	uint8_t t[VARINT_MAX];

	rput(r, t, (size_t)(put_varint(t, v) - t));
}

static void rstr(struct rb *r, const char *s)
{
	rv(r, strlen(s));
	rput(r, s, strlen(s) + 1);
}

static void rsection(struct rb *r, unsigned id, const uint8_t *p, size_t n)
{
	rv(r, id);
	rv(r, n);
	rput(r, p, n);
}

/* The file: an empty snapshot's header, then the block. Returns the
 * result of reading it: 1 read whole, 0 block damaged, -1 an event
 * invalid (the generation stops there). */
static int read_crafted_raw(const struct bb *ev, unsigned nev, const uint8_t *s4, size_t s4n,
			    const struct bb *s5)
{
	struct rb raw = { 0 };
	struct frec_recorder *rec = new_rec(0, 0);
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event e;
	char dir[64], path[128];
	uint8_t *blk;
	size_t blen;
	int rc, res;
	FILE *f;

	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(synth_write(rec, dir, "c.frec", T0), 0);	/* header only */
	frec_recorder__free(rec);
	rput(&raw, ev->b, ev->n);
	rv(&raw, 1);		/* seq */
	rv(&raw, 100);		/* start_ts */
	rv(&raw, 200);		/* end_ts */
	rv(&raw, nev);
	rv(&raw, 0);		/* no counts by type */
	rv(&raw, 1);		/* one CPU */
	rv(&raw, 0);
	rv(&raw, 1);		/* threads */
	rv(&raw, 0);
	rv(&raw, 0);
	rv(&raw, 2);		/* strings */
	rv(&raw, 5);
	rv(&raw, 5);
	rv(&raw, THREAD_NAME_BYTE(0, 1));	/* "t": bytes below 128 are */
	rv(&raw, 't');				/* one-byte varints */
	rstr(&raw, "f");
	rstr(&raw, "/x");
	rv(&raw, (s4 ? 1 : 0) + (s5 ? 1 : 0));
	if (s4)
		rsection(&raw, SECTION_STACKS, s4, s4n);
	if (s5)
		rsection(&raw, SECTION_MAPPINGS, s5->b, s5->n);
	blk = synth_deflate_block(raw.b, raw.n, ev->n, raw.n, 6, 8, &blen);
	assert_non_null(blk);
	free(raw.b);
	snprintf(path, sizeof(path), "%s/c.frec", dir);
	f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(blk, 1, blen, f), blen);
	fclose(f);
	free(blk);
	assert_int_equal(frec_reader__open(path, &r), 0);
	rc = frec_reader__next_gen(r, &g);
	if (rc == 1) {
		while ((rc = frec_gen__next_event(g, &e)) == 1)
			;
		res = rc == 0 ? 1 : -1;
	} else {
		assert_int_equal(rc, -EBADMSG);
		assert_int_equal(frec_reader__damaged(r), 1);
		res = 0;
	}
	frec_reader__free(r);
	synth_rmdir(dir);
	return res;
}

static int read_crafted(const struct bb *ev, unsigned nev, const struct bb *s4,
			const struct bb *s5)
{
	return read_crafted_raw(ev, nev, s4 ? s4->b : NULL, s4 ? s4->n : 0, s5);
}

/* One stack event on cpu 0, thread 0, kstack k, ustack u. */
static void stack_ev(struct bb *ev, uint32_t k, uint32_t u)
{
	ev->n = 0;
	ev->b[ev->n++] = FREC_EV_STACK;	/* cpu 0 */
	bv(ev, 200);			/* ts 100 */
	ev->b[ev->n++] = INFO_T;
	bv(ev, 0);
	bv(ev, k);
	bv(ev, u);
}

/* Section 4: one kernel stack (frames "f"+8, unnamed), one user stack
 * (mapping m1 at 0x10 named sym1, then no mapping at 0x1234). */
static void s4_std(struct bb *s4, uint32_t ksym1, uint32_t m1, uint32_t usym1)
{
	s4->n = 0;
	bv(s4, 2);
	bv(s4, FREC_STACK_KERNEL);
	bv(s4, 2);
	bv(s4, ksym1);
	if (ksym1)
		bv(s4, 8);
	bv(s4, 0);
	bv(s4, FREC_STACK_USER);
	bv(s4, 2);
	bv(s4, m1);
	bv(s4, 0x10);
	bv(s4, usym1);
	if (usym1)
		bv(s4, 4);
	bv(s4, 0);
	bv(s4, 0x1234);
	bv(s4, 0);
}

static void s5_std(struct bb *s5)
{
	s5->n = 0;
	bv(s5, 1);
	bstr(s5, "/x");
	bstr(s5, "ab12");
}

static void test_reader_rejects(void **state)
{
	static struct bb ev, s4, s5;

	(void)state;
	/* What is right reads. */
	stack_ev(&ev, 1, 2);
	s4_std(&s4, 1, 1, 1);
	s5_std(&s5);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 1);
	/* A symbol past the string table, in either kind. */
	s4_std(&s4, 3, 1, 1);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4_std(&s4, 1, 1, 3);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	/* A mapping past section 5, and section 4 without section 5. */
	s4_std(&s4, 1, 2, 1);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4_std(&s4, 1, 1, 1);
	assert_int_equal(read_crafted(&ev, 1, &s4, NULL), 0);
	s4_std(&s4, 1, 0, 1);	/* even when no frame has a mapping */
	assert_int_equal(read_crafted(&ev, 1, &s4, NULL), 0);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 1);
	s4_std(&s4, 1, 1, 1);
	/* Stack events: past the table, or of the other kind. */
	stack_ev(&ev, 3, 2);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), -1);
	stack_ev(&ev, 1, 1);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), -1);
	stack_ev(&ev, 2, 0);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), -1);
	stack_ev(&ev, 0, 0);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 1);
	stack_ev(&ev, 1, 0);
	assert_int_equal(read_crafted(&ev, 1, NULL, NULL), -1);	/* no section 4 */
	/* An unknown kind, an empty stack, one too deep. */
	stack_ev(&ev, 0, 0);
	s4.n = 0;
	bv(&s4, 1);
	bv(&s4, 3);
	bv(&s4, 1);
	bv(&s4, 0);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4.n = 0;
	bv(&s4, 1);
	bv(&s4, FREC_STACK_KERNEL);
	bv(&s4, 0);
	bv(&s4, 0);	/* padding: the count fits the bytes */
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4.n = 0;
	bv(&s4, 1);
	bv(&s4, FREC_STACK_KERNEL);
	bv(&s4, FREC_MAX_STACK_DEPTH + 1);
	for (unsigned i = 0; i <= FREC_MAX_STACK_DEPTH; i++)
		bv(&s4, 0);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4.n--;		/* 127 frames: fine */
	s4.b[2] = FREC_MAX_STACK_DEPTH;
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 1);
	/* Counts the bytes cannot hold: stacks, frames, mappings. */
	s4.n = 0;
	bv(&s4, 1000000);
	bv(&s4, FREC_STACK_KERNEL);
	bv(&s4, 1);
	bv(&s4, 0);
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4.n = 0;
	bv(&s4, 1);
	bv(&s4, FREC_STACK_USER);
	bv(&s4, 2);
	bv(&s4, 0);
	bv(&s4, 0);
	bv(&s4, 0);
	bv(&s4, 0);	/* 4 bytes for 2 user frames */
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	s4_std(&s4, 1, 1, 1);
	s5.n = 0;
	bv(&s5, 2);
	bstr(&s5, "/x");
	bstr(&s5, "");
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
	/* Trailing bytes in a section. */
	s5_std(&s5);
	s5.b[s5.n++] = 0;
	assert_int_equal(read_crafted(&ev, 1, &s4, &s5), 0);
}

/* More frames than a block may hold (2^20), each a byte: refused once the
 * count passes the limit. */
static void test_reader_frame_limit(void **state)
{
	const uint32_t per = FREC_MAX_STACK_DEPTH, nstk = (1u << 20) / FREC_MAX_STACK_DEPTH + 1;
	static struct bb ev, s5;
	struct rb s4 = { 0 };
	uint8_t frames[FREC_MAX_STACK_DEPTH + 2] = { FREC_STACK_KERNEL, FREC_MAX_STACK_DEPTH };

	(void)state;
	stack_ev(&ev, 0, 0);
	s5.n = 0;
	bv(&s5, 0);
	rv(&s4, nstk);
	for (uint32_t i = 0; i < nstk; i++)
		rput(&s4, frames, per + 2);
	assert_int_equal(read_crafted_raw(&ev, 1, s4.b, s4.n, &s5), 0);
	/* One stack fewer fits. */
	s4.n = 0;
	rv(&s4, nstk - 1);
	for (uint32_t i = 0; i < nstk - 1; i++)
		rput(&s4, frames, per + 2);
	assert_int_equal(read_crafted_raw(&ev, 1, s4.b, s4.n, &s5), 1);
	free(s4.b);
}

/* The stack table's options: defaults, the limits a reader reads, and the
 * table's bytes counted. */
static void test_opts(void **state)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o), .max_bytes = 1 << 20, .chunk_bytes = 4096, .ncpus = 2,
		.max_threads = 64, .max_processes = 64,
	};
	struct frec_recorder_stats small, big;
	struct frec_recorder *rec;

	(void)state;
	o.max_stacks = 16;
	o.max_stack_frames = 64;
	rec = frec_recorder__new(&o);
	assert_non_null(rec);
	frec_recorder__stats(rec, &small);
	frec_recorder__free(rec);
	o.max_stacks = 1u << 15;	/* frames by default: 2^20, the limit */
	o.max_stack_frames = 0;
	rec = frec_recorder__new(&o);
	assert_non_null(rec);
	frec_recorder__stats(rec, &big);
	frec_recorder__free(rec);
	/* 32 bytes a frame (address and what seal makes of it) at least */
	assert_true(big.tables_bytes - small.tables_bytes > (32ull << 20));
	o.max_stacks = 1u << 16;	/* the default frames are capped */
	rec = frec_recorder__new(&o);
	assert_non_null(rec);
	frec_recorder__free(rec);
	o.max_stack_frames = (1u << 20) + 1;
	assert_null(frec_recorder__new(&o));
	assert_int_equal(errno, EINVAL);
	o.max_stack_frames = 0;
	o.max_stacks = (1u << 20) + 1;
	assert_null(frec_recorder__new(&o));
	assert_int_equal(errno, EINVAL);
}

static void check_offcpu(struct frec_gen *g, unsigned gen, void *arg)
{
	static const char *const kn[4] = { "schedule", "do_nanosleep", "hrtimer_nanosleep",
					   "__x64_sys_nanosleep" };
	static const char *const un[4] = { "inner", "middle", "outer", "main" };
	const struct frec_stack *k = frec_gen__stack(g, 1), *u = frec_gen__stack(g, 2);

	(void)gen;
	(void)arg;
	assert_int_equal(frec_gen__info(g)->nstacks, 4);
	assert_int_equal(frec_gen__info(g)->nmappings, 1);
	assert_int_equal(k->nframes, 4);
	assert_int_equal(u->nframes, 4);
	for (unsigned i = 0; i < 4; i++) {
		frame_eq(&k->frames[i], kn[i], 0x10 * (i + 1), "[kernel]", NULL, 0);
		frame_eq(&u->frames[i], un[i], 0x8 + 0x10 * i, "/bin/app", "b1ab",
			 SYNTH_FN(i) + 0x8 + 0x10 * i - SYNTH_APP);
	}
	assert_int_equal(frec_gen__stack(g, 3)->nframes, 1);
	assert_string_equal(frec_gen__stack(g, 4)->frames[0].sym, "main");
}

/* The known off-CPU snapshot of synth.h is what it says. */
static void test_offcpu_snapshot(void **state)
{
	__u64 out_ts = 0, off = 0;
	unsigned blocks = 0;
	struct got got;
	char dir[64];

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(synth_offcpu_snapshot(dir, "x.frec"), 0);
	read_snap(dir, "x.frec", &got, check_offcpu, NULL);
	assert_int_equal(got.gens, 1);
	for (unsigned i = 0; i < got.nev; i++) {
		const struct frec_event *e = &got.ev[i];

		if (e->type == FREC_EV_STACK && e->tid == 401 && e->stack.kstack) {
			assert_int_equal(e->stack.kstack, 1);
			assert_int_equal(e->stack.ustack, 2);
			assert_int_equal(got.ev[i - 1].type, FREC_EV_SCHED_SWITCH);
			out_ts = e->ts;
			blocks++;
		}
		if (e->type == FREC_EV_SCHED_SWITCH && e->sw.next_pid == 401 && out_ts) {
			off += e->ts - out_ts;
			out_ts = 0;
		}
	}
	assert_int_equal(blocks, SYNTH_OFFCPU_BLOCKS);
	assert_int_equal(off, SYNTH_OFFCPU_BLOCKS * SYNTH_OFFCPU_BLOCK_NS);
	synth_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_dedupe),
		cmocka_unit_test(test_per_generation),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_orphans),
		cmocka_unit_test(test_orphan_discarded),
		cmocka_unit_test(test_images),
		cmocka_unit_test(test_no_symbolizer),
		cmocka_unit_test(test_reader_rejects),
		cmocka_unit_test(test_reader_frame_limit),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_offcpu_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
