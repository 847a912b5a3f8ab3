/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The file a frec command writes (frec export -o OUT), such that a failure
 * never harms what OUT was before.
 *
 * A regular OUT, or a name that does not exist yet, is written to a new
 * temporary file in OUT's directory (".NAME.frec-tmp-PID-N", created with
 * O_CREAT|O_EXCL and mode 0666 less the umask; an existing OUT's permission
 * bits and owner are carried over). Only frec_outfile__commit() makes it OUT:
 * fsync, then rename over the name. frec_outfile__abort() removes it, and so
 * does SIGINT, SIGTERM or SIGHUP while it exists. A symbolic link to a
 * regular file is followed: its target is replaced, the link stays.
 *
 * Anything else (a device such as /dev/null, a FIFO, "-" or NULL for standard
 * output) is written directly: opened without O_CREAT or O_TRUNC, never
 * unlinked, and a failure leaves whatever was written so far.
 *
 * Every error is named on the err stream in one line with its fix. One
 * output file per process at a time (the signal handler knows one temporary
 * name); main thread only.
 */
#ifndef FREC_TOOLS_OUTFILE_H
#define FREC_TOOLS_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct frec_outfile;

/* Open OUT for writing; "-" or NULL is standard output. 0 or -errno. */
int frec_outfile__open(const char *path, FILE *err, struct frec_outfile **of);
/* The stream to write to; owned by of. */
FILE *frec_outfile__stream(const struct frec_outfile *of);
/* Is OUT written through a temporary file (a regular file)? */
bool frec_outfile__is_regular(const struct frec_outfile *of);
/* Finish: flush, and for a regular OUT fsync and rename into place. Frees
 * of. 0, or -errno named on err (the temporary file is removed then and OUT
 * is as it was). */
int frec_outfile__commit(struct frec_outfile *of, FILE *err);
/* Give up: close, remove the temporary file; OUT is as it was. Frees of;
 * NULL is a no-op. */
void frec_outfile__abort(struct frec_outfile *of);

/* Would writing OUT replace the file at in (same inode, e.g. the input)? */
bool frec_outfile__same_file(const char *out, const char *in);

#endif /* FREC_TOOLS_OUTFILE_H */
