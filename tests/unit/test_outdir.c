// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot directory (-o): what frecd accepts at start, what it removes,
 * and how it checks the directory again before each snapshot when the
 * directory was changed, removed or replaced.
 */
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
#include "frecd/outdir.h"
#include "frecd/snapname.h"
#include "frecd/log.h"

static char top[64];		/* a private temporary directory per test */
static char dir[128];		/* top/snaps, the -o of the test */
static char err[1024];

static int setup(void **state)
{
	snprintf(top, sizeof(top), "/tmp/frec-outdir.XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(dir, sizeof(dir), "%s/snaps", top);
	err[0] = '\0';
	frecd_log__set_level(FRECD_LOG_ERROR);	/* the removal lines are info */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) ? -1 : 0;
}

static void touch(const char *name)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* The directory fd names the same inode as path. */
static void assert_same_dir(int fd, const char *path)
{
	struct stat a, b;

	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

static void test_tmp_names(void **state)
{
	assert_true(frecd_snapname__is_tmp(".frec-20250101T120000.000Z.frec.tmp"));
	assert_true(frecd_snapname__is_tmp(".frec-20250101T120000.999Z_01.frec.tmp"));
	assert_true(frecd_snapname__is_tmp(".frec-20250101T120000.999Z_99.frec.tmp"));
	/* not frecd's: the snapshot itself, other hidden files, near misses */
	assert_false(frecd_snapname__is_tmp("frec-20250101T120000.000Z.frec"));
	assert_false(frecd_snapname__is_tmp(".frec-20250101T120000.000Z.frec"));
	assert_false(frecd_snapname__is_tmp("frec-20250101T120000.000Z.frec.tmp"));
	assert_false(frecd_snapname__is_tmp(".frec-x.frec.tmp"));
	assert_false(frecd_snapname__is_tmp(".frec-20250101T120000.000Z_1.frec.tmp"));
	assert_false(frecd_snapname__is_tmp(".frec-20250101T120000.000Z_001.frec.tmp"));
	assert_false(frecd_snapname__is_tmp(".frec-20250101T120000.000Z.frec.tmp~"));
	assert_false(frecd_snapname__is_tmp(".frec-20250101T120000.000Z.frec.tmp.tmp"));
	assert_false(frecd_snapname__is_tmp(".frec-2025010XT120000.000Z.frec.tmp"));
	assert_false(frecd_snapname__is_tmp(".frec-20250101T120000.000.frec.tmp"));
	assert_false(frecd_snapname__is_tmp(".frecd-check.123"));
	assert_false(frecd_snapname__is_tmp(""));
	assert_false(frecd_snapname__is_tmp(".frec-"));
}

static void test_created_private(void **state)
{
	struct frecd_outdir *o;
	char slashed[160];
	int fd;

	/* trailing slashes are dropped (they would follow a symbolic link) */
	snprintf(slashed, sizeof(slashed), "%s//", dir);
	o = frecd_outdir__new(slashed, err, sizeof(err));
	assert_non_null(o);
	assert_string_equal(frecd_outdir__path(o), dir);
	assert_int_equal(mode_of(dir), 0700);
	fd = frecd_outdir__dirfd(o, err, sizeof(err));
	assert_true(fd >= 0);
	assert_same_dir(fd, dir);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* the write check leaves nothing behind: the directory is empty */
	frecd_outdir__free(o);
	assert_int_equal(rmdir(dir), 0);
}

static void test_refused(void **state)
{
	char msg[512], target[160];

	/* writable by others */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_null(frecd_outdir__new(dir, err, sizeof(err)));
	assert_int_equal(errno, EPERM);
	snprintf(msg, sizeof(msg),
		 "-o %s: writable by group or others (mode 0777), who could plant or swap files there; chmod go-w %s or choose another -o",
		 dir, dir);
	assert_string_equal(err, msg);
	/* by group only, sticky or not */
	assert_int_equal(chmod(dir, 01770), 0);
	assert_null(frecd_outdir__new(dir, err, sizeof(err)));
	assert_non_null(strstr(err, "(mode 1770)"));
	/* 0755 is fine: nobody else can write */
	assert_int_equal(chmod(dir, 0755), 0);
	frecd_outdir__free(frecd_outdir__new(dir, err, sizeof(err)));
	assert_int_equal(rmdir(dir), 0);

	/* a symbolic link to a good directory */
	snprintf(target, sizeof(target), "%s/real", top);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, dir), 0);
	assert_null(frecd_outdir__new(dir, err, sizeof(err)));
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err, "is a symbolic link, which frecd does not follow"));
	/* ... also with a trailing slash */
	snprintf(msg, sizeof(msg), "%s/", dir);
	assert_null(frecd_outdir__new(msg, err, sizeof(err)));
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_int_equal(unlink(dir), 0);

	/* a file */
	assert_int_equal(close(open(dir, O_WRONLY | O_CREAT, 0600)), 0);
	assert_null(frecd_outdir__new(dir, err, sizeof(err)));
	assert_int_equal(errno, ENOTDIR);
	snprintf(msg, sizeof(msg), "-o %s: not a directory; choose a directory for the snapshots", dir);
	assert_string_equal(err, msg);
	assert_int_equal(unlink(dir), 0);

	/* no parent */
	snprintf(msg, sizeof(msg), "%s/no/such", top);
	assert_null(frecd_outdir__new(msg, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "its parent directory does not exist"));

	/* owned by someone else (only root can make one) */
	if (geteuid() == 0) {
		assert_int_equal(mkdir(dir, 0700), 0);
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_null(frecd_outdir__new(dir, err, sizeof(err)));
		assert_int_equal(errno, EPERM);
		snprintf(msg, sizeof(msg),
			 "-o %s: owned by uid 65534, not by root, so its owner can replace the snapshots; chown root %s or choose another -o",
			 dir, dir);
		assert_string_equal(err, msg);
	}
}

static void test_one_frecd_per_dir(void **state)
{
	struct frecd_outdir *a, *b;
	char msg[512];

	a = frecd_outdir__new(dir, err, sizeof(err));
	assert_non_null(a);
	b = frecd_outdir__new(dir, err, sizeof(err));
	assert_null(b);
	assert_int_equal(errno, EBUSY);
	snprintf(msg, sizeof(msg),
		 "-o %s: another frecd writes its snapshots there; stop it or choose another -o", dir);
	assert_string_equal(err, msg);
	frecd_outdir__free(a);
	b = frecd_outdir__new(dir, err, sizeof(err));
	assert_non_null(b);
	frecd_outdir__free(b);
}

static void test_stale_tmp_removed(void **state)
{
	static const char *stale[] = {
		".frec-20250101T120000.000Z.frec.tmp",
		".frec-20250101T120000.000Z_07.frec.tmp",
	};
	static const char *kept[] = {
		"frec-20250101T120000.000Z.frec",	/* a snapshot */
		".frec-x.frec.tmp",			/* not frecd's name */
		"notes.tmp",
		".frec-20250101T120000.000Z.frec.tmp.bak",
	};
	struct frecd_outdir *o;
	char link[256];
	size_t i;

	assert_int_equal(mkdir(dir, 0700), 0);
	for (i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
		touch(stale[i]);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		touch(kept[i]);
	/* a symbolic link with a temporary name is not frecd's: kept */
	snprintf(link, sizeof(link), "%s/.frec-20250101T130000.000Z.frec.tmp", dir);
	assert_int_equal(symlink("/nonexistent", link), 0);
	/* nor is a directory */
	snprintf(link, sizeof(link), "%s/.frec-20250101T140000.000Z.frec.tmp", dir);
	assert_int_equal(mkdir(link, 0700), 0);

	o = frecd_outdir__new(dir, err, sizeof(err));
	assert_non_null(o);
	for (i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
		assert_false(exists(stale[i]));
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		assert_true(exists(kept[i]));
	assert_true(exists(".frec-20250101T130000.000Z.frec.tmp"));
	assert_true(exists(".frec-20250101T140000.000Z.frec.tmp"));
	frecd_outdir__free(o);
}

static void test_checked_again(void **state)
{
	struct frecd_outdir *o;
	char moved[160], other[160], msg[512];
	int fd;

	o = frecd_outdir__new(dir, err, sizeof(err));
	assert_non_null(o);

	/* made writable by others while frecd runs: skipped, then fine again */
	assert_int_equal(chmod(dir, 0757), 0);
	assert_int_equal(frecd_outdir__dirfd(o, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by group or others (mode 0757)"));
	assert_int_equal(chmod(dir, 0700), 0);
	fd = frecd_outdir__dirfd(o, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);

	/* renamed away, a symbolic link to another directory put in its place:
	 * refused, nothing is followed */
	snprintf(moved, sizeof(moved), "%s/moved", top);
	snprintf(other, sizeof(other), "%s/other", top);
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(symlink(other, dir), 0);
	assert_int_equal(frecd_outdir__dirfd(o, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "is a symbolic link, which frecd does not follow"));
	assert_int_equal(unlink(dir), 0);

	/* a file in its place: refused */
	assert_int_equal(close(open(dir, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(frecd_outdir__dirfd(o, err, sizeof(err)), -ENOTDIR);
	snprintf(msg, sizeof(msg), "-o %s: not a directory; choose a directory for the snapshots", dir);
	assert_string_equal(err, msg);
	assert_int_equal(unlink(dir), 0);

	/* a directory writable by others in its place: refused */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(frecd_outdir__dirfd(o, err, sizeof(err)), -EPERM);
	assert_int_equal(rmdir(dir), 0);

	/* gone: created again, 0700, and used from then on */
	fd = frecd_outdir__dirfd(o, err, sizeof(err));
	assert_true(fd >= 0);
	assert_same_dir(fd, dir);
	assert_int_equal(mode_of(dir), 0700);
	close(fd);
	fd = frecd_outdir__dirfd(o, err, sizeof(err));
	assert_true(fd >= 0);
	assert_same_dir(fd, dir);
	close(fd);
	frecd_outdir__free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmp_names),
		cmocka_unit_test_setup_teardown(test_created_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_frecd_per_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_tmp_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checked_again, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
