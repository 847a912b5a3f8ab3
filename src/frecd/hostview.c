// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frecd seen from the host (hostview.h): the self-probe's run, and frecd's
 * namespaces compared with what it found.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "frecd/caps.h"
#include "frecd/hostview.h"
#include "frecd/log.h"
#include "self.skel.h"

/* CO-RE needs it; the --btf of the loader is not the self-probe's. */
#define KERNEL_BTF		"/sys/kernel/btf/vmlinux"

/* The inode of the initial cgroup namespace's nsfs file (PROC_CGROUP_INIT_INO). */
#define CGROUPNS_INIT_INO	0xEFFFFFFBul

struct self_result {
	__u64 pid_tgid;
	__u64 cgroup_id;
	__u32 cgroup_level;
	__u64 v1_cgroup_id;
	__u32 v1_cgroup_level;
};

/*
 * Load the self-probe with knob ssid and run it once on this thread. 0;
 * -EPERM when BPF cannot be loaded at all; another -errno when the object
 * did not load or the kernel refused the test run (*what says which).
 */
static int run_self(int ssid, struct self_result *r, const char **what)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct self_bpf *skel;
	int ret;

	*what = "open";
	skel = self_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->cgroup_v1_ssid = ssid;
	*what = "load";
	ret = self_bpf__load(skel);
	if (ret)
		goto out;
	*what = "run";
	ret = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.frec_self), &topts);
	if (ret) {
		ret = -errno;
		goto out;
	}
	if (!skel->bss->ran) {
		ret = -ENOEXEC;
		goto out;
	}
	r->pid_tgid = skel->bss->pid_tgid;
	r->cgroup_id = skel->bss->cgroup_id;
	r->cgroup_level = skel->bss->cgroup_level;
	r->v1_cgroup_id = skel->bss->v1_cgroup_id;
	r->v1_cgroup_level = skel->bss->v1_cgroup_level;
out:
	self_bpf__destroy(skel);
	return ret;
}

/* The depth of a cgroup path ("/" 0, "/a/b" 2). */
static int path_depth(const char *p)
{
	int depth = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			depth++;
	return depth;
}

/*
 * The path /proc/self/cgroup shows for hierarchy id 0 (v2, controller NULL),
 * or for the v1 hierarchy listing controller. Its depth, or -errno.
 */
static int self_cgroup_depth(const char *controller)
{
	char line[4096], *ctrls, *path, *c, *save;
	int depth = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	while (depth < 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ctrls = strchr(line, ':');
		if (!ctrls)
			continue;
		*ctrls++ = '\0';
		path = strchr(ctrls, ':');
		if (!path)
			continue;
		*path++ = '\0';
		if (!controller) {
			if (!strcmp(line, "0") && !ctrls[0])
				depth = path_depth(path);
			continue;
		}
		for (c = strtok_r(ctrls, ",", &save); c; c = strtok_r(NULL, ",", &save))
			if (!strcmp(c, controller))
				depth = path_depth(path);
	}
	fclose(f);
	return depth;
}

/* The name of controller ssid, from the kernel's enum cgroup_subsys_id
 * ("pids_cgrp_id" is pids): 0, or -ENOENT when BTF has no such entry. */
static int controller_name(int ssid, char *buf, size_t len)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	const char *name;
	struct btf *btf;
	int id, i, ret = -ENOENT;
	size_t n;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, "cgroup_subsys_id", BTF_KIND_ENUM);
	if (id < 0)
		goto out;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (e->val != ssid)
			continue;
		name = btf__name_by_offset(btf, e->name_off);
		n = name ? strlen(name) : 0;
		if (n <= strlen("_cgrp_id") || strcmp(name + n - strlen("_cgrp_id"), "_cgrp_id") ||
		    n - strlen("_cgrp_id") >= len)
			break;
		memcpy(buf, name, n - strlen("_cgrp_id"));
		buf[n - strlen("_cgrp_id")] = '\0';
		ret = 0;
		break;
	}
out:
	btf__free(btf);
	return ret;
}

/* Whether frecd's /proc shows host ids: /proc/self names the host tgid
 * (a /proc mounted for a pid namespace shows that namespace's ids). */
static bool proc_shows(__u32 tgid)
{
	char buf[32];
	ssize_t n;

	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strtoul(buf, NULL, 10) == tgid;
}

int frecd_hostview__probe(struct frecd_hostview *hv, char *err, size_t errlen)
{
	struct self_result r = {};
	const char *what;
	struct stat st;
	int ret, depth;

	memset(hv, 0, sizeof(*hv));
	hv->v1_ssid = -1;
	ret = run_self(-1, &r, &what);
	if (ret == -EPERM)
		return frecd_caps__error(err, errlen);
	if (ret) {
		/* Recording may still work (an old kernel without raw_tp test
		 * runs, or its BTF only in --btf, which the loader reports on
		 * when it is not given): guess as if on the host. */
		if (access(KERNEL_BTF, R_OK))
			log_debug("no self-probe without the kernel's BTF: taking getpid() as frecd's host pid");
		else
			log_warn("cannot %s frecd's self-probe (%s): taking getpid() as frecd's host pid; inside a pid namespace its own events are then recorded",
				 what, strerror(-ret));
		r.pid_tgid = (__u64)getpid() << 32 | (__u32)gettid();
	}
	hv->host_tgid = r.pid_tgid >> 32;
	hv->host_tid = (__u32)r.pid_tgid;
	hv->pidns_host = hv->host_tgid == (__u32)getpid();
	hv->proc_host = proc_shows(hv->host_tgid);
	hv->cgroupns_host = !stat("/proc/self/ns/cgroup", &st) && st.st_ino == CGROUPNS_INIT_INO;
	hv->cgroup_id = r.cgroup_id;
	hv->cgroup_level = r.cgroup_level;
	depth = self_cgroup_depth(NULL);
	hv->cgroup_level_offset = depth >= 0 && r.cgroup_id ? (int)r.cgroup_level - depth : 0;
	return 0;
}

int frecd_hostview__probe_v1(struct frecd_hostview *hv, int ssid, char *err, size_t errlen)
{
	struct self_result r = {};
	char name[64];
	const char *what;
	int ret, depth;

	ret = controller_name(ssid, name, sizeof(name));
	if (ret) {
		snprintf(err, errlen, "controller %d: not in the kernel's BTF (%s)", ssid,
			 strerror(-ret));
		return ret;
	}
	ret = run_self(ssid, &r, &what);
	if (ret == -EPERM)
		return frecd_caps__error(err, errlen);
	if (ret) {
		snprintf(err, errlen, "cannot %s frecd's self-probe for the %s hierarchy: %s", what,
			 name, strerror(-ret));
		return ret;
	}
	if (!r.v1_cgroup_id) {
		snprintf(err, errlen, "frecd is in no cgroup of the %s hierarchy: is it mounted as v1?",
			 name);
		return -ENOENT;
	}
	depth = self_cgroup_depth(name);
	if (depth < 0) {
		snprintf(err, errlen, "/proc/self/cgroup has no %s line: %s", name, strerror(-depth));
		return depth;
	}
	hv->v1_ssid = ssid;
	hv->v1_cgroup_id = r.v1_cgroup_id;
	hv->v1_cgroup_level = r.v1_cgroup_level;
	hv->v1_cgroup_level_offset = (int)r.v1_cgroup_level - depth;
	return 0;
}

int frecd_hostview__describe(const struct frecd_hostview *hv, char *buf, size_t len)
{
	int n;

	if (hv->pidns_host)
		n = snprintf(buf, len, "pid host, /proc %s, cgroup %s", hv->proc_host ? "host" : "own",
			     hv->cgroupns_host ? "host" : "own");
	else
		n = snprintf(buf, len, "pid own (host pid %u), /proc %s, cgroup %s", hv->host_tgid,
			     hv->proc_host ? "host" : "own", hv->cgroupns_host ? "host" : "own");
	return n < 0 ? -EINVAL : (size_t)n >= len ? -ENOSPC : 0;
}
