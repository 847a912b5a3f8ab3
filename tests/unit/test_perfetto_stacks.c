// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks in frec export --format perfetto (tools/perfetto_stacks.c): the
 * trace of stacks_snap.h decodes against tests/proto/frec_perfetto.proto
 * with every field named, each blocking switch with a stack is a
 * perf_sample on its thread with an interned callstack (bottom frame
 * first) of interned frames, functions and mappings (build-id as raw
 * bytes), on a sequence whose first packet clears its state; and
 * sched_blocked_reason names its caller by an interned kernel symbol
 * written before the bundle, never by address.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "synth.h"
#include "tools_test.h"
#include "stacks_snap.h"

static int setup(void **state)
{
	return tools_fixture_setup(state, "stacks.frec", stacks_snapshot, "out.pftrace");
}

static char *decode(const char *path)
{
	char cmd[512], *out = NULL;
	size_t len;
	int rc;

	if (!have_program("protoc"))
		fail_msg("protoc missing: install protobuf-compiler (scripts/deps.sh)");
	snprintf(cmd, sizeof(cmd), "protoc --proto_path=tests/proto --decode=frec_test.Trace "
		 "tests/proto/frec_perfetto.proto < %s 2>&1", path);
	rc = run_cmd(cmd, &out, &len);
	if (rc)
		fail_msg("protoc --decode failed (%d): %.400s", rc, out ? out : "");
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;

		while (*p == ' ')
			p++;
		if (*p >= '0' && *p <= '9')
			fail_msg("a field the schema does not name: '%.*s'", (int)strcspn(l, "\n"), l);
	}
	return out;
}

static void test_stacks(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	const char *ks, *sbr, *first, *cs;
	char *s;

	run_export(f->path, FREC_EXPORT_PERFETTO, false, f->out, &c);
	if (c.status)
		fail_msg("export failed (%d): %s", c.status, c.err ? c.err : "");
	captured_free(&c);
	s = decode(f->out);
	/* worker blocks twice, helper once; the preempted switch is no sample */
	assert_int_equal(count_substr(s, "perf_sample {"), 3);
	expect(s, "perf_sample {\n    cpu: 0\n    pid: 100\n    tid: 101\n    callstack_iid: 1\n  }");
	expect(s, "perf_sample {\n    cpu: 1\n    pid: 100\n    tid: 102\n    callstack_iid: 2\n  }");
	/* the state is cleared once, by the sequence's first packet */
	first = strstr(s, "  sequence_flags: 3\n  perf_sample {");
	assert_non_null(first);
	assert_true(first < strstr(s, "  sequence_flags: 2\n  perf_sample {"));
	assert_int_equal(count_substr(s, "  sequence_flags: 3\n  perf_sample {"), 1);
	assert_int_equal(count_substr(s, "  sequence_flags: 2\n  perf_sample {"), 2);
	/* two callstacks, the worker's bottom frame first (app_4030 is frame 1) */
	assert_int_equal(count_substr(s, "callstacks {"), 2);
	cs = strstr(s, "callstacks {\n      iid: 1\n      frame_ids: 1\n      frame_ids: 2\n"
		       "      frame_ids: 3\n      frame_ids: 4\n      frame_ids: 5\n    }");
	assert_non_null(cs);
	expect(s, "function_names {\n      iid: 1\n      str: \"app_4030\"\n    }");
	expect(s, "function_names {\n      iid: 2\n      str: \"app+0x2090\"\n    }");
	expect(s, "str: \"k_ffffffff81001\"");
	/* 6 distinct frames: 5 of the worker, the helper's unnamed kernel one */
	assert_int_equal(count_substr(s, "frames {"), 6);
	expect(s, "str: \"[kernel]\"");
	/* mappings: /bin/app with its build-id as bytes, and the kernel */
	assert_int_equal(count_substr(s, "mappings {"), 2);
	expect(s, "build_ids {\n      iid: 1\n      str: \"\\261\\253\"\n    }");
	expect(s, "mapping_paths {\n      iid: 1\n      str: \"/bin/app\"\n    }");
	expect(s, "str: \"kernel\"");
	/* sched_blocked_reason: the worker's two blocks name k_ffffffff81001,
	 * interned once before the first bundle that uses it; the helper's
	 * stack has no named frame: no event */
	assert_int_equal(count_substr(s, "kernel_symbols {"), 1);
	assert_int_equal(count_substr(s, "sched_blocked_reason {"), 2);
	ks = strstr(s, "trusted_packet_sequence_id: 2\n  interned_data {\n    kernel_symbols {\n"
		       "      iid: 1\n      str: \"k_ffffffff81001\"\n    }\n  }\n  sequence_flags: 1\n");
	assert_non_null(ks);
	sbr = strstr(s, "sched_blocked_reason {\n        pid: 101\n        caller: 1\n      }");
	assert_non_null(sbr);
	assert_true(ks < sbr);
	assert_null(strstr(s, "pid: 102\n        caller"));
	free(s);
}

/* A snapshot without stacks gets none of it. */
static void test_no_stacks(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	char path[600];
	char *s;

	snprintf(path, sizeof(path), "%s/known.frec", f->dir);
	assert_int_equal(synth_known_snapshot(f->dir, "known.frec"), 0);
	assert_int_equal(run_export(path, FREC_EXPORT_PERFETTO, false, f->out, &c), FREC_EXIT_OK);
	captured_free(&c);
	s = decode(f->out);
	assert_null(strstr(s, "perf_sample"));
	assert_null(strstr(s, "interned_data"));
	assert_null(strstr(s, "sched_blocked_reason"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stacks, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_stacks, setup, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
