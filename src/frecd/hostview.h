/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What frecd is, seen from the host. frecd may run in a container: its BPF
 * programs see every task of the machine by host ids, while getpid() and
 * /proc are its own namespaces'. So frecd asks the kernel through a tiny
 * program of its own (bpf/self.bpf.c, run once with BPF_PROG_TEST_RUN on
 * the calling thread) for its host tgid and its cgroups, and compares that
 * with its namespaces.
 *
 * Threads: probe() on main's thread at start, before the programs load
 * (also by frecd --check); the struct is read-only afterwards: any thread.
 */
#ifndef FRECD_HOSTVIEW_H
#define FRECD_HOSTVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frecd_hostview {
	__u32 host_tgid;	/* frecd's tgid in the init pid namespace */
	__u32 host_tid;		/* the probing thread's host tid */
	bool pidns_host;	/* host_tgid == getpid() */
	bool proc_host;		/* /proc/self names host_tgid: /proc shows host ids */
	bool cgroupns_host;	/* frecd is in the init cgroup namespace */
	/* v2: frecd's cgroup id and level (the root is 0) as the kernel has
	 * them, and its level less the depth of the path /proc/self/cgroup
	 * shows: add it to a path's depth to get the kernel's level */
	__u64 cgroup_id;
	__u32 cgroup_level;
	__s32 cgroup_level_offset;
	/* the same for the v1 hierarchy of controller v1_ssid, once
	 * probe_v1() has run (v1_ssid -1 before) */
	__s32 v1_ssid;
	__u64 v1_cgroup_id;
	__u32 v1_cgroup_level;
	__s32 v1_cgroup_level_offset;
};

/*
 * Run the self-probe and fill hv. 0, or -errno with the cause and the fix in
 * err (frecd cannot load BPF at all: the same causes as the loader's). Where
 * only the test run is refused, hv falls back to getpid() and the host
 * guesses, and a warning goes to the log.
 */
int frecd_hostview__probe(struct frecd_hostview *hv, char *err, size_t errlen);

/* The v1 fields for the hierarchy of controller ssid (cgroupfs.h picks it). 0 or -errno. */
int frecd_hostview__probe_v1(struct frecd_hostview *hv, int ssid, char *err, size_t errlen);

/* One line for --check and the log: "pid host|own (host pid M), /proc host|own, cgroup host|own". */
int frecd_hostview__describe(const struct frecd_hostview *hv, char *buf, size_t len);

#endif /* FRECD_HOSTVIEW_H */
