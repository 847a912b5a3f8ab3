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
	struct frec_event ev[64];
	unsigned gen_of[64];
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
			if (out->nev < 64) {
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
	struct frec_recorder_stats st;
	struct got got;
	char dir[64];

	(void)state;
	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(frec_recorder__set_symbolizer(rec, &sym), 0);
	frec_recorder__set_probes(rec, &probe, 1);
	frec_recorder__tick(rec, T0);
	synth_switch(rec, T0, 1, 0, 0, "swapper/1", 0, 102, 100, "helper");
	block(rec, T0 + 100, 0);
	assert_int_equal(synth_stack(rec, T0 + 100, 0, 101, 100, kips, 3, uips, 4, 0), 0);
	synth_probe(rec, FREC_EV_UPROBE, T0 + 200, 1, 102, 100, 1, 0, NULL, 0);
	assert_int_equal(synth_stack(rec, T0 + 200, 1, 102, 100, NULL, 0, uips, 1,
				     FREC_STACK_KERN_ERR), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
