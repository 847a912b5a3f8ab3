// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cgroupfs.c without the kernel's cgroups: which hierarchy auto, v2, none
 * and a controller choose from mountinfo texts (a hybrid host, pure v2, a
 * bind mount's root, a cgroup namespace's view, nothing in view), the
 * normal form of the paths users give, and a lookup's level on a temporary
 * directory standing in for the mount.
 */
#include <errno.h>
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
#include "frecd/cgroupfs.h"

static struct frecd_cgroupfs fs;
static char err[512];

/* A hybrid host: systemd's tmpfs with v1 hierarchies and the v2 one in
 * unified, as on most hosts of the 5.x years. */
static const char hybrid[] =
	"23 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:19 - cgroup cgroup rw,pids\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:5 - cgroup2 cgroup2 rw\n";

static const char pure_v2[] =
	"23 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	"30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

/* A container's view: a bind mount of its own cgroup, and a mount with
 * a space in its point (mountinfo's \040). */
static const char bind_root[] =
	"500 400 0:26 /system.slice/app.service /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n"
	"501 400 0:26 / /mnt/all\\040cgroups rw - cgroup2 cgroup2 rw\n";

/* In its own cgroup namespace, the container mounted cgroup2 itself: its
 * root is "/", the namespace's root. */
static const char cgroupns[] =
	"600 590 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n";

static const char nothing[] = "23 1 0:21 / /proc rw,nosuid - proc proc rw\n";

/* The has-child answer per mount point: a list of points that have one. */
static bool has_child(void *ctx, const char *path)
{
	const char *const *p;

	for (p = ctx; *p; p++)
		if (!strcmp(*p, path))
			return true;
	return false;
}

static int choose(const char *mi, const char *want, const char *const *with_child)
{
	static const char *const none[] = { NULL };

	err[0] = '\0';
	return frecd_cgroupfs__choose(mi, want, has_child, (void *)(with_child ? with_child : none),
				      &fs, err, sizeof(err));
}

static void test_hybrid(void **state)
{
	static const char *const unified[] = { "/sys/fs/cgroup/unified", NULL };
	static const char *const v1[] = { "/sys/fs/cgroup/memory", "/sys/fs/cgroup/cpuset", NULL };

	/* systemd mirrors its units into unified: v2 */
	assert_int_equal(choose(hybrid, "auto", unified), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V2);
	assert_string_equal(fs.hierarchy, "v2");
	assert_string_equal(fs.mount, "/sys/fs/cgroup/unified");
	assert_string_equal(fs.root, "/");
	/* every task in the v2 root: the first of pids, memory, cpu, cpuset with a child */
	assert_int_equal(choose(hybrid, "auto", v1), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V1);
	assert_string_equal(fs.hierarchy, "memory");
	assert_string_equal(fs.mount, "/sys/fs/cgroup/memory");
	assert_non_null(strstr(fs.why, "memory"));
	/* no hierarchy has cgroups: none, and why */
	assert_int_equal(choose(hybrid, "auto", NULL), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_NONE);
	assert_string_equal(fs.hierarchy, "");
	assert_string_equal(fs.why, "every task is in one cgroup here (the v2 root, and no v1 hierarchy has cgroups): containers cannot be told apart on this host");
	/* forced: a controller of a shared mount, and v2 without children */
	assert_int_equal(choose(hybrid, "cpuacct", NULL), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V1);
	assert_string_equal(fs.mount, "/sys/fs/cgroup/cpu,cpuacct");
	assert_int_equal(choose(hybrid, "pids", NULL), 0);
	assert_string_equal(fs.hierarchy, "pids");
	assert_string_equal(fs.mount, "/sys/fs/cgroup/pids");
	assert_int_equal(choose(hybrid, "v2", NULL), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V2);
	assert_string_equal(fs.mount, "/sys/fs/cgroup/unified");
	assert_int_equal(choose(hybrid, "none", unified), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_NONE);
	/* name=systemd is no controller; nor is a missing one */
	assert_int_equal(choose(hybrid, "systemd", NULL), -ENOENT);
	assert_string_equal(err, "no v1 hierarchy of controller systemd is mounted: mount one (mount -t cgroup -o systemd cgroup DIR), or use auto or v2");
	assert_int_equal(choose(hybrid, "io", NULL), -ENOENT);
}

static void test_pure_v2(void **state)
{
	static const char *const root[] = { "/sys/fs/cgroup", NULL };

	assert_int_equal(choose(pure_v2, "auto", root), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V2);
	assert_string_equal(fs.mount, "/sys/fs/cgroup");
	assert_string_equal(fs.root, "/");
	/* a v2 root without children (a VM's init): none */
	assert_int_equal(choose(pure_v2, "auto", NULL), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_NONE);
	assert_int_equal(choose(pure_v2, "pids", NULL), -ENOENT);
	/* nothing in view: v2, by id only */
	assert_int_equal(choose(nothing, "auto", NULL), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V2);
	assert_string_equal(fs.mount, "");
	assert_string_equal(fs.why, "no cgroup filesystem in view");
	assert_int_equal(choose(nothing, "v2", NULL), 0);
	assert_int_equal(fs.mode, FREC_CGROUP_V2);
	assert_string_equal(fs.mount, "");
}

static void test_bind_root(void **state)
{
	static const char *const both[] = { "/sys/fs/cgroup", "/mnt/all cgroups", NULL };
	char norm[256];

	/* a mount of the root wins over the bind mount of a subtree */
	assert_int_equal(choose(bind_root, "auto", both), 0);
	assert_string_equal(fs.mount, "/mnt/all cgroups");
	assert_string_equal(fs.root, "/");
	/* only the bind mount: paths under it are its root plus the rest */
	assert_int_equal(choose(bind_root, "v2", NULL), 0);
	snprintf(fs.mount, sizeof(fs.mount), "/sys/fs/cgroup");
	snprintf(fs.root, sizeof(fs.root), "/system.slice/app.service");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/sys/fs/cgroup/worker", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/system.slice/app.service/worker");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/sys/fs/cgroup", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/system.slice/app.service");
	/* the /proc/PID/cgroup form is taken as it is */
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/system.slice/x", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/system.slice/x");
	/* a component boundary: /sys/fs/cgroupX is no mount path */
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/sys/fs/cgroupX/a", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/sys/fs/cgroupX/a");
	/* outside the bind mount's view: no lookup */
	assert_int_equal(frecd_cgroupfs__lookup(&fs, "/other.slice", &(__u64){ 0 }, &(__u32){ 0 },
						norm, sizeof(norm), err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "cgroup /other.slice is outside what /sys/fs/cgroup shows (/system.slice/app.service and below): give a path under it");
}

static void test_cgroupns(void **state)
{
	static const char *const root[] = { "/sys/fs/cgroup", NULL };
	char norm[256];

	assert_int_equal(choose(cgroupns, "auto", root), 0);
	assert_string_equal(fs.mount, "/sys/fs/cgroup");
	assert_string_equal(fs.root, "/");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/sys/fs/cgroup/app", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/app");
}

static void test_normalise(void **state)
{
	char norm[16];

	memset(&fs, 0, sizeof(fs));
	snprintf(fs.mount, sizeof(fs.mount), "/sys/fs/cgroup");
	snprintf(fs.root, sizeof(fs.root), "/");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "//a///b/./", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/a/b");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/sys/fs/cgroup/", norm, sizeof(norm)), 0);
	assert_string_equal(norm, "/");
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/a/../b", norm, sizeof(norm)), -EINVAL);
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "a/b", norm, sizeof(norm)), -EINVAL);
	assert_int_equal(frecd_cgroupfs__normalise(&fs, "/0123456789abcdef", norm, sizeof(norm)),
			 -ENAMETOOLONG);
	assert_int_equal(frecd_cgroupfs__depth("/"), 0);
	assert_int_equal(frecd_cgroupfs__depth("/a"), 1);
	assert_int_equal(frecd_cgroupfs__depth("/a/b/c"), 3);
}

/* A lookup on a directory tree: the id is the inode, the level the depth
 * plus the offset, and a missing cgroup says how to fix it. */
static void test_lookup_level(void **state)
{
	char top[64], sub[256], norm[256];
	struct stat st;
	__u64 id;
	__u32 level;

	snprintf(top, sizeof(top), "/tmp/frec-cgroupfs.XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(sub, sizeof(sub), "%s/a", top);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/a/b", top);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(stat(sub, &st), 0);

	memset(&fs, 0, sizeof(fs));
	fs.mode = FREC_CGROUP_V2;
	fs.mount_fd = -1;
	snprintf(fs.mount, sizeof(fs.mount), "%s", top);
	snprintf(fs.root, sizeof(fs.root), "/");
	assert_int_equal(frecd_cgroupfs__lookup(&fs, "/a/b", &id, &level, norm, sizeof(norm), err,
						sizeof(err)), 0);
	assert_int_equal(id, st.st_ino);
	assert_int_equal(level, 2);
	assert_string_equal(norm, "/a/b");
	/* the mount form, and frecd two levels down in a cgroup namespace */
	fs.level_offset = 2;
	snprintf(sub, sizeof(sub), "%s/a/b/", top);
	assert_int_equal(frecd_cgroupfs__lookup(&fs, sub, &id, &level, norm, sizeof(norm), err,
						sizeof(err)), 0);
	assert_int_equal(level, 4);
	assert_string_equal(norm, "/a/b");
	/* a bind mount of /x/a: /x/a/b is the directory a/b under it */
	snprintf(fs.root, sizeof(fs.root), "/x");
	fs.level_offset = 0;
	assert_int_equal(frecd_cgroupfs__lookup(&fs, "/x/a/b", &id, &level, norm, sizeof(norm),
						err, sizeof(err)), 0);
	assert_int_equal(id, st.st_ino);
	assert_int_equal(level, 3);
	snprintf(fs.root, sizeof(fs.root), "/");
	assert_int_equal(frecd_cgroupfs__lookup(&fs, "/a/c", &id, &level, norm, sizeof(norm), err,
						sizeof(err)), -ENOENT);
	snprintf(sub, sizeof(sub),
		 "no cgroup /a/c under %s: give the path /proc/PID/cgroup shows for a process in it",
		 top);
	assert_string_equal(err, sub);
	/* no hierarchy recorded */
	fs.mode = FREC_CGROUP_NONE;
	assert_int_equal(frecd_cgroupfs__lookup(&fs, "/a", &id, &level, norm, sizeof(norm), err,
						sizeof(err)), -EOPNOTSUPP);

	snprintf(sub, sizeof(sub), "%s/a/b", top);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/a", top);
	rmdir(sub);
	rmdir(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_pure_v2),
		cmocka_unit_test(test_bind_root),
		cmocka_unit_test(test_cgroupns),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_lookup_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
