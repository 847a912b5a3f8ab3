/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for user frames the snapshot could not name (frec --debug-dir): a
 * frame with a build-id but no symbol is looked up in the separate debug
 * file DIR/.build-id/xx/yyyy.debug (xx: the build-id's first byte in hex,
 * yyyy the rest), the layout Debian's -dbgsym packages install under
 * /usr/lib/debug.
 *
 * A frame holds a file offset; symbols hold addresses. The offset becomes an
 * address through the PT_LOAD program headers of a file with that build-id
 * that still has its content: the frame's own module when it is on disk and
 * its build-id matches (a debug file made by objcopy --only-keep-debug
 * keeps the headers' addresses but not their file offsets), else the debug
 * file itself where its segments hold bytes. Anything that cannot be
 * converted or has no function symbol there stays unnamed: a frame is never
 * given a name it might not have.
 *
 * Files are read once per build-id and kept (symbols sorted) until free;
 * names returned live as long as the symbolizer. One thread.
 */
#ifndef FREC_TOOLS_DEBUGSYM_H
#define FREC_TOOLS_DEBUGSYM_H

#include <frec/snapshot.h>

#define FREC_DEBUG_DIR_DEFAULT	"/usr/lib/debug"

struct frec_debugsym;

/* NULL on ENOMEM. dir NULL: FREC_DEBUG_DIR_DEFAULT. No file is opened yet. */
struct frec_debugsym *frec_debugsym__new(const char *dir);
void frec_debugsym__free(struct frec_debugsym *ds);

/* Name file_offset of the file module (may be NULL) with build_id (hex): 0
 * with *sym and *sym_offset set, or -ENOENT. */
int frec_debugsym__name(struct frec_debugsym *ds, const char *module, const char *build_id,
			__u64 file_offset, const char **sym, __u64 *sym_offset);

#endif /* FREC_TOOLS_DEBUGSYM_H */
