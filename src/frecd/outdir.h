/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The snapshot directory (-o). frecd runs as root and writes where it is told,
 * so the directory is resolved once, at start, to a file descriptor opened
 * with O_DIRECTORY | O_NOFOLLOW, and is accepted only when nobody but its
 * owner can change what is in it:
 *  - created 0700 when missing (its parent must exist);
 *  - not a symbolic link (the link could be changed under frecd);
 *  - owned by root (or by the user frecd runs as);
 *  - not writable by group or others (they could plant or swap files);
 *  - really writable (a file is created and removed);
 *  - used by no other frecd (an flock on the directory, held while frecd runs):
 *    frecd removes the temporary files a killed frecd left there, which would
 *    otherwise be another daemon's snapshot in progress.
 * Snapshots are then written relative to that descriptor (the core opens the
 * temporary file with O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600, and renames
 * it without replacing anything), so a symbolic link planted in the
 * directory cannot redirect a write.
 *
 * Before each snapshot the directory is checked again. While -o still names
 * the directory frecd holds, its owner and mode are checked (a change is
 * logged and the snapshot skipped). When -o was removed or replaced, it is
 * resolved again exactly as at start (a missing one is created again), and
 * what is there now is used only if it passes the same checks: a symbolic
 * link or a file put in its place is refused, the snapshot skipped.
 *
 * Threads: new and free on main's thread at start or the loop's (a reload
 * changes -o); frecd_outdir__dirfd() on the loop's thread, before each
 * snapshot and for retention.
 */
#ifndef FRECD_OUTDIR_H
#define FRECD_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

struct frecd_outdir;

/*
 * At start: create, open, check and lock the directory, and remove the
 * temporary files of an earlier frecd (frecd_snapname__is_tmp()). NULL
 * with errno set and one line in err naming the directory, the cause and the
 * fix (frecd prints it and exits 2).
 */
struct frecd_outdir *frecd_outdir__new(const char *path, char *err, size_t errlen);
void frecd_outdir__free(struct frecd_outdir *o);

/*
 * A new descriptor of the directory to write one snapshot in (the caller
 * closes it), after checking it again as described above. -errno with the
 * cause and the fix in err: skip this snapshot; the next one checks again.
 */
int frecd_outdir__dirfd(struct frecd_outdir *o, char *err, size_t errlen);

/* -o as given, without trailing slashes. */
const char *frecd_outdir__path(const struct frecd_outdir *o);

#endif /* FRECD_OUTDIR_H */
