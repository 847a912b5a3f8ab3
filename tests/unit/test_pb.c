// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The protobuf writer of the exporter: varints at every length boundary,
 * negative int32/int64 as ten bytes, strings, nested messages whose length
 * needs one, two, three bytes (the payload moves up when the length grows),
 * packed arrays, depth limit; and the bytes match the wire format exactly
 * (checked by hand here and by protoc --decode_raw).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "../../tools/pb.h"
#include "synth.h"
#include "tools_test.h"

static void test_varints(void **state)
{
	static const struct {
		uint64_t v;
		size_t len;
		unsigned char bytes[10];
	} cases[] = {
		{ 0, 1, { 0x00 } },
		{ 1, 1, { 0x01 } },
		{ 127, 1, { 0x7f } },
		{ 128, 2, { 0x80, 0x01 } },
		{ 300, 2, { 0xac, 0x02 } },
		{ 16383, 2, { 0xff, 0x7f } },
		{ 16384, 3, { 0x80, 0x80, 0x01 } },
		{ 0xffffffffull, 5, { 0xff, 0xff, 0xff, 0xff, 0x0f } },
		{ UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
	};
	struct frec_pb pb;
	size_t i;

	(void)state;
	frec_pb__init(&pb);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		frec_pb__reset(&pb);
		frec_pb__varint(&pb, cases[i].v);
		assert_int_equal(pb.len, cases[i].len);
		assert_int_equal(frec_pb__varint_len(cases[i].v), cases[i].len);
		assert_memory_equal(pb.buf, cases[i].bytes, cases[i].len);
	}
	frec_pb__fini(&pb);
}

static void test_fields(void **state)
{
	static const unsigned char want[] = {
		0x08, 0x96, 0x01,			/* 1: 150 */
		0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 2: -1 */
		0x1a, 0x03, 'a', 'b', 'c',		/* 3: "abc" */
		0x22, 0x02, 'x', 'y',			/* 4: "xy" of at most 2 bytes */
		0xa2, 0x06, 0x00,			/* 100: "" */
	};
	struct frec_pb pb;

	(void)state;
	frec_pb__init(&pb);
	frec_pb__uint(&pb, 1, 150);
	frec_pb__int(&pb, 2, -1);
	frec_pb__string(&pb, 3, "abc");
	frec_pb__strn(&pb, 4, "xyz", 2);
	frec_pb__string(&pb, 100, "");
	assert_int_equal(pb.err, 0);
	assert_int_equal(pb.len, sizeof(want));
	assert_memory_equal(pb.buf, want, sizeof(want));
	frec_pb__fini(&pb);
}

/* A nested message of n payload bytes: tag, varint length, payload. */
static void nested_of(size_t n)
{
	struct frec_pb pb;
	size_t i, k = frec_pb__varint_len(n);
	struct pbr r;
	struct pbf f;

	frec_pb__init(&pb);
	frec_pb__uint(&pb, 1, 7);
	frec_pb__begin(&pb, 2);
	for (i = 0; i < n; i++)
		frec_pb__varint(&pb, i & 0x7f);
	frec_pb__end(&pb);
	frec_pb__uint(&pb, 3, 9);
	assert_int_equal(pb.err, 0);
	assert_int_equal(pb.len, 2 + 1 + k + n + 2);
	r.p = pb.buf;
	r.end = pb.buf + pb.len;
	assert_int_equal(pbr_next(&r, &f), 1);
	assert_int_equal(f.field, 1);
	assert_int_equal(f.v, 7);
	assert_int_equal(pbr_next(&r, &f), 1);
	assert_int_equal(f.field, 2);
	assert_int_equal(f.wire, 2);
	assert_int_equal(f.len, n);
	assert_int_equal(pbr_count_packed(&f), (long)n);
	for (i = 0; i < n; i++)
		assert_int_equal(f.data[i], i & 0x7f);	/* moved intact */
	assert_int_equal(pbr_next(&r, &f), 1);
	assert_int_equal(f.field, 3);
	assert_int_equal(f.v, 9);
	assert_int_equal(pbr_next(&r, &f), 0);
	frec_pb__fini(&pb);
}

static void test_nested_lengths(void **state)
{
	static const size_t sizes[] = { 0, 1, 127, 128, 129, 16383, 16384, 100000, 2097152 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		nested_of(sizes[i]);
}

static void test_deep(void **state)
{
	struct frec_pb pb;
	struct pbr r;
	struct pbf f;
	int i;

	(void)state;
	frec_pb__init(&pb);
	for (i = 0; i < FREC_PB_MAX_DEPTH; i++)
		frec_pb__begin(&pb, (uint32_t)i + 1);
	frec_pb__string(&pb, 1, "deepest");
	for (i = 0; i < FREC_PB_MAX_DEPTH; i++)
		frec_pb__end(&pb);
	assert_int_equal(pb.err, 0);
	r.p = pb.buf;
	r.end = pb.buf + pb.len;
	for (i = 0; i < FREC_PB_MAX_DEPTH; i++) {
		assert_int_equal(pbr_next(&r, &f), 1);
		assert_int_equal(f.field, (unsigned)i + 1);
		assert_true(f.data + f.len == r.end);
		r = pbr_of(&f);
	}
	assert_int_equal(pbr_next(&r, &f), 1);
	assert_int_equal(f.len, 7);
	assert_memory_equal(f.data, "deepest", 7);

	/* one level too many is an error, not a crash */
	frec_pb__reset(&pb);
	for (i = 0; i <= FREC_PB_MAX_DEPTH; i++)
		frec_pb__begin(&pb, 1);
	assert_int_equal(pb.err, -EOVERFLOW);
	frec_pb__fini(&pb);

	/* so is an end without a begin */
	frec_pb__init(&pb);
	frec_pb__end(&pb);
	assert_int_equal(pb.err, -EINVAL);
	frec_pb__fini(&pb);
}

static void test_protoc(void **state)
{
	char dir[64], path[128], cmd[256], *out = NULL;
	struct frec_pb pb;
	size_t len;

	(void)state;
	if (!have_program("protoc")) {
		print_message("protoc missing (Debian protobuf-compiler): skipped\n");
		return;
	}
	frec_pb__init(&pb);
	frec_pb__begin(&pb, 1);
	frec_pb__uint(&pb, 8, 1234567890123ull);
	frec_pb__begin(&pb, 2);
	frec_pb__int(&pb, 1, -5);
	frec_pb__string(&pb, 2, "name");
	frec_pb__end(&pb);
	frec_pb__end(&pb);
	assert_int_equal(synth_tmpdir(dir), 0);
	snprintf(path, sizeof(path), "%s/msg.pb", dir);
	write_file(path, pb.buf, pb.len);
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s", path);
	assert_int_equal(run_cmd(cmd, &out, &len), 0);
	assert_string_equal(out, "1 {\n  8: 1234567890123\n  2 {\n    1: 18446744073709551611\n"
				 "    2: \"name\"\n  }\n}\n");
	free(out);
	frec_pb__fini(&pb);
	synth_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_nested_lengths),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_protoc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
