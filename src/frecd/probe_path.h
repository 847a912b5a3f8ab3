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

#include <stddef.h>

/* 0 and the path in out, or -ENOENT (or another -errno from realpath) when
 * nothing matched; -ENAMETOOLONG when out is too small. */
int probe_path__resolve(const char *name, char *out, size_t len);

/* Look a library name up in an ld.so.cache file only (cache may be NULL for
 * the system's). 0 and the path as the cache has it, or -ENOENT. */
int probe_path__ld_cache(const char *cache, const char *name, char *out, size_t len);

#endif /* FREC_PROBE_PATH_H */
