// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "../../bpf/frec.h"
#include "frecd/cgroupfs.h"
#include "frecd/hostview.h"
#include "frecd/log.h"

/* exportfs' type of kernfs handles: an 8-byte id (include/linux/exportfs.h) */
#define FILEID_KERNFS		0xfe
#define MOUNTINFO_MAX		(1 << 20)
#define MAX_V1_MOUNTS		64

struct mnt {
	char root[PATH_MAX];
	char point[PATH_MAX];
	char super[256];	/* the super options: "rw,pids" */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - TYPE
 * SOURCE SUPER". 1 and *m filled with *v2 for a cgroup or cgroup2 mount, 0
 * for another, -1 for a line that is not one.
 */
static int parse_line(const char *line, struct mnt *m, bool *v2)
{
	char root[PATH_MAX], point[PATH_MAX], type[32], super[256];
	const char *sep;

	if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2)
		return -1;
	sep = strstr(line, " - ");
	if (!sep || sscanf(sep + 3, "%31s %*s %255s", type, super) != 2)
		return -1;
	if (strcmp(type, "cgroup2") && strcmp(type, "cgroup"))
		return 0;
	*v2 = !strcmp(type, "cgroup2");
	unescape(root);
	unescape(point);
	snprintf(m->root, sizeof(m->root), "%s", root);
	snprintf(m->point, sizeof(m->point), "%s", point);
	snprintf(m->super, sizeof(m->super), "%s", super);
	return 1;
}

/* Whether the super options "rw,cpu,cpuacct" name controller c. */
static bool has_controller(const char *super, const char *c)
{
	size_t n = strlen(c);
	const char *p = super;

	while (p && *p) {
		if (!strncmp(p, c, n) && (p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static bool default_has_child(void *ctx, const char *path)
{
	char sub[PATH_MAX];
	struct dirent *d;
	struct stat st;
	bool found = false;
	DIR *dir;

	(void)ctx;
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (d->d_type == DT_DIR) {
			found = true;
		} else if (d->d_type == DT_UNKNOWN) {
			snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name);
			found = !lstat(sub, &st) && S_ISDIR(st.st_mode);
		}
	}
	closedir(dir);
	return found;
}

static void set_mount(struct frecd_cgroupfs *fs, __u32 mode, const char *hierarchy,
		      const struct mnt *m)
{
	fs->mode = mode;
	snprintf(fs->hierarchy, sizeof(fs->hierarchy), "%s", hierarchy);
	snprintf(fs->mount, sizeof(fs->mount), "%s", m ? m->point : "");
	snprintf(fs->root, sizeof(fs->root), "%s", m ? m->root : "/");
}

int frecd_cgroupfs__choose(const char *mountinfo, const char *want,
			   frecd_cgroupfs_has_child_fn has_child, void *ctx,
			   struct frecd_cgroupfs *fs, char *err, size_t errlen)
{
	static const char *const autos[] = { "pids", "memory", "cpu", "cpuset" };
	struct mnt *v1 = NULL, v2m, cur;
	const char *p = mountinfo, *nl;
	char line[3 * PATH_MAX];
	size_t nv1 = 0, i, j, n;
	bool have_v2 = false, is_v2;
	int ret = 0;

	if (!has_child)
		has_child = default_has_child;
	memset(fs, 0, sizeof(*fs));
	fs->ssid = -1;
	fs->mount_fd = -1;
	v1 = calloc(MAX_V1_MOUNTS, sizeof(*v1));
	if (!v1) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n >= sizeof(line))
			continue;
		memcpy(line, p, n);
		line[n] = '\0';
		if (parse_line(line, &cur, &is_v2) != 1)
			continue;
		/* the first mount of each hierarchy, but one of its root wins */
		if (is_v2 && (!have_v2 || (strcmp(v2m.root, "/") && !strcmp(cur.root, "/")))) {
			v2m = cur;
			have_v2 = true;
		} else if (!is_v2 && nv1 < MAX_V1_MOUNTS) {
			v1[nv1++] = cur;
		}
	}

	if (!strcmp(want, "none")) {
		set_mount(fs, FREC_CGROUP_NONE, "", NULL);
		snprintf(fs->why, sizeof(fs->why), "--cgroup-hierarchy none");
	} else if (!strcmp(want, "v2")) {
		set_mount(fs, FREC_CGROUP_V2, "v2", have_v2 ? &v2m : NULL);
		if (!have_v2)
			snprintf(fs->why, sizeof(fs->why), "no cgroup2 mount in view");
	} else if (strcmp(want, "auto")) {
		for (i = 0; i < nv1 && !has_controller(v1[i].super, want); i++)
			;
		for (j = i + 1; i < nv1 && strcmp(v1[i].root, "/") && j < nv1; j++)
			if (has_controller(v1[j].super, want) && !strcmp(v1[j].root, "/"))
				i = j;
		if (i == nv1) {
			snprintf(err, errlen,
				 "no v1 hierarchy of controller %s is mounted: mount one (mount -t cgroup -o %s cgroup DIR), or use auto or v2",
				 want, want);
			ret = -ENOENT;
			goto out;
		}
		set_mount(fs, FREC_CGROUP_V1, want, &v1[i]);
	} else if (have_v2 && has_child(ctx, v2m.point)) {
		set_mount(fs, FREC_CGROUP_V2, "v2", &v2m);
	} else {
		for (j = 0; j < sizeof(autos) / sizeof(autos[0]); j++) {
			for (i = 0; i < nv1; i++)
				if (has_controller(v1[i].super, autos[j]) && has_child(ctx, v1[i].point))
					break;
			if (i < nv1)
				break;
		}
		if (j < sizeof(autos) / sizeof(autos[0])) {
			set_mount(fs, FREC_CGROUP_V1, autos[j], &v1[i]);
			snprintf(fs->why, sizeof(fs->why),
				 "every task is in the v2 root: the v1 %s hierarchy has cgroups",
				 autos[j]);
		} else if (!have_v2 && !nv1) {
			set_mount(fs, FREC_CGROUP_V2, "v2", NULL);
			snprintf(fs->why, sizeof(fs->why), "no cgroup filesystem in view");
		} else {
			set_mount(fs, FREC_CGROUP_NONE, "", NULL);
			snprintf(fs->why, sizeof(fs->why),
				 "every task is in one cgroup here (the v2 root, and no v1 hierarchy has cgroups): containers cannot be told apart on this host");
		}
	}
out:
	free(v1);
	return ret;
}

/* The controller's enum cgroup_subsys_id in the kernel's BTF ("pids" is
 * pids_cgrp_id), checked against css_set.subsys[]. */
static int v1_ssid(const char *controller, char *err, size_t errlen)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	const struct btf_member *m;
	char name[64];
	struct btf *btf;
	int id, i, ssid = -1, nsubsys = -1;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, errlen,
			 "--cgroup-hierarchy %s: the kernel's BTF is needed to find the controller: use v2 or none",
			 controller);
		return -ENOENT;
	}
	snprintf(name, sizeof(name), "%s_cgrp_id", controller);
	id = btf__find_by_name_kind(btf, "cgroup_subsys_id", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, e = t ? btf_enum(t) : NULL; t && i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			ssid = e->val;
	id = btf__find_by_name_kind(btf, "css_set", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++) {
		const struct btf_type *a;

		if (strcmp(btf__name_by_offset(btf, m->name_off), "subsys"))
			continue;
		a = btf__type_by_id(btf, m->type);
		if (a && btf_is_array(a))
			nsubsys = btf_array(a)->nelems;
	}
	btf__free(btf);
	if (ssid < 0 || ssid >= nsubsys || ssid > 15) {
		snprintf(err, errlen,
			 "--cgroup-hierarchy %s: this kernel has no controller %s: use one of /proc/cgroups, or auto",
			 controller, controller);
		return -ENOENT;
	}
	return ssid;
}

/* Whether open_by_handle_at() works on this mount: the root's handle. */
static bool handles_work(const struct frecd_cgroupfs *fs)
{
	struct {
		struct file_handle h;
		unsigned char id[8];
	} fh;
	int mount_id, fd;

	fh.h.handle_bytes = sizeof(fh.id);
	if (name_to_handle_at(fs->mount_fd, "", &fh.h, &mount_id, AT_EMPTY_PATH))
		return false;
	fd = open_by_handle_at(fs->mount_fd, &fh.h, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int frecd_cgroupfs__open(struct frecd_cgroupfs *fs, const char *want,
			 const struct frecd_hostview *hv, char *err, size_t errlen)
{
	char *buf;
	ssize_t n, got = 0;
	int fd, ret;

	buf = malloc(MOUNTINFO_MAX);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read /proc/self/mountinfo: %s: mount /proc",
			 strerror(errno));
		free(buf);
		return ret;
	}
	while (got < MOUNTINFO_MAX - 1 && (n = read(fd, buf + got, MOUNTINFO_MAX - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	ret = frecd_cgroupfs__choose(buf, want, NULL, NULL, fs, err, errlen);
	free(buf);
	if (ret)
		return ret;
	if (fs->mode == FREC_CGROUP_V1) {
		ret = v1_ssid(fs->hierarchy, err, errlen);
		if (ret < 0 && strcmp(want, "auto"))
			return ret;
		if (ret < 0) {
			/* auto never stops frecd: without the kernel's BTF
			 * (--btf) the v1 controller cannot be found, so
			 * nothing is recorded, and the log says why */
			snprintf(fs->why, sizeof(fs->why),
				 "the v1 %.15s hierarchy has cgroups, but its controller is found in the kernel's BTF only",
				 fs->hierarchy);
			fs->mode = FREC_CGROUP_NONE;
			fs->hierarchy[0] = '\0';
			fs->mount[0] = fs->root[0] = '\0';
			err[0] = '\0';
			return 0;
		}
		fs->ssid = ret;
	}
	if (hv && fs->mode == FREC_CGROUP_V1) {
		/* the self-probe knows v1 levels only for the ssid it was
		 * asked about: ask it about this one */
		struct frecd_hostview v = *hv;
		char why[256];

		/* it fails only where no BPF loads at all, which the loader
		 * then says in one line of its own */
		if (v.v1_ssid != fs->ssid && frecd_hostview__probe_v1(&v, fs->ssid, why, sizeof(why)))
			log_debug("cgroup levels of %s: %s: --cgroup paths are taken as seen from the host",
				  fs->hierarchy, why);
		else
			fs->level_offset = v.v1_cgroup_level_offset;
	} else if (hv) {
		fs->level_offset = hv->cgroup_level_offset;
	}
	if (fs->mount[0]) {
		/* not O_PATH: open_by_handle_at() refuses such a mount_fd (EBADF) */
		fs->mount_fd = open(fs->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fs->mount_fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot open the cgroup mount %s: %s", fs->mount,
				 strerror(errno));
			return ret;
		}
		fs->by_handle = handles_work(fs);
	}
	return 0;
}

void frecd_cgroupfs__close(struct frecd_cgroupfs *fs)
{
	if (fs->mount_fd >= 0)
		close(fs->mount_fd);
	fs->mount_fd = -1;
}

/* prefix + rest, normalised: "//" and "/./" and a trailing "/" go; ".." is
 * refused. */
static int join_norm(const char *prefix, const char *rest, char *out, size_t len)
{
	char tmp[2 * PATH_MAX + 2];
	const char *p, *e;
	size_t o = 0, n;

	if (snprintf(tmp, sizeof(tmp), "%s/%s", prefix, rest) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!len)
		return -ENAMETOOLONG;
	for (p = tmp; *p; p = e) {
		while (*p == '/')
			p++;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (!n || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (o + 1 + n + 1 > len)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
	}
	if (!o) {
		if (len < 2)
			return -ENAMETOOLONG;
		out[o++] = '/';
	}
	out[o] = '\0';
	return 0;
}

/* Whether path is dir or below it (component boundary); *rest is the rest. */
static bool under(const char *path, const char *dir, const char **rest)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/') {
		*rest = path;
		return true;
	}
	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return false;
	*rest = path + n;
	return true;
}

int frecd_cgroupfs__normalise(const struct frecd_cgroupfs *fs, const char *path, char *out,
			      size_t len)
{
	const char *rest;

	if (*path != '/')
		return -EINVAL;
	if (fs->mount[0] && strcmp(fs->mount, "/") && under(path, fs->mount, &rest))
		return join_norm(fs->root[0] ? fs->root : "/", rest, out, len);
	return join_norm("", path, out, len);
}

__u32 frecd_cgroupfs__depth(const char *norm)
{
	__u32 d = 0;

	for (; *norm; norm++)
		if (*norm == '/' && norm[1])
			d++;
	return d;
}

/* The directory of normal path norm under the mount, or -ENOENT. */
static int dir_of(const struct frecd_cgroupfs *fs, const char *norm, char *dir, size_t len)
{
	const char *rest;

	if (!under(norm, fs->root, &rest))
		return -ENOENT;
	if (snprintf(dir, len, "%s%s", fs->mount, rest) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int frecd_cgroupfs__lookup(const struct frecd_cgroupfs *fs, const char *path, __u64 *id,
			   __u32 *level, char *norm, size_t len, char *err, size_t errlen)
{
	struct {
		struct file_handle h;
		unsigned char id[8];
	} fh;
	char dir[PATH_MAX];
	struct stat st;
	__u64 hid;
	int ret, mount_id;
	__s64 lv;

	if (fs->mode == FREC_CGROUP_NONE) {
		snprintf(err, errlen,
			 "no cgroup hierarchy is recorded (%s): set --cgroup-hierarchy v2 or a v1 controller",
			 fs->why[0] ? fs->why : "none");
		return -EOPNOTSUPP;
	}
	ret = frecd_cgroupfs__normalise(fs, path, norm, len);
	if (ret) {
		snprintf(err, errlen,
			 "not a cgroup path: give the path /proc/PID/cgroup shows for a process in it, without ..");
		return ret;
	}
	if (!fs->mount[0]) {
		snprintf(err, errlen,
			 "no cgroup filesystem is in view to find it in: mount cgroup2 (mount -t cgroup2 none /sys/fs/cgroup)");
		return -ENOENT;
	}
	ret = dir_of(fs, norm, dir, sizeof(dir));
	if (ret == -ENOENT) {
		snprintf(err, errlen,
			 "cgroup %s is outside what %s shows (%s and below): give a path under it",
			 norm, fs->mount, fs->root);
		return ret;
	}
	if (ret || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
			 "no cgroup %s under %s: give the path /proc/PID/cgroup shows for a process in it",
			 norm, fs->mount);
		return -ENOENT;
	}
	*id = st.st_ino;
	/* The kernfs id is the inode number on 64-bit; the handle says so
	 * for sure where it can be had. */
	fh.h.handle_bytes = sizeof(fh.id);
	if (!name_to_handle_at(AT_FDCWD, dir, &fh.h, &mount_id, 0) &&
	    fh.h.handle_type == FILEID_KERNFS && fh.h.handle_bytes == sizeof(hid)) {
		memcpy(&hid, fh.id, sizeof(hid));
		*id = hid;
	}
	lv = (__s64)frecd_cgroupfs__depth(norm) + fs->level_offset;
	*level = lv < 0 ? 0 : (__u32)lv;
	return 0;
}

int frecd_cgroupfs__path(const struct frecd_cgroupfs *fs, __u64 id, char *buf, size_t len)
{
	struct {
		struct file_handle h;
		unsigned char id[8];
	} fh;
	char link[64], target[PATH_MAX];
	const char *rest;
	ssize_t n;
	int fd;

	if (fs->mount_fd < 0)
		return -EOPNOTSUPP;
	fh.h.handle_bytes = sizeof(fh.id);
	fh.h.handle_type = FILEID_KERNFS;
	memcpy(fh.id, &id, sizeof(id));
	fd = open_by_handle_at(fs->mount_fd, &fh.h, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ESTALE || errno == ENOENT)
			return -ESTALE;
		if (errno == EPERM)
			return -EPERM;
		return -EOPNOTSUPP;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	close(fd);
	if (n < 0)
		return -EOPNOTSUPP;
	target[n] = '\0';
	if (!under(target, fs->mount, &rest))
		return -ENOENT;
	return join_norm(fs->root, rest, buf, len);
}

/* nftw has no context argument: the walk's own, per thread. */
static __thread struct walk_ctx {
	const struct frecd_cgroupfs *fs;
	int (*fn)(void *ctx, __u64 id, const char *path);
	void *ctx;
} *walking;

static int walk_one(const char *fpath, const struct stat *st, int flag, struct FTW *ftw)
{
	const struct frecd_cgroupfs *fs = walking->fs;
	char norm[PATH_MAX];
	const char *rest;

	(void)ftw;
	if (flag != FTW_D)
		return 0;
	if (!under(fpath, fs->mount, &rest))
		return 0;
	if (join_norm(fs->root, rest, norm, sizeof(norm)))
		return 0;
	return walking->fn(walking->ctx, st->st_ino, norm);
}

int frecd_cgroupfs__walk(const struct frecd_cgroupfs *fs,
			 int (*fn)(void *ctx, __u64 id, const char *path), void *ctx)
{
	struct walk_ctx w = { fs, fn, ctx };
	int ret;

	if (!fs->mount[0])
		return -EOPNOTSUPP;
	walking = &w;
	ret = nftw(fs->mount, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	walking = NULL;
	return ret < 0 ? -errno : ret;
}

int frecd_cgroupfs__describe(const struct frecd_cgroupfs *fs, char *buf, size_t len)
{
	if (fs->mode == FREC_CGROUP_NONE)
		return snprintf(buf, len, "none: %s", fs->why[0] ? fs->why : "not recorded");
	if (!fs->mount[0])
		return snprintf(buf, len, "%s by id only (%s)",
				fs->mode == FREC_CGROUP_V2 ? "v2" : fs->hierarchy,
				fs->why[0] ? fs->why : "no cgroup mount in view");
	if (fs->mode == FREC_CGROUP_V1)
		return snprintf(buf, len, "v1 (%s) at %s", fs->hierarchy, fs->mount);
	return snprintf(buf, len, "v2 at %s", fs->mount);
}

int frecd_cgroupfs__resolve(const struct frecd_cgroupfs *fs, const char *what,
			    const char *const *paths, size_t n, struct frecd_cgroup_list *out,
			    char *err, size_t errlen)
{
	char norm[PATH_MAX], msg[PATH_MAX + 256];
	__u64 id;
	__u32 level;
	size_t i, j;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (out->n == FREC_MAX_CGROUP_FILTER) {
			snprintf(err, errlen, "%s %s: too many cgroups; at most %d", what, paths[i],
				 FREC_MAX_CGROUP_FILTER);
			return -E2BIG;
		}
		ret = frecd_cgroupfs__lookup(fs, paths[i], &id, &level, norm, sizeof(norm), msg,
					     sizeof(msg));
		if (!ret && strlen(norm) >= FRECD_CGROUP_PATH_MAX) {
			snprintf(msg, sizeof(msg), "a path of more than %d bytes: give a shorter one",
				 FRECD_CGROUP_PATH_MAX - 1);
			ret = -ENAMETOOLONG;
		}
		if (ret) {
			snprintf(err, errlen, "%s %s: %s", what, paths[i], msg);
			return ret;
		}
		for (j = 0; j < out->n && out->f[j].id != id; j++)
			;
		if (j < out->n)
			continue;
		out->f[out->n].id = id;
		out->f[out->n].level = level;
		memcpy(out->path[out->n], norm, strlen(norm) + 1);	/* checked above */
		out->n++;
	}
	return 0;
}

bool frecd_cgroup_list__same(const struct frecd_cgroup_list *a, const struct frecd_cgroup_list *b)
{
	size_t i, j;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		for (j = 0; j < b->n && b->f[j].id != a->f[i].id; j++)
			;
		if (j == b->n)
			return false;
	}
	return true;
}
