/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The PATH of a --probe spec to an absolute file name, resolved the way
 * bpftrace and libbpf do it, so that the probe table names the file that is
 * really probed:
 *   - with a '/': that file (relative to the working directory);
 *   - a library name ("libc", "libc.so.6", "libfoo"): LD_LIBRARY_PATH, then
 *     /etc/ld.so.cache, then the standard library directories; "libc" means
 *     the first libc.so.N (the runtime library, not the linker script);
 *   - any other bare name ("bash"): the executable found on PATH, then a
 *     library of that name.
 * The result is canonical (realpath): uprobes attach to the inode, and one
 * file then has one name in the probe table.
 *
 * Threads: whichever checks a probe (main's at start, the loop's on a
 * reload); nothing is kept.
 */
#ifndef FREC_PROBE_PATH_H
#define FREC_PROBE_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/* 0 and the path in out, or -ENOENT (or another -errno from realpath) when
 * nothing matched; -ENAMETOOLONG when out is too small. */
int probe_path__resolve(const char *name, char *out, size_t len);

/*
 * A probe's file, opened once: what is validated is what is attached
 * (through /proc/self/fd/N), whatever its name points to later.
 */
struct probe_file {
	int fd;			/* O_RDONLY|O_CLOEXEC; the caller closes it */
	dev_t dev;
	ino_t ino;
	__u32 pid;		/* /proc/PID/root/...: that process, else 0 */
	char path[PATH_MAX];	/* for the table: as given for /proc/PID/root/...,
				 * else the opened file's canonical name */
};

/*
 * Resolve name as probe_path__resolve() does and open it, into out:
 *   - a library name with pids (the -p tgids, as the host numbers them):
 *     the first executable mapping of such a library in pids[0], opened
 *     through /proc/PID/map_files (the mapped file, in any mount
 *     namespace) and shown as /proc/PID/root + its path (NAME.so,
 *     NAME.so.N, or glibc before 2.34's NAME-VERSION.so); -ENXIO when
 *     pids[0] maps no such library; a later pid that maps another file is
 *     warned about (it is not probed);
 *   - a host path: open, and fstat must show a regular file;
 *   - /proc/PID/root/REST: REST resolved inside that process's root
 *     (openat2 RESOLVE_IN_ROOT, Linux 5.6): its absolute links stay in
 *     it and ".." cannot leave it; the process's start time is read before
 *     and after, so that a reused pid fails (-ESRCH).
 * pids may be NULL (npids 0): library names are then the host's.
 * 0, or -errno: -ENOENT nothing there, -ENOSYS no openat2, -EISDIR (or
 * -EINVAL) not a regular file, -ESRCH no such process (or it was replaced).
 */
int probe_path__open(const char *name, const __u32 *pids, size_t npids, struct probe_file *out);

/* Whether a mapped file's basename is library name: NAME.so, NAME.so.N,
 * or glibc before 2.34's NAME-VERSION.so (libc-2.31.so for "libc"); a
 * name with ".so" in it only itself. */
bool probe_path__map_matches(const char *base, const char *name);

/* Whether name has the form /proc/PID/root/... (*pid set). */
bool probe_path__in_proc_root(const char *name, __u32 *pid);

/* openat2(rootfd, path, O_RDONLY|O_CLOEXEC, RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS):
 * an fd, or -errno (-ENOSYS before Linux 5.6). */
int probe_path__openat_in_root(int rootfd, const char *path);

/* 0 when this kernel resolves in a root (RESOLVE_IN_ROOT), else -errno. */
int probe_path__in_root_works(void);

/* Look a library name up in an ld.so.cache file only (cache may be NULL for
 * the system's). 0 and the path as the cache has it, or -ENOENT. */
int probe_path__ld_cache(const char *cache, const char *name, char *out, size_t len);

#endif /* FREC_PROBE_PATH_H */
