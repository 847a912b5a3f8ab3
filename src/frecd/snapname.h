/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The names of snapshot files, in one grammar:
 *
 *   "frec-" YYYYMMDD "T" HHMMSS "." mmm "Z" [ "_" NN ] ".frec"
 *
 * (UTC, NN from 01 to 99), and their temporary names while being written,
 * "." NAME ".tmp" (the core writes ".NAME.tmp" and renames it). The writer
 * makes the names (writer.c), retention counts and removes only files so
 * named (retention.c), and the start-up clean-up removes only temporary ones
 * (outdir.c). The names sort by time. Pure functions: any thread.
 */
#ifndef FRECD_SNAPNAME_H
#define FRECD_SNAPNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Room for any name made here (and its NUL). */
#define FRECD_SNAPSHOT_NAME_MAX	64

/*
 * "frec-YYYYMMDDTHHMMSS.mmmZ.frec" for attempt 0, then "..Z_01.frec" up to
 * "..Z_99.frec" when the name is taken: a later file never replaces an
 * earlier one. 0, -EEXIST once the attempts run out, or -ENAMETOOLONG.
 */
int frecd_snapname__make(char *buf, size_t len, __u64 realtime_ns, unsigned int attempt);

/* Is name one that frecd_snapname__make() makes? */
bool frecd_snapname__is_snapshot(const char *name);

/* Is name the temporary name of one: "." + such a name + ".tmp"? */
bool frecd_snapname__is_tmp(const char *name);

#endif /* FRECD_SNAPNAME_H */
