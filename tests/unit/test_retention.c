// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Retention: which names are frecd's snapshots, oldest removed first, by
 * count and by bytes, the newest and the protected one always kept, and
 * nothing else in the directory touched. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "frecd/retention.h"
#include "frecd/snapname.h"

static char dir[64];
static int dirfd = -1;

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/frec-test-retention.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	return dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	close(dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void put(const char *name, size_t bytes)
{
	char buf[4096] = { 0 };
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	while (bytes) {
		size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);

		assert_int_equal(write(fd, buf, n), n);
		bytes -= n;
	}
	close(fd);
}

static bool exists(const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static void test_names(void **state)
{
	char name[64];

	assert_true(frecd_snapname__is_snapshot("frec-20250102T030405.678Z.frec"));
	assert_true(frecd_snapname__is_snapshot("frec-20250102T030405.678Z_01.frec"));
	assert_true(frecd_snapname__is_snapshot("frec-20250102T030405.678Z_99.frec"));
	/* what the writer names, attempt 0 and later */
	assert_int_equal(frecd_snapname__make(name, sizeof(name), 1735700000123456789ull, 0), 0);
	assert_true(frecd_snapname__is_snapshot(name));
	assert_int_equal(frecd_snapname__make(name, sizeof(name), 1735700000123456789ull, 7), 0);
	assert_true(frecd_snapname__is_snapshot(name));

	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678Z_00.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678Z_1.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678Z_001.frec"));
	assert_false(frecd_snapname__is_snapshot(".frec-20250102T030405.678Z.frec.tmp"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678Z.frec.tmp"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678Z.frec~"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-2025010xT030405.678Z.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102 030405.678Z.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405,678Z.frec"));
	assert_false(frecd_snapname__is_snapshot("copy-20250102T030405.678Z.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-important.frec"));
	assert_false(frecd_snapname__is_snapshot("frec-20250102T030405.678Z.FREC"));
	assert_false(frecd_snapname__is_snapshot(""));
}

static void test_by_count(void **state)
{
	struct frecd_retention_stats st;

	put("frec-20250101T000003.000Z.frec", 10);
	put("frec-20250101T000001.000Z.frec", 10);
	put("frec-20250101T000002.000Z_01.frec", 10);
	put("frec-20250101T000002.000Z.frec", 10);
	put("frec-20250101T000004.000Z.frec", 10);
	assert_int_equal(frecd_retention__apply(dirfd, 3, 0, NULL, &st), 0);
	assert_int_equal(st.removed, 2);
	assert_int_equal(st.removed_bytes, 20);
	assert_int_equal(st.kept, 3);
	assert_int_equal(st.kept_bytes, 30);
	/* oldest by name: 000001, then 000002 (before its _01) */
	assert_false(exists("frec-20250101T000001.000Z.frec"));
	assert_false(exists("frec-20250101T000002.000Z.frec"));
	assert_true(exists("frec-20250101T000002.000Z_01.frec"));
	assert_true(exists("frec-20250101T000003.000Z.frec"));
	assert_true(exists("frec-20250101T000004.000Z.frec"));
	/* within the limit: nothing to do */
	assert_int_equal(frecd_retention__apply(dirfd, 3, 0, NULL, &st), 0);
	assert_int_equal(st.removed, 0);
	assert_int_equal(st.kept, 3);
	/* keep 0: no limit on the number */
	assert_int_equal(frecd_retention__apply(dirfd, 0, 0, NULL, &st), 0);
	assert_int_equal(st.removed, 0);
	/* keep 1 */
	assert_int_equal(frecd_retention__apply(dirfd, 1, 0, NULL, &st), 0);
	assert_int_equal(st.removed, 2);
	assert_true(exists("frec-20250101T000004.000Z.frec"));
	assert_false(exists("frec-20250101T000003.000Z.frec"));
}

static void test_by_size(void **state)
{
	struct frecd_retention_stats st;

	put("frec-20250101T000001.000Z.frec", 5000);
	put("frec-20250101T000002.000Z.frec", 3000);
	put("frec-20250101T000003.000Z.frec", 2000);
	put("frec-20250101T000004.000Z.frec", 1000);
	/* 11000 bytes, at most 5999: the two oldest go (3000 left) */
	assert_int_equal(frecd_retention__apply(dirfd, 100, 5999, NULL, &st), 0);
	assert_int_equal(st.removed, 2);
	assert_int_equal(st.removed_bytes, 8000);
	assert_int_equal(st.kept, 2);
	assert_int_equal(st.kept_bytes, 3000);
	assert_true(exists("frec-20250101T000003.000Z.frec"));
	/* exactly at the limit stays */
	assert_int_equal(frecd_retention__apply(dirfd, 100, 3000, NULL, &st), 0);
	assert_int_equal(st.removed, 0);
	/* the newest stays even when it alone is over */
	assert_int_equal(frecd_retention__apply(dirfd, 100, 10, NULL, &st), 0);
	assert_int_equal(st.removed, 1);
	assert_int_equal(st.kept, 1);
	assert_int_equal(st.kept_bytes, 1000);
	assert_true(exists("frec-20250101T000004.000Z.frec"));
	/* both limits: whichever removes more */
	put("frec-20250101T000005.000Z.frec", 1000);
	put("frec-20250101T000006.000Z.frec", 1000);
	assert_int_equal(frecd_retention__apply(dirfd, 2, 100000, NULL, &st), 0);
	assert_int_equal(st.removed, 1);
	assert_false(exists("frec-20250101T000004.000Z.frec"));
}

static void test_protected(void **state)
{
	struct frecd_retention_stats st;

	/* the clock went back: the file just written sorts first */
	put("frec-20250101T000009.000Z.frec", 10);
	put("frec-20250101T000008.000Z.frec", 10);
	put("frec-20250101T000001.000Z.frec", 10);
	assert_int_equal(frecd_retention__apply(dirfd, 1, 0, "frec-20250101T000001.000Z.frec", &st), 0);
	assert_int_equal(st.removed, 1);
	assert_int_equal(st.kept, 2);
	assert_true(exists("frec-20250101T000001.000Z.frec"));
	assert_false(exists("frec-20250101T000008.000Z.frec"));
	assert_true(exists("frec-20250101T000009.000Z.frec"));
}

static void test_leaves_the_rest(void **state)
{
	struct frecd_retention_stats st;

	put("frec-20250101T000001.000Z.frec", 10);
	put("frec-20250101T000002.000Z.frec", 10);
	put("notes.txt", 10);
	put("frec-keep-this.frec", 10);
	put(".frec-20250101T000000.000Z.frec.tmp", 10);
	assert_int_equal(mkdirat(dirfd, "frec-20250101T000000.000Z.frec", 0700), 0);
	assert_int_equal(symlinkat("/etc/passwd", dirfd, "frec-20250101T000000.001Z.frec"), 0);
	assert_int_equal(frecd_retention__apply(dirfd, 1, 0, NULL, &st), 0);
	assert_int_equal(st.removed, 1);
	assert_int_equal(st.kept, 1);
	assert_false(exists("frec-20250101T000001.000Z.frec"));
	assert_true(exists("frec-20250101T000002.000Z.frec"));
	assert_true(exists("notes.txt"));
	assert_true(exists("frec-keep-this.frec"));
	assert_true(exists(".frec-20250101T000000.000Z.frec.tmp"));
	assert_true(exists("frec-20250101T000000.000Z.frec"));
	assert_true(exists("frec-20250101T000000.001Z.frec"));
	assert_int_equal(access("/etc/passwd", F_OK), 0);
}

static void test_empty(void **state)
{
	struct frecd_retention_stats st;

	assert_int_equal(frecd_retention__apply(dirfd, 1, 1, NULL, &st), 0);
	assert_int_equal(st.kept, 0);
	assert_int_equal(st.removed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_by_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaves_the_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
