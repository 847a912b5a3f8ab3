// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The size of each CPU's ring for a given set of online and possible CPUs,
 * --ring-size and --ring-min, and the sysfs CPU lists the online set is
 * read from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/types.h>
#include "../../bpf/frec.h"
#include "frecd/bpf_rings.h"

#define K	1024ull
#define M	(1024ull * 1024)
#define PAGE	4096ull

/* A VM with 240 hot-pluggable slots and 4 CPUs online: the rings are
 * shared among the 4, not the 240. */
static void test_few_online_of_many_possible(void **state)
{
	assert_int_equal(frecd_bpf_rings__share(4, 240, 16 * M, 256 * K, PAGE), 4 * M);
	assert_int_equal(frecd_bpf_rings__share(4, 240, 64 * M, 256 * K, PAGE), 16 * M);
}

/* 256 CPUs: 16 MiB would give each 64 KiB; the floor raises it to 256 KiB
 * (64 MiB in all). Without a floor, the share. */
static void test_many_cpus_floor(void **state)
{
	assert_int_equal(frecd_bpf_rings__share(256, 256, 16 * M, 256 * K, PAGE), 256 * K);
	assert_int_equal(frecd_bpf_rings__share(256, 256, 16 * M, 4 * K, PAGE), 64 * K);
	assert_int_equal(frecd_bpf_rings__share(256, 256, 1024 * M, 256 * K, PAGE), 4 * M);
}

static void test_two_cpus(void **state)
{
	assert_int_equal(frecd_bpf_rings__share(2, 2, 16 * M, 256 * K, PAGE), 8 * M);
	/* a small --ring-size on a small machine: the floor wins */
	assert_int_equal(frecd_bpf_rings__share(2, 2, 64 * K, 256 * K, PAGE), 256 * K);
	assert_int_equal(frecd_bpf_rings__share(2, 2, 64 * K, 32 * K, PAGE), 32 * K);
}

/* Shares that are not powers of two round down; a floor that is not one
 * rounds up; never below a page. */
static void test_rounding(void **state)
{
	assert_int_equal(frecd_bpf_rings__share(3, 8, 16 * M, 256 * K, PAGE), 4 * M);
	assert_int_equal(frecd_bpf_rings__share(6, 8, 100 * M, 256 * K, PAGE), 16 * M);
	assert_int_equal(frecd_bpf_rings__share(5, 8, 1 * M, 100 * K, PAGE), 128 * K);
	assert_int_equal(frecd_bpf_rings__share(5, 8, 1 * M, 300 * K, PAGE), 512 * K);
	assert_int_equal(frecd_bpf_rings__share(64, 64, 64 * K, 0, PAGE), PAGE);
}

/* A wakeup at each quarter of a CPU's ring written: 2 MiB of the 8 MiB a
 * 2-CPU machine gets, 64 KiB of the floor's 256 KiB. */
static void test_wakeup_threshold(void **state)
{
	assert_int_equal(frecd_bpf_rings__wakeup_threshold(8 * M), 2 * M);
	assert_int_equal(frecd_bpf_rings__wakeup_threshold(256 * K), 64 * K);
	assert_int_equal(frecd_bpf_rings__wakeup_threshold(PAGE), PAGE / 4);
	assert_int_equal(frecd_bpf_rings__wakeup_threshold(0), FREC_WAKEUP_THRESHOLD);
}

static void test_no_cpus(void **state)
{
	assert_int_equal(frecd_bpf_rings__share(0, 8, 16 * M, 256 * K, PAGE), 0);
	assert_int_equal(frecd_bpf_rings__share(9, 8, 16 * M, 256 * K, PAGE), 0);
}

static void test_parse_cpus(void **state)
{
	bool set[16];

	assert_int_equal(frecd_bpf_rings__parse_cpus("0-3\n", set, 16), 4);
	assert_true(set[0] && set[3]);
	assert_false(set[4]);
	assert_int_equal(frecd_bpf_rings__parse_cpus("0,2,5-6,8-9\n", set, 16), 6);
	assert_true(set[0] && set[2] && set[5] && set[6] && set[8] && set[9]);
	assert_false(set[1] || set[3] || set[4] || set[7] || set[10]);
	assert_int_equal(frecd_bpf_rings__parse_cpus("0", set, 16), 1);
	/* beyond the possible CPUs: ignored */
	assert_int_equal(frecd_bpf_rings__parse_cpus("14-20\n", set, 16), 2);
	assert_int_equal(frecd_bpf_rings__parse_cpus("", set, 16), 0);
	assert_int_equal(frecd_bpf_rings__parse_cpus("3-1", set, 16), -EINVAL);
	assert_int_equal(frecd_bpf_rings__parse_cpus("a", set, 16), -EINVAL);
	assert_int_equal(frecd_bpf_rings__parse_cpus("1-", set, 16), -EINVAL);
	assert_int_equal(frecd_bpf_rings__parse_cpus("1;2", set, 16), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_few_online_of_many_possible),
		cmocka_unit_test(test_many_cpus_floor),
		cmocka_unit_test(test_two_cpus),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_wakeup_threshold),
		cmocka_unit_test(test_no_cpus),
		cmocka_unit_test(test_parse_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
