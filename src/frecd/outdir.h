/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The snapshot directory (-o): created 0700 when missing (its parent must
 * exist), checked for writing at start, and opened afresh for every snapshot
 * so that a directory removed and created again works at the next snapshot.
 */
#ifndef FRECD_OUTDIR_H
#define FRECD_OUTDIR_H

#include <stddef.h>

/* Create if missing and check that frecd can write there. 0, or -errno with
 * the cause and the fix in err (a usage error: exit 2). */
int frecd_outdir__prepare(const char *path, char *err, size_t errlen);

/* An O_DIRECTORY fd for the next snapshot, creating the directory again if
 * it was removed. fd or -errno. */
int frecd_outdir__open(const char *path);

#endif /* FRECD_OUTDIR_H */
