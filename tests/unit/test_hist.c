// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Latency histograms of frec report: nearest-rank percentiles exact for
 * values with at most 8 significant bits, at most 1/128 low otherwise, never
 * outside [min, max]; log2 buckets of microseconds as runqlat prints them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "../../tools/hist.h"

static void test_exact(void **state)
{
	struct frec_hist h;
	uint64_t v;

	(void)state;
	frec_hist__init(&h);
	assert_int_equal(frec_hist__percentile(&h, 50), 0);
	/* 1..100: p50 is the 50th sample, p99 the 99th, p100 the max */
	for (v = 1; v <= 100; v++)
		frec_hist__add(&h, v * 1000);	/* 1 us .. 100 us */
	assert_int_equal(h.count, 100);
	assert_int_equal(h.min, 1000);
	assert_int_equal(h.max, 100000);
	assert_int_equal(frec_hist__mean(&h), 50500);
	/* 50000 = 0b1100001101010000: 12 significant bits, rounds down */
	assert_true(frec_hist__percentile(&h, 50) <= 50000);
	assert_true(frec_hist__percentile(&h, 50) >= 50000 - 50000 / 128);
	assert_int_equal(frec_hist__percentile(&h, 100), 100000);
	/* the first sample */
	assert_int_equal(frec_hist__percentile(&h, 1), 1000);
	frec_hist__fini(&h);

	/* small values are exact */
	frec_hist__init(&h);
	for (v = 0; v < 256; v++)
		frec_hist__add(&h, v);
	for (v = 1; v <= 255; v++)
		assert_int_equal(frec_hist__percentile(&h, (double)v * 100.0 / 256.0 + 1e-9), v);
	frec_hist__fini(&h);

	/* powers of two and 8-bit mantissas are exact at any scale */
	frec_hist__init(&h);
	frec_hist__add(&h, 3ull << 40);
	frec_hist__add(&h, 255ull << 30);
	frec_hist__add(&h, 1ull << 62);
	assert_int_equal(frec_hist__percentile(&h, 33), 255ull << 30);
	assert_int_equal(frec_hist__percentile(&h, 50), 3ull << 40);
	assert_int_equal(frec_hist__percentile(&h, 99), 1ull << 62);
	frec_hist__fini(&h);
}

static void test_bounds(void **state)
{
	struct frec_hist h;
	uint64_t x = 88172645463325252ull, v, lo = UINT64_MAX, hi = 0;
	int i;

	(void)state;
	frec_hist__init(&h);
	for (i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x % 50);
		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
		frec_hist__add(&h, v);
	}
	assert_int_equal(h.min, lo);
	assert_int_equal(h.max, hi);
	for (i = 1; i <= 100; i++) {
		uint64_t p = frec_hist__percentile(&h, i);

		assert_true(p >= lo && p <= hi);
		if (i > 1)
			assert_true(p >= frec_hist__percentile(&h, i - 1));
	}
	frec_hist__fini(&h);
}

static void test_log2(void **state)
{
	struct frec_hist h;
	unsigned int first, last;
	uint64_t lo, hi;
	char *buf = NULL;
	size_t len;
	FILE *f;

	(void)state;
	frec_hist__init(&h);
	assert_int_equal(frec_hist__log2_span(&h, &first, &last), 0);
	frec_hist__add(&h, 999);	/* 0 us */
	frec_hist__add(&h, 1999);	/* 1 us */
	frec_hist__add(&h, 2000);	/* 2 us */
	frec_hist__add(&h, 9000);	/* 9 us */
	frec_hist__add(&h, 9999);	/* 9 us */
	assert_int_equal(frec_hist__log2_span(&h, &first, &last), 1);
	assert_int_equal(first, 0);
	assert_int_equal(last, 3);
	assert_int_equal(h.log2_us[0], 2);
	assert_int_equal(h.log2_us[1], 1);
	assert_int_equal(h.log2_us[3], 2);
	frec_hist__log2_range(0, &lo, &hi);
	assert_true(lo == 0 && hi == 1);
	frec_hist__log2_range(3, &lo, &hi);
	assert_true(lo == 8 && hi == 15);

	f = open_memstream(&buf, &len);
	frec_hist__print_log2(&h, f, "");
	fclose(f);
	assert_string_equal(buf,
			    "               usecs : count      distribution\n"
			    "              0 -> 1 : 2          |****************************************|\n"
			    "              2 -> 3 : 1          |********************                    |\n"
			    "              4 -> 7 : 0          |                                        |\n"
			    "             8 -> 15 : 2          |****************************************|\n");
	free(buf);
	frec_hist__fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_log2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
