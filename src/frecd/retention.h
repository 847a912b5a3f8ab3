/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Retention of the snapshot directory (--keep N, --keep-size SIZE), so that
 * snapshots taken for months never fill the disk: after each snapshot, the
 * oldest ones are removed until at most N files of at most SIZE bytes
 * together remain. The snapshot just written is never removed, even when it
 * alone is larger than SIZE. Only regular files whose names are exactly what
 * frecd gives its snapshots (frec-YYYYMMDDTHHMMSS.mmmZ.frec, with an
 * optional _NN before .frec: snapname.h) are counted or removed: a file an operator put
 * there, a renamed or copied snapshot, a symlink or a directory stays.
 * Those names sort by time, so "oldest" is "first by name", which no touch
 * or copy can change.
 *
 * Threads: the loop's thread (snapshots.c, after each snapshot).
 */
#ifndef FRECD_RETENTION_H
#define FRECD_RETENTION_H

#include <stdbool.h>
#include <linux/types.h>

struct frecd_retention_stats {
	unsigned int kept;		/* snapshots left */
	__u64 kept_bytes;
	unsigned int removed;		/* snapshots removed now */
	__u64 removed_bytes;
};

/*
 * Apply the limits to the directory dirfd: keep at most keep snapshots (0:
 * no limit on their number) of at most keep_bytes bytes (0: no limit on
 * size), removing the oldest first; never remove protect (a name in dirfd,
 * or NULL). 0, or -errno of the first removal or listing that failed (the
 * removals before it stand; st counts them).
 */
int frecd_retention__apply(int dirfd, __u32 keep, __u64 keep_bytes, const char *protect,
			   struct frecd_retention_stats *st);

#endif /* FRECD_RETENTION_H */
