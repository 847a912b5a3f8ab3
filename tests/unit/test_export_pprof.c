// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format pprof: the output is gzip, decodes with protoc
 * against tests/proto/frec_pprof.proto (profile.proto's field numbers) with
 * no field the schema does not name, holds the off-CPU samples of
 * stacks_snap.h (values, labels, functions, mappings with build-ids), and
 * go tool pprof -top reads it when Go is installed.
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
	return tools_fixture_setup(state, "stacks.frec", stacks_snapshot, "out.pb.gz");
}

static int export(struct tools_fixture *f)
{
	struct frec_export_opts o = { .format = FREC_EXPORT_PPROF };
	struct frec_export_stats st;
	struct captured c;
	FILE *out = fopen(f->out, "w"), *err;

	assert_non_null(out);
	memset(&c, 0, sizeof(c));
	err = open_memstream(&c.err, &c.errlen);
	c.status = frec_export_pprof__run(f->path, &o, out, err, &st);
	fclose(out);
	fclose(err);
	if (c.errlen)
		fprintf(stderr, "%s", c.err);
	captured_free(&c);
	return c.status;
}

static char *decode(const struct tools_fixture *f)
{
	char cmd[1024], *out = NULL;
	size_t len;
	int rc;

	if (!have_program("protoc"))
		fail_msg("protoc missing: install protobuf-compiler (scripts/deps.sh)");
	snprintf(cmd, sizeof(cmd), "gzip -dc %s | protoc --proto_path=tests/proto "
		 "--decode=frec_pprof.Profile tests/proto/frec_pprof.proto 2>&1", f->out);
	rc = run_cmd(cmd, &out, &len);
	if (rc)
		fail_msg("protoc --decode failed (%d): %.400s", rc, out ? out : "");
	return out;
}

/* A line "  N: ..." is a field the schema does not know. */
static void no_unknown_fields(const char *s)
{
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;

		while (*p == ' ')
			p++;
		if (*p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			if (*p == ':' || *p == ' ')
				fail_msg("a field the schema does not name: %.80s", l);
		}
	}
}

static void test_decode(void **state)
{
	struct tools_fixture *f = *state;
	unsigned char *b;
	size_t n;
	char *s;

	assert_int_equal(export(f), FREC_EXIT_OK);
	b = read_file(f->out, &n);
	assert_true(n > 2 && b[0] == 0x1f && b[1] == 0x8b);
	free(b);
	s = decode(f);
	no_unknown_fields(s);
	/* two sample types, then per sample: its locations, count and ns */
	assert_int_equal(count_substr(s, "sample_type {"), 2);
	assert_int_equal(count_substr(s, "\nsample {"), 2);
	expect(s, "  value: 2\n  value: 7000000\n");
	expect(s, "  value: 1\n  value: 1000000\n");
	/* the worker's stack: 5 locations, the helper's 1 */
	assert_int_equal(count_substr(s, "\nlocation {"), 6);
	assert_int_equal(count_substr(s, "\nfunction {"), 6);
	/* mappings: the kernel and /bin/app, with its build-id */
	assert_int_equal(count_substr(s, "\nmapping {"), 2);
	assert_int_equal(count_substr(s, "has_functions: true"), 2);
	expect(s, "string_table: \"app_4010\"\n");
	expect(s, "string_table: \"app+0x2090\"\n");
	expect(s, "string_table: \"b1ab\"\n");
	expect(s, "string_table: \"[kernel]\"\n");
	expect(s, "string_table: \"worker\"\n");
	expect(s, "string_table: \"nanoseconds\"\n");
	free(s);
}

/* go tool pprof, as the issue asks: -top lists the functions by off-CPU time. */
static void test_go_pprof(void **state)
{
	struct tools_fixture *f = *state;
	char cmd[1024], *out = NULL;
	size_t len;
	int rc;

	assert_int_equal(export(f), FREC_EXIT_OK);
	if (!have_program("go")) {
		print_message("go missing (Debian golang-go, scripts/deps.sh): go tool pprof check skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -top %s 2>&1", f->dir, f->out);
	rc = run_cmd(cmd, &out, &len);
	if (rc)
		fail_msg("go tool pprof failed (%d): %.600s", rc, out ? out : "");
	expect(out, "File: app\nBuild ID: b1ab\n");	/* the main binary is listed first */
	expect(out, "Type: offcpu");
	expect(out, "app_4010");
	expect(out, "app+0x2090");
	expect(out, "k_ffffffff81001");
	expect(out, "8ms");		/* 7 ms of the worker + 1 of the helper */
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_decode, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_go_pprof, setup, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
