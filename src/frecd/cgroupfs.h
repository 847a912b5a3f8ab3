/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Cgroup paths and ids, from the files and syscalls of cgroupfs: which
 * hierarchy frecd records (from /proc/self/mountinfo), a --cgroup or
 * cgroup= path's id and level, an id's path (by its FILEID_KERNFS handle,
 * else by walking the mount).
 *
 * An id is the kernfs id of a cgroup's directory: on 64-bit also its inode
 * number and its 8-byte file handle (bpf/cgroup.bpf.h reads the same). A
 * path is as /proc/PID/cgroup shows it in frecd's cgroup namespace: "/" is
 * that namespace's root; the mount's root field says where the mount starts
 * (a bind mount, or a mount made in another namespace, starts lower).
 *
 * Threads: open() on main's thread at start; then the struct is read-only
 * and every function may be called from any thread (the resolver's).
 */
#ifndef FRECD_CGROUPFS_H
#define FRECD_CGROUPFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "../../bpf/frec.h"

struct frecd_hostview;

/* --cgroup's list, resolved: the programs' entries and the normal paths
 * (the snapshot header's), in the order given. */
#define FRECD_CGROUP_PATH_MAX	256
struct frecd_cgroup_list {
	size_t n;
	struct frec_cgroup_filter f[FREC_MAX_CGROUP_FILTER];
	char path[FREC_MAX_CGROUP_FILTER][FRECD_CGROUP_PATH_MAX];
};

struct frecd_cgroupfs {
	__u32 mode;		/* FREC_CGROUP_NONE, _V2 or _V1 (bpf/frec.h) */
	char hierarchy[16];	/* the header's: "", "v2", or the v1 controller */
	int ssid;		/* v1: the controller's enum cgroup_subsys_id; else -1 */
	char mount[PATH_MAX];	/* where the hierarchy is mounted; "": not in view */
	char root[PATH_MAX];	/* the mount's root field: "/" or lower */
	int mount_fd;		/* the mount point (read-only); -1 when not in view */
	__s32 level_offset;	/* add to a path's depth: the kernel's level */
	bool by_handle;		/* open_by_handle_at works (CAP_DAC_READ_SEARCH) */
	/* Why auto chose as it did (or none): for the log and --check. */
	char why[160];
};

/* Whether directory path has a subdirectory: auto's test for a hierarchy
 * in use. The default reads the directory; tests pass their own. */
typedef bool (*frecd_cgroupfs_has_child_fn)(void *ctx, const char *path);

/*
 * Choose the hierarchy from mountinfo's text for want ("auto", "v2",
 * "none" or a v1 controller) into fs (mode, hierarchy, mount, root; no
 * file is opened). auto takes v2 when a cgroup2 mount's root has a child;
 * otherwise the first of pids, memory, cpu and cpuset mounted as v1 with a
 * child; otherwise, with no cgroup filesystem in view, v2 by id only (mount
 * ""); otherwise none. 0, or -ENOENT with the cause and the fix in err (a
 * forced hierarchy that is not mounted). Pure: unit-tested.
 */
int frecd_cgroupfs__choose(const char *mountinfo, const char *want,
			   frecd_cgroupfs_has_child_fn has_child, void *ctx,
			   struct frecd_cgroupfs *fs, char *err, size_t errlen);

/*
 * Open the hierarchy want names (see choose()) as /proc/self/mountinfo
 * shows them, with the v1 ssid from the kernel's BTF and the level offset
 * from hv (NULL: 0). 0, or -errno with the cause and the fix in err (a
 * usage error: frecd exits 2).
 */
int frecd_cgroupfs__open(struct frecd_cgroupfs *fs, const char *want,
			 const struct frecd_hostview *hv, char *err, size_t errlen);
void frecd_cgroupfs__close(struct frecd_cgroupfs *fs);

/*
 * A user's path in normal form into out: the /proc/PID/cgroup form
 * ("/a/b") or a path under the mount point ("MOUNT/a/b", which is the root
 * field plus the rest); repeated and trailing slashes and "." go. 0,
 * -EINVAL (not absolute, or ".."), -ENAMETOOLONG. Pure.
 */
int frecd_cgroupfs__normalise(const struct frecd_cgroupfs *fs, const char *path, char *out,
			      size_t len);

/* The depth of a normal path: "/" 0, "/a/b" 2. Pure. */
__u32 frecd_cgroupfs__depth(const char *norm);

/*
 * The id and level of the cgroup at path (either form), and its normal
 * form in norm. The level is the kernel's: the depth plus the offset. 0,
 * or -ENOENT / -EINVAL with "no cgroup X under MOUNT: give ..." in err,
 * -EOPNOTSUPP when no hierarchy is recorded.
 */
int frecd_cgroupfs__lookup(const struct frecd_cgroupfs *fs, const char *path, __u64 *id,
			   __u32 *level, char *norm, size_t len, char *err, size_t errlen);

/*
 * The normal path of cgroup id into buf, by its handle. 0; -ESTALE (the
 * cgroup is gone); -ENOENT (outside the mount's view); -EPERM or
 * -EOPNOTSUPP (no handles here: walk() instead); -ENAMETOOLONG.
 */
int frecd_cgroupfs__path(const struct frecd_cgroupfs *fs, __u64 id, char *buf, size_t len);

/* Call fn(ctx, id, normal path) for every cgroup under the mount, the root
 * first; a non-zero return stops the walk and is returned. 0 or -errno. */
int frecd_cgroupfs__walk(const struct frecd_cgroupfs *fs,
			 int (*fn)(void *ctx, __u64 id, const char *path), void *ctx);

/*
 * Resolve n --cgroup paths (what names them is what, "--cgroup" or
 * "cgroup") into out; a cgroup named twice is kept once. 0, or -errno with
 * "--cgroup /x: no cgroup /x under MOUNT: give ..." in err.
 */
int frecd_cgroupfs__resolve(const struct frecd_cgroupfs *fs, const char *what,
			    const char *const *paths, size_t n, struct frecd_cgroup_list *out,
			    char *err, size_t errlen);
/* Whether two lists filter the same cgroups (by id, in any order). */
bool frecd_cgroup_list__same(const struct frecd_cgroup_list *a, const struct frecd_cgroup_list *b);

/* One line for --check: "v2 at MOUNT", "v1 (pids) at MOUNT", "v2 by id
 * only (no cgroup2 mount in view)" or "none: ...". */
int frecd_cgroupfs__describe(const struct frecd_cgroupfs *fs, char *buf, size_t len);

#endif /* FRECD_CGROUPFS_H */
