/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * /proc/PID/maps, for the user frames of --stacks: each line parsed into
 * a struct frecd_map, and the executable file-backed mappings of a process
 * read one by one. The file may change while it is read (a process maps
 * and unmaps as it likes): what is read is what the kernel showed, line by
 * line.
 *
 * Threads: no state; any thread (the symbolizer's helper reads, the tests
 * parse).
 */
#ifndef FRECD_PROC_MAPS_H
#define FRECD_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frecd_map {
	__u64 start, end;	/* [start, end) */
	__u64 pgoff;		/* the file offset start maps */
	__u32 dev_major, dev_minor;
	__u64 inode;		/* 0: anonymous */
	bool exec;		/* x in the permissions */
	bool deleted;		/* the path ended in " (deleted)", removed from path */
	const char *path;	/* "" for anonymous, "[vdso]", "/usr/lib/..." */
	size_t path_len;
};

/*
 * One line (len bytes, without its newline): 0 with *m filled (m->path
 * points into line), or -EINVAL for a line that is not a mapping.
 */
int frecd_maps__parse_line(const char *line, size_t len, struct frecd_map *m);

/* Called for every executable mapping of a file (path starting with '/');
 * non-zero stops the walk and is returned. */
typedef int (*frecd_map_fn)(const struct frecd_map *m, void *ctx);

/* Walk /proc/PID/maps. 0, the callback's value, or -errno (ENOENT: the
 * process is gone; EACCES: not ours to read). */
int frecd_maps__read(__u32 pid, frecd_map_fn fn, void *ctx);

#endif /* FRECD_PROC_MAPS_H */
