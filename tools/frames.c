// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Showing stack frames; see frames.h. */
#include <string.h>
#include "debugsym.h"
#include "frames.h"
#include "json.h"

#define MAX_NAME	4096

void frec_frame__resolve(const struct frec_frame *in, struct frec_debugsym *ds,
			 struct frec_frame *out)
{
	const char *sym;
	__u64 off;

	*out = *in;
	if (in->sym || !ds || frec_frame__is_kernel(in) || !in->module || !in->build_id ||
	    !in->build_id[0])
		return;
	if (!frec_debugsym__name(ds, in->module, in->build_id, in->file_offset, &sym, &off)) {
		out->sym = sym;
		out->sym_offset = off;
	}
}

void frec_frame__json(struct frec_out *o, const struct frec_frame *f)
{
	bool kernel = frec_frame__is_kernel(f);
	bool first = true;

	frec_out__char(o, '{');
	if (f->sym) {
		frec_json__key(o, "sym");
		frec_json__str(o, f->sym, MAX_NAME);
		frec_out__str(o, ",\"sym_offset\":");
		frec_out__u64(o, f->sym_offset);
		first = false;
	}
	if (f->module) {
		if (!first)
			frec_out__char(o, ',');
		frec_json__key(o, "module");
		frec_json__str(o, f->module, MAX_NAME);
		first = false;
	}
	if (!kernel) {
		if (!first)
			frec_out__char(o, ',');
		frec_out__str(o, f->module ? "\"file_offset\":" : "\"addr\":");
		frec_out__u64(o, f->file_offset);
		if (f->module && f->build_id && f->build_id[0]) {
			frec_out__str(o, ",\"build_id\":");
			frec_json__str(o, f->build_id, MAX_NAME);
		}
	}
	frec_out__char(o, '}');
}

static void stack_frames(struct frec_out *o, const struct frec_stack *s, struct frec_debugsym *ds,
			 bool *first)
{
	struct frec_frame f;

	if (!s)
		return;
	for (__u32 i = 0; i < s->nframes; i++) {
		if (!*first)
			frec_out__char(o, ',');
		*first = false;
		frec_frame__resolve(&s->frames[i], ds, &f);
		frec_frame__json(o, &f);
	}
}

void frec_stack__json(struct frec_out *o, const struct frec_stack *k, const struct frec_stack *u,
		      struct frec_debugsym *ds)
{
	bool first = true;

	frec_out__str(o, ",\"stack\":[");
	stack_frames(o, k, ds, &first);
	stack_frames(o, u, ds, &first);
	frec_out__char(o, ']');
}

const char *frec_frame__label(const struct frec_frame *f, bool with_offset, char *buf, size_t len)
{
	if (f->sym) {
		if (with_offset && f->sym_offset)
			snprintf(buf, len, "%s+0x%llx", f->sym, (unsigned long long)f->sym_offset);
		else
			snprintf(buf, len, "%s", f->sym);
	} else if (frec_frame__is_kernel(f)) {
		snprintf(buf, len, "[kernel]");
	} else if (f->module) {
		/* the file's name: its path is in the frame's module (JSON,
		 * pprof's mapping), and a folded line of full paths is unread */
		const char *base = strrchr(f->module, '/');

		snprintf(buf, len, "%s+0x%llx", base && base[1] ? base + 1 : f->module,
			 (unsigned long long)f->file_offset);
	} else {
		snprintf(buf, len, "0x%llx", (unsigned long long)f->file_offset);
	}
	return buf;
}
