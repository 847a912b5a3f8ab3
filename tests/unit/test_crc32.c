// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The format's CRC-32 (src/core/crc32.h) is zlib's crc32(), for every
 * length, alignment and starting value: files written with either read
 * with either, and the seals' checksums match what older readers compute.
 * On this kind of machine the folding path runs (PCLMULQDQ); zlib itself
 * is the oracle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>
#include "synth.h"
#include "core/crc32.h"

#define BUF	(200u << 10)

static uint8_t *random_bytes(size_t n, unsigned seed)
{
	struct synth_rand r = { .x = 0x9e3779b97f4a7c15ull ^ seed };
	uint8_t *b = malloc(n);

	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(synth_next(&r) >> 24);
	return b;
}

static uint32_t zlib_crc(uint32_t crc, const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(crc, p, (uInt)n);
}

/* Every length up to a few folds, at every alignment in a 16-byte line,
 * from 0 and from other starting values. */
static void test_lengths_alignments(void **state)
{
	static const uint32_t starts[] = { 0, 0xffffffffu, 0x12345678u, 0x80000001u };
	uint8_t *b = random_bytes(1024, 1);

	(void)state;
	for (size_t len = 0; len <= 600; len++)
		for (size_t off = 0; off < 16; off++)
			for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
				assert_int_equal(frec_crc32(starts[s], b + off, len),
						 zlib_crc(starts[s], b + off, len));
	free(b);
}

/* Chunk-sized and larger inputs: what a seal checksums. */
static void test_large(void **state)
{
	static const size_t lens[] = { 4096, 65536 - 40, 65536, 65536 + 13, BUF - 1, BUF };
	uint8_t *b = random_bytes(BUF + 8, 2);

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		assert_int_equal(frec_crc32(0, b, lens[i]), zlib_crc(0, b, lens[i]));
		assert_int_equal(frec_crc32(0, b + 7, lens[i]), zlib_crc(0, b + 7, lens[i]));
	}
	free(b);
}

/* A chain of pieces, as a seal walks a generation's chunks, gives the
 * CRC of the whole; so does every split point. */
static void test_chained(void **state)
{
	uint8_t *b = random_bytes(4096, 3);
	uint32_t whole = zlib_crc(0, b, 4096);

	(void)state;
	for (size_t cut = 0; cut <= 4096; cut += 61)
		assert_int_equal(frec_crc32(frec_crc32(0, b, cut), b + cut, 4096 - cut), whole);
	free(b);
}

/* Patterns that a lane's arithmetic could get wrong where random bytes
 * would not show it: all zeros, all ones, one bit set anywhere. */
static void test_patterns(void **state)
{
	uint8_t b[256];

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(frec_crc32(0, b, sizeof(b)), zlib_crc(0, b, sizeof(b)));
	memset(b, 0xff, sizeof(b));
	assert_int_equal(frec_crc32(0, b, sizeof(b)), zlib_crc(0, b, sizeof(b)));
	for (size_t bit = 0; bit < sizeof(b) * 8; bit++) {
		memset(b, 0, sizeof(b));
		b[bit / 8] = (uint8_t)(1u << (bit % 8));
		assert_int_equal(frec_crc32(0, b, sizeof(b)), zlib_crc(0, b, sizeof(b)));
	}
}

/* The tables' path is zlib's, longer than a uInt aside. */
static void test_tables(void **state)
{
	uint8_t *b = random_bytes(1000, 4);

	(void)state;
	for (size_t len = 0; len <= 1000; len += 7)
		assert_int_equal(frec_crc32_tables(5, b, len), zlib_crc(5, b, len));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_alignments),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_chained),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
