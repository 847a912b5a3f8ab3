// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format perfetto: the output decodes (protoc --decode_raw and
 * a reader here that follows the Perfetto field numbers), and holds every
 * sched_switch and sched_waking of the snapshot in per-CPU compact_sched
 * arrays in time order, every other scheduler event as an FtraceEvent, a
 * process tree per generation, every probe hit as a track event (entries as
 * SLICE_BEGIN, returns as SLICE_END, USDT as INSTANT), and every lost-records
 * event as a bundle flagged lost_events. --gzip gives the same bytes,
 * compressed.
 *
 * What trace_processor needs to read it right: system_info with the kernel
 * release, a clock snapshot, FtraceStats with the losses, ppids, task_newtask
 * and sched_process_free, and full sched_switch events where a compact one
 * would have its prev inferred wrongly (each CPU's first switch, a broken
 * chain). Every trace is decoded with protoc against tests/proto's schema of
 * what frec emits: a field it does not name fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <cmocka.h>
#include "synth.h"
#include "synth_chain.h"
#include "tools_test.h"

#ifndef FREC_PROTO_SCHEMA
#define FREC_PROTO_SCHEMA "tests/proto/frec_perfetto.proto"	/* make runs tests at the top */
#endif

static int setup(void **state)
{
	return tools_fixture_setup(state, "known.frec", synth_known_snapshot, "out.pftrace");
}

/* What the trace holds, by the numbers. */
struct census {
	unsigned long packets;
	unsigned long bundles, lost_bundles;
	unsigned long switches, wakings;
	unsigned long ftrace[600];		/* FtraceEvent by oneof field number */
	unsigned long process_trees, processes, threads;
	unsigned long descriptors, begins, ends, instants;
	unsigned long args, rets;
	unsigned long long last_ts[64];		/* per CPU, across bundles */
	int disorder;				/* a CPU's timestamps went back */
	/* full sched_switch events, the first 64 of them */
	unsigned long full_switches;
	struct {
		unsigned long long ts, prev, next, state;
	} full[64];
	unsigned long ppids;			/* processes with a ppid */
	long long ppid_of_103;
	char release[80];			/* system_info.utsname.release */
	unsigned long system_infos, clock_snapshots, clocks;
	unsigned long long boottime, realtime;
	unsigned long stats_start, stats_end;
	unsigned long long dropped_end[64];	/* per CPU, END_OF_TRACE */
	unsigned long newtask_threads;		/* task_newtask with CLONE_THREAD */
};

static void full_switch(struct census *c, const struct pbf *ev, unsigned long long ts)
{
	struct pbr r = pbr_of(ev);
	struct pbf f;
	unsigned long i = c->full_switches++;

	if (i >= 64)
		return;
	c->full[i].ts = ts;
	while (pbr_next(&r, &f) > 0) {
		if (f.field == 2)
			c->full[i].prev = f.v;
		else if (f.field == 6)
			c->full[i].next = f.v;
		else if (f.field == 4)
			c->full[i].state = f.v;
	}
}

static void check_compact(struct census *c, unsigned int cpu, const struct pbf *cs)
{
	struct pbr r = pbr_of(cs);
	struct pbf f;
	long n[13] = { 0 }, interned = 0;
	unsigned long long acc = 0, v;

	while (pbr_next(&r, &f) > 0) {
		assert_true(f.field >= 1 && f.field <= 12);
		if (f.field == 5) {
			interned++;
			continue;
		}
		assert_int_equal(f.wire, 2);	/* packed */
		n[f.field] = pbr_count_packed(&f);
		assert_true(n[f.field] >= 0);
		if (f.field == 1) {
			/* first absolute, then deltas: time order within the CPU */
			struct pbr t = pbr_of(&f);

			while (pbr_varint(&t, &v) > 0) {
				acc += v;
				if (acc < c->last_ts[cpu])
					c->disorder = 1;
				c->last_ts[cpu] = acc;
			}
		}
		if (f.field == 6 || f.field == 11) {
			struct pbr t = pbr_of(&f);

			while (pbr_varint(&t, &v) > 0)
				assert_true((long)v < interned);
		}
	}
	/* structure of arrays: one entry per event in each */
	assert_int_equal(n[2], n[1]);
	assert_int_equal(n[3], n[1]);
	assert_int_equal(n[4], n[1]);
	assert_int_equal(n[6], n[1]);
	assert_int_equal(n[8], n[7]);
	assert_int_equal(n[9], n[7]);
	assert_int_equal(n[10], n[7]);
	assert_int_equal(n[11], n[7]);
	c->switches += (unsigned long)n[1];
	c->wakings += (unsigned long)n[7];
}

static void check_bundle(struct census *c, const struct pbf *b)
{
	struct pbr r = pbr_of(b);
	struct pbf f;
	unsigned int cpu = 0;
	bool have_cpu = false;
	struct pbf compact = { 0 };

	c->bundles++;
	while (pbr_next(&r, &f) > 0) {
		if (f.field == 1) {
			cpu = (unsigned int)f.v;
			have_cpu = true;
		} else if (f.field == 3) {
			c->lost_bundles += f.v == 1;
		} else if (f.field == 4) {
			compact = f;
		} else if (f.field == 2) {
			struct pbr e = pbr_of(&f);
			struct pbf g, body = { 0 };
			unsigned int oneof = 0;
			unsigned long long ts = 0;

			while (pbr_next(&e, &g) > 0) {
				if (g.field == 1)
					ts = g.v;
				if (g.field > 2) {
					oneof = g.field;
					body = g;
				}
			}
			assert_true(oneof > 0 && oneof < 600);
			c->ftrace[oneof]++;
			if (oneof == 4)
				full_switch(c, &body, ts);
			if (oneof == 235) {
				struct pbr t = pbr_of(&body);

				while (pbr_next(&t, &g) > 0)
					c->newtask_threads += g.field == 3 && (g.v & 0x10000);
			}
		}
	}
	assert_true(have_cpu);
	assert_true(cpu < 64);
	if (compact.data)
		check_compact(c, cpu, &compact);
}

static void check_track_event(struct census *c, const struct pbf *te)
{
	struct pbr r = pbr_of(te);
	struct pbf f;
	bool uuid = false;

	while (pbr_next(&r, &f) > 0) {
		if (f.field == 9) {
			c->begins += f.v == 1;
			c->ends += f.v == 2;
			c->instants += f.v == 3;
		} else if (f.field == 11) {
			uuid = true;
		} else if (f.field == 4) {
			struct pbr a = pbr_of(&f);
			struct pbf g;

			while (pbr_next(&a, &g) > 0)
				if (g.field == 10 && g.len == 3 && !memcmp(g.data, "ret", 3))
					c->rets++;
				else if (g.field == 10 && g.len == 4 && !memcmp(g.data, "arg", 3))
					c->args++;
		}
	}
	assert_true(uuid);
}

static void process(struct census *c, const struct pbf *p)
{
	struct pbr r = pbr_of(p);
	struct pbf f;
	long long pid = -1, ppid = -1;

	while (pbr_next(&r, &f) > 0) {
		if (f.field == 1)
			pid = (long long)f.v;
		else if (f.field == 2)
			ppid = (long long)f.v;
	}
	c->ppids += ppid >= 0;
	if (pid == 103)
		c->ppid_of_103 = ppid;
}

static void system_info(struct census *c, const struct pbf *si)
{
	struct pbr r = pbr_of(si), u;
	struct pbf f, g;

	c->system_infos++;
	while (pbr_next(&r, &f) > 0) {
		if (f.field != 1)
			continue;
		u = pbr_of(&f);
		while (pbr_next(&u, &g) > 0)
			if (g.field == 3 && g.len < sizeof(c->release))
				memcpy(c->release, g.data, g.len);
	}
}

static void clock_snapshot(struct census *c, const struct pbf *cs)
{
	struct pbr r = pbr_of(cs), k;
	struct pbf f, g;

	c->clock_snapshots++;
	while (pbr_next(&r, &f) > 0) {
		unsigned long long id = 0, ts = 0;

		if (f.field != 1)
			continue;
		c->clocks++;
		k = pbr_of(&f);
		while (pbr_next(&k, &g) > 0) {
			if (g.field == 1)
				id = g.v;
			else if (g.field == 2)
				ts = g.v;
		}
		if (id == 6)
			c->boottime = ts;
		else if (id == 1)
			c->realtime = ts;
	}
}

static void ftrace_stats(struct census *c, const struct pbf *fs)
{
	struct pbr r = pbr_of(fs), k;
	struct pbf f, g;
	unsigned long long phase = 0;

	while (pbr_next(&r, &f) > 0) {
		unsigned long long cpu = 0, dropped = 0;

		if (f.field == 1) {
			phase = f.v;
			continue;
		}
		if (f.field != 2)
			continue;
		k = pbr_of(&f);
		while (pbr_next(&k, &g) > 0) {
			if (g.field == 1)
				cpu = g.v;
			else if (g.field == 8)
				dropped = g.v;
		}
		if (phase == 2 && cpu < 64)
			c->dropped_end[cpu] = dropped;
	}
	c->stats_start += phase == 1;
	c->stats_end += phase == 2;
}

static void take_census(const char *path, struct census *c)
{
	size_t n;
	unsigned char *b = read_file(path, &n);
	struct pbr r = { b, b + n };
	struct pbf pkt;

	memset(c, 0, sizeof(*c));
	while (pbr_next(&r, &pkt) > 0) {
		struct pbr p;
		struct pbf f;

		assert_int_equal(pkt.field, 1);	/* Trace.packet */
		assert_int_equal(pkt.wire, 2);
		c->packets++;
		p = pbr_of(&pkt);
		while (pbr_next(&p, &f) > 0) {
			if (f.field == 1) {
				check_bundle(c, &f);
			} else if (f.field == 2) {
				struct pbr t = pbr_of(&f);
				struct pbf g;

				c->process_trees++;
				while (pbr_next(&t, &g) > 0) {
					c->processes += g.field == 1;
					c->threads += g.field == 2;
					if (g.field == 1)
						process(c, &g);
				}
			} else if (f.field == 45) {
				system_info(c, &f);
			} else if (f.field == 6) {
				clock_snapshot(c, &f);
			} else if (f.field == 34) {
				ftrace_stats(c, &f);
			} else if (f.field == 11) {
				check_track_event(c, &f);
			} else if (f.field == 60) {
				c->descriptors++;
			}
		}
		assert_true(p.p == p.end);
	}
	assert_true(r.p == r.end);	/* every byte parsed */
	free(b);
}

static void decode_raw_ok(const char *path)
{
	char cmd[256], *out = NULL;
	size_t len;

	if (!have_program("protoc")) {
		print_message("protoc missing (Debian protobuf-compiler): decode_raw check skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s 2>&1", path);
	assert_int_equal(run_cmd(cmd, &out, &len), 0);
	assert_true(len > 0);
	free(out);
}

/*
 * The trace against the schema of what frec emits: protoc must parse it, and
 * name every field (a field decoded as a bare number is one the schema does
 * not have at that number and wire type: a wrong number or type).
 */
static void schema_ok(const char *path)
{
	char cmd[512], *out = NULL, *line;
	size_t len;
	int rc;

	if (!have_program("protoc"))
		fail_msg("protoc missing: install protobuf-compiler (scripts/deps.sh)");
	snprintf(cmd, sizeof(cmd), "protoc --proto_path=%s --decode=frec_test.Trace %s < %s 2>&1",
		 "tests/proto", FREC_PROTO_SCHEMA, path);
	rc = run_cmd(cmd, &out, &len);
	if (rc)
		fail_msg("protoc --decode failed (%d): %.400s", rc, out ? out : "");
	for (line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;

		while (*p == ' ')
			p++;
		if (*p >= '0' && *p <= '9') {
			char bad[120];

			snprintf(bad, sizeof(bad), "%.*s", (int)strcspn(line, "\n"), line);
			fail_msg("a field the schema does not name: '%s'", bad);
		}
	}
	free(out);
}

static void test_known(void **state)
{
	struct tools_fixture *f = *state;
	struct captured cap;
	struct census c;
	char cmd[256], *out = NULL;
	size_t len;

	assert_int_equal(run_export(f->path, FREC_EXPORT_PERFETTO, false, f->out, &cap), 0);
	assert_int_equal(cap.errlen, 0);
	captured_free(&cap);
	take_census(f->out, &c);
	/* each CPU's first switch in full, the two after it compact */
	assert_int_equal(c.switches, 2);
	assert_int_equal(c.full_switches, 2);
	assert_int_equal(c.ftrace[4], 2);
	assert_int_equal(c.full[0].ts, 1000000000);
	assert_int_equal(c.full[0].next, 101);
	assert_int_equal(c.full[1].ts, 1000002000);
	assert_int_equal(c.full[1].next, 102);
	assert_int_equal(c.wakings, 1);
	assert_int_equal(c.ftrace[235], 1);	/* task_newtask */
	assert_int_equal(c.newtask_threads, 0);	/* 103 is a process */
	assert_int_equal(c.ftrace[240], 1);	/* sched_process_free */
	/* 103 was forked by 102 of process 100 in generation 1: generation
	 * 2's process tree names its parent */
	assert_int_equal(c.ppids, 1);
	assert_int_equal(c.ppid_of_103, 100);
	assert_int_equal(c.system_infos, 1);
	{
		struct utsname u;

		/* the header's kernel_release: the recorder's machine */
		assert_int_equal(uname(&u), 0);
		assert_string_equal(c.release, u.release);
	}
	assert_int_equal(c.clock_snapshots, 1);
	assert_int_equal(c.clocks, 2);
	assert_int_equal(c.boottime, 1000000000);
	assert_true(c.realtime > c.boottime);
	assert_int_equal(c.stats_start, 1);
	assert_int_equal(c.stats_end, 1);
	assert_int_equal(c.dropped_end[0], 0);
	assert_int_equal(c.dropped_end[1], 3);
	assert_int_equal(c.ftrace[239], 1);	/* sched_process_fork */
	assert_int_equal(c.ftrace[237], 1);	/* sched_process_exec */
	assert_int_equal(c.ftrace[236], 1);	/* task_rename */
	assert_int_equal(c.ftrace[238], 1);	/* sched_process_exit */
	assert_int_equal(c.lost_bundles, 1);
	assert_int_equal(c.process_trees, SYNTH_KNOWN_GENS);
	/* generation 1: 100 (command line) and 103 (named after its thread);
	 * generation 2: 103 */
	assert_int_equal(c.processes, 3);
	assert_int_equal(c.threads, 3 + 1);	/* 101 102 103, then 103 again */
	assert_int_equal(c.descriptors, 1);
	assert_int_equal(c.begins, 1);
	assert_int_equal(c.ends, 1);
	assert_int_equal(c.instants, 0);
	assert_int_equal(c.args, 2);
	assert_int_equal(c.rets, 1);
	assert_false(c.disorder);

	decode_raw_ok(f->out);
	schema_ok(f->out);
	if (have_program("protoc")) {
		/* the names as protoc sees them */
		snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s", f->out);
		assert_int_equal(run_cmd(cmd, &out, &len), 0);
		assert_non_null(strstr(out, "\"app\""));
		assert_non_null(strstr(out, "\"--serve\""));
		assert_non_null(strstr(out, "\"handle\""));
		assert_non_null(strstr(out, "\"/bin/true\""));
		assert_non_null(strstr(out, "\"renamed\""));
		free(out);
	}
}

static void test_busy(void **state)
{
	struct tools_fixture *f = *state;
	struct busy_counts want, file;
	struct captured cap;
	struct census c;
	char path[128];

	assert_int_equal(make_busy_snapshot(f->dir, "busy.frec", 200000, 42, &want), 0);
	snprintf(path, sizeof(path), "%s/busy.frec", f->dir);
	count_file_events(path, &file);
	/* the recorder kept everything we pushed */
	assert_memory_equal(file.by_type, want.by_type, sizeof(want.by_type));
	assert_int_equal(file.gens, want.gens);

	assert_int_equal(run_export(path, FREC_EXPORT_PERFETTO, false, f->out, &cap), 0);
	captured_free(&cap);
	take_census(f->out, &c);
	print_message("busy: %lu switches, %lu wakings, %lu calls, %lu usdt, %lu lost, %u generations\n", c.switches, c.wakings, c.begins, c.instants, c.lost_bundles, want.gens);
	/* every switch once, compact or full; full ones may add a switch to
	 * idle where a chain broke or a loss came in between */
	assert_true(c.switches + c.ftrace[4] >= want.by_type[FREC_EV_SCHED_SWITCH]);
	assert_true(c.switches + c.ftrace[4] <= want.by_type[FREC_EV_SCHED_SWITCH] +
		    2 * want.by_type[FREC_EV_LOST] + c.ftrace[4] / 2 + 1);
	assert_int_equal(c.ftrace[235], want.by_type[FREC_EV_PROCESS_FORK]);
	assert_int_equal(c.ftrace[240], want.by_type[FREC_EV_PROCESS_EXIT]);
	assert_int_equal(c.wakings, want.by_type[FREC_EV_SCHED_WAKING]);
	assert_int_equal(c.ftrace[114], want.by_type[FREC_EV_SCHED_WAKEUP_NEW]);
	assert_int_equal(c.ftrace[239], want.by_type[FREC_EV_PROCESS_FORK]);
	assert_int_equal(c.ftrace[237], want.by_type[FREC_EV_PROCESS_EXEC]);
	assert_int_equal(c.ftrace[238], want.by_type[FREC_EV_PROCESS_EXIT]);
	assert_int_equal(c.ftrace[236], want.by_type[FREC_EV_TASK_RENAME]);
	assert_int_equal(c.ftrace[491], want.by_type[FREC_EV_MIGRATE_TASK]);
	assert_int_equal(c.lost_bundles, want.by_type[FREC_EV_LOST]);
	assert_int_equal(c.begins, want.by_type[FREC_EV_UPROBE]);
	assert_int_equal(c.ends, want.by_type[FREC_EV_URETPROBE]);
	assert_int_equal(c.instants, want.by_type[FREC_EV_USDT]);
	assert_int_equal(c.rets, want.by_type[FREC_EV_URETPROBE]);
	assert_int_equal(c.process_trees, want.gens);
	assert_false(c.disorder);
	decode_raw_ok(f->out);
	schema_ok(f->out);
}

static int inflate_file(const char *path, unsigned char **out, size_t *outlen)
{
	size_t n, cap = 1 << 20, len = 0;
	unsigned char *in = read_file(path, &n), *buf = malloc(cap);
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);	/* gzip only */
	z.next_in = in;
	z.avail_in = (uInt)n;
	do {
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		z.next_out = buf + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
	} while (rc == Z_OK);
	inflateEnd(&z);
	free(in);
	*out = buf;
	*outlen = len;
	return rc == Z_STREAM_END ? 0 : -1;
}

static void test_gzip(void **state)
{
	struct tools_fixture *f = *state;
	struct busy_counts want;
	struct captured cap;
	char path[128], gz[128];
	unsigned char *plain, *unz;
	size_t n, m;

	assert_int_equal(make_busy_snapshot(f->dir, "busy.frec", 20000, 7, &want), 0);
	snprintf(path, sizeof(path), "%s/busy.frec", f->dir);
	snprintf(gz, sizeof(gz), "%s/out.pftrace.gz", f->dir);
	assert_int_equal(run_export(path, FREC_EXPORT_PERFETTO, false, f->out, &cap), 0);
	captured_free(&cap);
	assert_int_equal(run_export(path, FREC_EXPORT_PERFETTO, true, gz, &cap), 0);
	captured_free(&cap);
	plain = read_file(f->out, &n);
	assert_int_equal(inflate_file(gz, &unz, &m), 0);
	assert_int_equal(m, n);
	assert_memory_equal(unz, plain, n);
	free(plain);
	free(unz);
}

/* A damaged generation is skipped; the rest is still a valid trace. */
static void test_damaged(void **state)
{
	struct tools_fixture *f = *state;
	size_t offs[8], n;
	unsigned char *b;
	char path[128];
	struct captured cap;
	struct census c;

	b = read_file(f->path, &n);
	assert_int_equal(block_offsets(b, n, offs, 8), 2);
	b[offs[0] + 40] ^= 0x55;
	snprintf(path, sizeof(path), "%s/bad.frec", f->dir);
	write_file(path, b, n);
	free(b);
	assert_int_equal(run_export(path, FREC_EXPORT_PERFETTO, false, f->out, &cap),
			 FREC_EXIT_DAMAGED);
	assert_int_equal(count_lines(cap.err), 1);
	captured_free(&cap);
	take_census(f->out, &c);
	assert_int_equal(c.switches + c.full_switches, 1);
	assert_int_equal(c.process_trees, 1);
	assert_int_equal(c.lost_bundles, 1);
	decode_raw_ok(f->out);
	schema_ok(f->out);
}

/* Records lost on no known CPU flag the next bundle of every CPU. */
static void test_lost_unknown_cpu(void **state)
{
	struct tools_fixture *f = *state;
	struct captured cap;
	struct census c;

	assert_int_equal(run_export(f->path, FREC_EXPORT_PERFETTO, false, f->out, &cap), 0);
	captured_free(&cap);
	take_census(f->out, &c);
	assert_int_equal(c.full_switches, 2);
	assert_int_equal(c.lost_bundles, 2);
	decode_raw_ok(f->out);
	schema_ok(f->out);
}

/*
 * A switch-in the kernel never switched out (synth_chain.h). Compact, the
 * break would read as agent running 40 ms: instead agent is switched to idle
 * at its last event, then the kernel's switch from other follows in full.
 */
static void test_chain_break(void **state)
{
	struct tools_fixture *f = *state;
	struct captured cap;
	struct census c;

	assert_int_equal(run_export(f->path, FREC_EXPORT_PERFETTO, false, f->out, &cap), 0);
	assert_int_equal(cap.errlen, 0);
	captured_free(&cap);
	take_census(f->out, &c);
	/* cpu0's bundle: first in full, the end of agent's run, the break;
	 * cpu1's: the first in full, then one compact */
	assert_int_equal(c.full_switches, 4);
	assert_int_equal(c.switches, 1);
	assert_int_equal(c.full[0].next, 301);
	assert_int_equal(c.full[1].ts, SYNTH_CHAIN_T + 1000);
	assert_int_equal(c.full[1].prev, 301);
	assert_int_equal(c.full[1].next, 0);
	assert_int_equal(c.full[1].state, 0);
	assert_int_equal(c.full[2].ts, SYNTH_CHAIN_BREAK_TS);
	assert_int_equal(c.full[2].prev, 302);
	assert_int_equal(c.full[2].state, 1);
	assert_int_equal(c.full[2].next, 0);
	assert_int_equal(c.full[3].next, 303);
	schema_ok(f->out);
}

static int setup_chain(void **state)
{
	return tools_fixture_setup(state, "chain.frec", synth_chain_break_snapshot, "out.pftrace");
}

static int setup_unknown_cpu(void **state)
{
	return tools_fixture_setup(state, "unknown.frec", synth_unknown_cpu_snapshot,
				   "out.pftrace");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_known, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_busy, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_gzip, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lost_unknown_cpu, setup_unknown_cpu,
						tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_chain_break, setup_chain, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
