/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one way every frec command shows a stack frame (struct frec_frame).
 *
 * JSON: {"sym","sym_offset","module","file_offset","build_id"}, keys absent
 * when they do not apply: a kernel frame has module "[kernel]" and neither
 * file_offset nor build_id; "sym" and "sym_offset" only when named;
 * "build_id" only when the file has one. A user frame whose mapping was not
 * known has no module and its virtual address as "addr". A list of frames is
 * the key "stack", innermost first: the kernel frames, then the user ones.
 *
 * Text (labels): "sym+0xOFF" (or "sym" without offsets), else
 * "file+0xOFFSET" (the module's file name, its path being in the JSON) for
 * an unnamed user frame, "0xADDR" for one with no mapping, "[kernel]" for
 * an unnamed kernel frame: never a guessed name.
 *
 * Before showing, frec_frame__resolve() names user frames the snapshot did
 * not from --debug-dir (debugsym.h). Single-threaded.
 */
#ifndef FREC_TOOLS_FRAMES_H
#define FREC_TOOLS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <frec/snapshot.h>
#include "out.h"

struct frec_debugsym;

/* in as it should be shown: *out is in, with sym from ds (may be NULL)
 * for a user frame with a build-id and no sym. */
void frec_frame__resolve(const struct frec_frame *in, struct frec_debugsym *ds,
			 struct frec_frame *out);
static inline bool frec_frame__is_kernel(const struct frec_frame *f)
{
	return f->module && !strcmp(f->module, "[kernel]");
}
void frec_frame__json(struct frec_out *o, const struct frec_frame *f);
/* ,"stack":[...] of the kernel then the user stack (either may be NULL),
 * each frame resolved through ds. */
void frec_stack__json(struct frec_out *o, const struct frec_stack *k, const struct frec_stack *u,
		      struct frec_debugsym *ds);
/* The label of f (see above) in buf; with_offset adds "+0xOFF" to a named
 * frame. Returns buf. */
const char *frec_frame__label(const struct frec_frame *f, bool with_offset, char *buf,
			      size_t len);

#endif /* FREC_TOOLS_FRAMES_H */
