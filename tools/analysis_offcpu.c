// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report --offcpu: off-CPU time by stack (offcpu.h counts it), the
 * rows with the largest totals first (--top), per thread; and --folded,
 * the same time as "comm;outer;...;inner total_us" lines, one per distinct
 * (name, stack), for flamegraph.pl and speedscope. Without --offcpu (or
 * --folded) it does nothing and prints nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "debugsym.h"
#include "frames.h"
#include "json.h"
#include "offcpu.h"
#include "table.h"
#include "walk.h"

#define LABEL_MAX	512

struct offcpu {
	struct frec_offcpu *oc;
	struct frec_debugsym *ds;
	bool on;
	bool ranged;
};

static void *offcpu_new(void)
{
	return calloc(1, sizeof(struct offcpu));
}

static void offcpu_free(void *p)
{
	struct offcpu *a = p;

	if (!a)
		return;
	frec_offcpu__free(a->oc);
	frec_debugsym__free(a->ds);
	free(a);
}

static int offcpu_gen(void *p, const struct frec_report_ctx *ctx)
{
	struct offcpu *a = p;
	const struct frec_report_opts *o = ctx->opts;

	if (!o->offcpu && !o->folded)
		return 0;
	if (!a->oc) {
		struct frec_offcpu_opts oo = {
			.has_tid = o->has_tid, .tid = o->tid,
			.has_pid = o->has_pid, .pid = o->pid,
		};

		a->ds = frec_debugsym__new(o->debug_dir);
		oo.ds = a->ds;
		a->oc = frec_offcpu__new(&oo);
		if (!a->ds || !a->oc)
			return -ENOMEM;
		a->on = true;
	}
	if (!a->ranged) {
		/* the report knows its range from the first generation on */
		frec_offcpu__set_range(a->oc, ctx->lo, ctx->hi);
		a->ranged = true;
	}
	frec_offcpu__gen(a->oc, ctx->damaged);
	return 0;
}

static int offcpu_feed(void *p, const struct frec_report_ctx *ctx, const struct frec_event *ev)
{
	struct offcpu *a = p;

	if (!a->on)
		return 0;
	return frec_offcpu__event(a->oc, ctx->walk, ev);
}

static int offcpu_finish(void *p, const struct frec_report_ctx *ctx)
{
	struct offcpu *a = p;

	(void)ctx;
	if (a->on)
		frec_offcpu__finish(a->oc);
	return 0;
}

static void offcpu_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct offcpu *a = p;
	struct frec_offcpu_totals t;
	char label[LABEL_MAX];
	size_t i, n, rows;

	if (!a->on)
		return;
	n = frec_offcpu__nrows(a->oc);
	rows = frec_report__rows(ctx, n);
	frec_out__printf(o, "\nOff-CPU time by stack (blocking switch-out until the next switch-in): "
			 "%zu of %zu\n", rows, n);
	if (!n && !(frec_walk__header(ctx->walk)->config.flags & FREC_CFG_STACKS_OFFCPU))
		frec_out__str(o, "  none: this snapshot was taken without off-CPU stacks "
				 "(frecd --stacks offcpu captures them)\n");
	frec_offcpu__totals(a->oc, &t);
	if (t.blocks) {
		frec_out__printf(o, "  %llu blocks, %llu with a stack: ",
				 (unsigned long long)t.blocks, (unsigned long long)t.blocks_with_stack);
		frec_out__usecs(o, t.with_stack_ns);
		frec_out__str(o, " of ");
		frec_out__usecs(o, t.total_ns);
		frec_out__str(o, " us off-CPU\n");
	}
	for (i = 0; i < rows; i++) {
		const struct frec_offcpu_row *r = frec_offcpu__row(a->oc, i);
		const struct frec_offcpu_stack *s = frec_offcpu__stack(a->oc, r->stack);

		frec_out__printf(o, "  tid %u pid %u ", r->tid, r->pid);
		frec_table__comm(o, r->comm, 0);
		frec_out__printf(o, "  %llu blocks, total ", (unsigned long long)r->count);
		frec_out__usecs(o, r->total_ns);
		frec_out__str(o, " us, max ");
		frec_out__usecs(o, r->max_ns);
		frec_out__str(o, " us\n");
		for (__u32 j = 0; s && j < s->nframes; j++) {
			const struct frec_frame *f = &s->frames[j];

			frec_out__str(o, "      ");
			frec_text__str(o, frec_frame__label(f, true, label, sizeof(label)), LABEL_MAX);
			if (!frec_frame__is_kernel(f) && f->module) {
				frec_out__str(o, "  ");
				frec_text__str(o, f->module, 4096);
			}
			if (!frec_frame__is_kernel(f) && f->module && !f->sym && f->build_id &&
			    f->build_id[0]) {
				frec_out__str(o, "  build-id ");
				frec_text__str(o, f->build_id, 256);
			}
			frec_out__char(o, '\n');
		}
	}
}

static void offcpu_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct offcpu *a = p;
	struct frec_offcpu_totals t;
	size_t i, rows;

	if (!a->on)
		return;
	rows = frec_report__rows(ctx, frec_offcpu__nrows(a->oc));
	frec_offcpu__totals(a->oc, &t);
	/* how much of the off-CPU time the stacks below explain */
	frec_out__printf(o, ",\"offcpu_blocks\":%llu,\"offcpu_blocks_with_stack\":%llu,"
			 "\"offcpu_total_ns\":%llu,\"offcpu_with_stack_ns\":%llu",
			 (unsigned long long)t.blocks, (unsigned long long)t.blocks_with_stack,
			 (unsigned long long)t.total_ns, (unsigned long long)t.with_stack_ns);
	frec_out__str(o, ",\"offcpu\":[");
	for (i = 0; i < rows; i++) {
		const struct frec_offcpu_row *r = frec_offcpu__row(a->oc, i);
		const struct frec_offcpu_stack *s = frec_offcpu__stack(a->oc, r->stack);

		frec_out__printf(o, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", r->tid, r->pid);
		frec_json__str(o, r->comm, FREC_COMM_LEN);
		frec_out__printf(o, ",\"count\":%llu,\"total_ns\":%llu,\"max_ns\":%llu,\"stack\":[",
				 (unsigned long long)r->count, (unsigned long long)r->total_ns,
				 (unsigned long long)r->max_ns);
		for (__u32 j = 0; s && j < s->nframes; j++) {
			if (j)
				frec_out__char(o, ',');
			frec_frame__json(o, &s->frames[j]);
		}
		frec_out__str(o, "]}");
	}
	frec_out__char(o, ']');
}

struct folded_line {
	char *s;
	__u64 ns;
};

static int line_cmp(const void *x, const void *y)
{
	return strcmp(((const struct folded_line *)x)->s, ((const struct folded_line *)y)->s);
}

/* Append s to the line, with ';' (the separator), control bytes and bytes
 * that are not UTF-8 as '_': the line stays one valid text line. */
static void put_name(char **buf, size_t *len, size_t *cap, const char *s, bool sep)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	if (*len + n + 2 >= *cap) {
		size_t ncap = (*cap + n + 2) * 2;
		char *b = realloc(*buf, ncap);

		if (!b)
			return;
		*buf = b;
		*cap = ncap;
	}
	if (sep)
		(*buf)[(*len)++] = ';';
	while (i < n) {
		size_t k = p[i] < 0x80 ? 1 : frec_utf8__seq_len(p + i, n - i);

		if (k <= 1) {
			(*buf)[(*len)++] = p[i] == ';' || p[i] < 0x20 || p[i] >= 0x7f ? '_' : (char)p[i];
			i++;
		} else {
			memcpy(*buf + *len, p + i, k);
			*len += k;
			i += k;
		}
	}
	(*buf)[*len] = '\0';
}

int frec_analysis_offcpu__folded(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct offcpu *a = p;
	struct folded_line *lines;
	char label[LABEL_MAX];
	size_t i, n, k = 0;

	(void)ctx;
	if (!a->on)
		return 0;
	n = frec_offcpu__nrows(a->oc);
	lines = calloc(n ? n : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct frec_offcpu_row *r = frec_offcpu__row(a->oc, i);
		const struct frec_offcpu_stack *s = frec_offcpu__stack(a->oc, r->stack);
		size_t len = 0, cap = 0;
		char *buf = NULL;

		put_name(&buf, &len, &cap, r->comm[0] ? r->comm : "<...>", false);
		/* outermost first: the user frames, then the kernel's */
		for (__u32 j = s->nframes; j-- > 0;)
			put_name(&buf, &len, &cap,
				 frec_frame__label(&s->frames[j], false, label, sizeof(label)), true);
		if (!buf) {
			while (k--)
				free(lines[k].s);
			free(lines);
			return -ENOMEM;
		}
		lines[k].s = buf;
		lines[k++].ns = r->total_ns;
	}
	qsort(lines, k, sizeof(*lines), line_cmp);
	for (i = 0; i < k; i++) {
		__u64 ns = lines[i].ns;

		/* threads of one name on one stack are one line */
		while (i + 1 < k && !strcmp(lines[i].s, lines[i + 1].s)) {
			free(lines[i].s);
			ns += lines[++i].ns;
		}
		frec_out__str(o, lines[i].s);
		frec_out__printf(o, " %llu\n", (unsigned long long)(ns / 1000));
		free(lines[i].s);
	}
	free(lines);
	return 0;
}

const struct frec_analysis_ops frec_analysis_offcpu = {
	.name = "offcpu",
	.new = offcpu_new,
	.gen = offcpu_gen,
	.feed = offcpu_feed,
	.finish = offcpu_finish,
	.text = offcpu_text,
	.json = offcpu_json,
	.free = offcpu_free,
};
