/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Containers, as their cgroup paths name them. Pure string functions: any
 * thread, no allocation. frecd names the cgroup table with them, the tools
 * group by them.
 */
#ifndef FREC_CGROUP_H
#define FREC_CGROUP_H

#include <stddef.h>

/* Length of a container id: 64 lower-case hex digits, and the NUL. */
#define FREC_CONTAINER_ID_LEN	65

/*
 * The container id a cgroup path names (lower-case hex, 64 digits), from the
 * leaf up, the first match winning: a docker-, cri-containerd-, crio- or
 * libpod-<64hex>.scope component (never a *-conmon-* one); a 64-hex
 * component under docker or under a kubepods pod<uid>; libpod-<64hex> under
 * libpod_parent. So ".../docker-<id>.scope/init.scope" names <id>.
 * 0 with out set, -ENOENT (none: out is ""), -ENOSPC (len too small).
 */
int frec_cgroup__container(const char *path, char *out, size_t len);

/* The runtime the matching component names: "docker", "containerd", "crio",
 * "podman", or NULL when path names no container (or not which runtime). */
const char *frec_cgroup__runtime(const char *path);

#endif /* FREC_CGROUP_H */
