// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A probe's file inside a process's root (probe_path.h): openat2 with
 * RESOLVE_IN_ROOT on a temporary directory, as frecd opens
 * /proc/PID/root/REST. An absolute link resolves inside the root, and ".."
 * cannot leave it; a name outside the root is not found. Needs no root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "frecd/probe_path.h"

static char top[64];		/* top/root is the root, top/outside beside it */
static char root[128];
static int rootfd = -1;

static void put(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

static int setup(void **state)
{
	char p[256];

	snprintf(top, sizeof(top), "/tmp/frec-probe-path.XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(p, sizeof(p), "%s/bin", root);
	if (mkdir(root, 0755) || mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/bin/app", root);
	put(p);
	snprintf(p, sizeof(p), "%s/outside", top);
	put(p);
	/* root/abs -> /bin/app: inside the root, root/bin/app */
	snprintf(p, sizeof(p), "%s/abs", root);
	if (symlink("/bin/app", p))
		return -1;
	/* root/up -> ../outside: .. stops at the root */
	snprintf(p, sizeof(p), "%s/up", root);
	if (symlink("../outside", p))
		return -1;
	/* root/host -> TOP/outside: a host path, not in the root */
	snprintf(p, sizeof(p), "%s/host", root);
	{
		char target[128];

		snprintf(target, sizeof(target), "%s/outside", top);
		if (symlink(target, p))
			return -1;
	}
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return rootfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	if (rootfd >= 0)
		close(rootfd);
	rootfd = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd) ? -1 : 0;
}

static void skip_without_openat2(void)
{
	if (probe_path__in_root_works() == -ENOSYS)
		skip();
}

/* fd is the file root/REL: same inode. */
static void assert_is(int fd, const char *rel)
{
	struct stat a, b;
	char p[256];

	assert_true(fd >= 0);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(p, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	close(fd);
}

static void test_absolute_link_stays_inside(void **state)
{
	skip_without_openat2();
	assert_is(probe_path__openat_in_root(rootfd, "abs"), "bin/app");
	assert_is(probe_path__openat_in_root(rootfd, "/abs"), "bin/app");
	assert_is(probe_path__openat_in_root(rootfd, "/bin/app"), "bin/app");
	/* a host path is looked up inside the root, where it is not */
	assert_int_equal(probe_path__openat_in_root(rootfd, "host"), -ENOENT);
}

static void test_dotdot_cannot_leave(void **state)
{
	char p[256];

	skip_without_openat2();
	assert_int_equal(probe_path__openat_in_root(rootfd, "../outside"), -ENOENT);
	assert_int_equal(probe_path__openat_in_root(rootfd, "bin/../../outside"), -ENOENT);
	assert_int_equal(probe_path__openat_in_root(rootfd, "up"), -ENOENT);
	/* and .. at the root is the root */
	assert_is(probe_path__openat_in_root(rootfd, "../../bin/app"), "bin/app");
	/* ... whereas from the host's root, up reaches the file beside it */
	snprintf(p, sizeof(p), "%s/up", root);
	{
		int fd = open(p, O_RDONLY | O_CLOEXEC);

		assert_true(fd >= 0);
		close(fd);
	}
}

/* A magic link (/proc/self/exe) is refused even where it exists. */
static void test_no_magic_links(void **state)
{
	int slash;

	skip_without_openat2();
	slash = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(slash >= 0);
	assert_int_equal(probe_path__openat_in_root(slash, "/proc/self/exe"), -ELOOP);
	close(slash);
}

/* /proc/PID/root/REST: REST in that process's root, shown as given. */
static void test_proc_root_path(void **state)
{
	struct probe_file f;
	char p[256];

	skip_without_openat2();
	snprintf(p, sizeof(p), "/proc/%d/root%s/bin/app", (int)getpid(), root);
	assert_int_equal(probe_path__open(p, NULL, 0, &f), 0);
	assert_int_equal(f.pid, (__u32)getpid());
	assert_string_equal(f.path, p);
	assert_is(f.fd, "bin/app");
	snprintf(p, sizeof(p), "/proc/%d/root%s/nothing", (int)getpid(), root);
	assert_int_equal(probe_path__open(p, NULL, 0, &f), -ENOENT);
}

static void test_open(void **state)
{
	struct probe_file f;
	char p[256], want[PATH_MAX];

	/* a host path: the opened file's canonical name */
	snprintf(p, sizeof(p), "%s/abs", root);
	assert_int_equal(probe_path__open(p, NULL, 0, &f), -ENOENT);	/* /bin/app on the host */
	assert_int_equal(f.fd, -1);
	snprintf(p, sizeof(p), "%s/up", root);
	assert_int_equal(probe_path__open(p, NULL, 0, &f), 0);
	assert_non_null(realpath(p, want));
	assert_string_equal(f.path, want);
	assert_int_equal(f.pid, 0);
	close(f.fd);
	/* not a regular file */
	assert_int_equal(probe_path__open(root, NULL, 0, &f), -EISDIR);
	assert_int_equal(probe_path__open("/dev/null", NULL, 0, &f), -EINVAL);
	/* no such process */
	assert_int_equal(probe_path__open("/proc/99999999/root/bin/app", NULL, 0, &f), -ESRCH);
}

/* The names under which a -p process maps a library, glibc 2.31's too. */
static void test_map_matches(void **state)
{
	(void)state;
	assert_true(probe_path__map_matches("libc.so.6", "libc"));
	assert_true(probe_path__map_matches("libc.so", "libc"));
	assert_true(probe_path__map_matches("libc-2.31.so", "libc"));
	assert_true(probe_path__map_matches("libpthread-2.31.so", "libpthread"));
	assert_true(probe_path__map_matches("libc.so.6", "libc.so.6"));
	assert_false(probe_path__map_matches("libc-2.31.so", "libc.so.6"));
	assert_false(probe_path__map_matches("libcrypt.so.1", "libc"));
	assert_false(probe_path__map_matches("libc-client.so", "libc"));
	assert_false(probe_path__map_matches("libc-2.31.so.debug", "libc"));
	assert_false(probe_path__map_matches("libc-.so", "libc"));
}

static void test_in_proc_root(void **state)
{
	__u32 pid = 0;

	assert_true(probe_path__in_proc_root("/proc/42/root/usr/bin/app", &pid));
	assert_int_equal(pid, 42);
	assert_true(probe_path__in_proc_root("/proc/7/root", &pid));
	assert_int_equal(pid, 7);
	assert_false(probe_path__in_proc_root("/proc/self/root/bin/app", &pid));
	assert_false(probe_path__in_proc_root("/proc/42/rootfs/bin/app", &pid));
	assert_false(probe_path__in_proc_root("/proc/042/root/bin/app", &pid));
	assert_false(probe_path__in_proc_root("/proc/42/cwd/bin/app", &pid));
	assert_false(probe_path__in_proc_root("/proc/99999999999/root/x", &pid));
	assert_false(probe_path__in_proc_root("/usr/bin/app", &pid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_absolute_link_stays_inside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotdot_cannot_leave, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_magic_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_root_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open, setup, teardown),
		cmocka_unit_test(test_in_proc_root),
		cmocka_unit_test(test_map_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
