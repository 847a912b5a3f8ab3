// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format pprof: off-CPU time by stack (offcpu.h) as pprof's
 * profile.proto (github.com/google/pprof, proto/profile.proto; the subset
 * used is tests/proto/frec_pprof.proto), gzipped as pprof wants it on disk.
 *
 * Sample types: "blocks"/"count" (index 0, as the format's convention has
 * the count), then "offcpu"/"nanoseconds", the default. One sample per
 * (thread, stack), leaf first (the innermost kernel frame), with labels tid,
 * pid and comm. A location per distinct frame, each with one line of one
 * function; a mapping per file (filename, build_id; "[kernel]" for the
 * kernel's frames). Every location is named here, has_functions is set, so
 * pprof does not symbolize addresses again: a frame the snapshot and
 * --debug-dir could not name is the function "module+0xOFFSET" of its
 * mapping (with its build-id), never a guess. A user location's address is
 * its file offset (mappings start at 0 with file_offset 0).
 *
 * The whole profile is built in memory at the end of the walk (it is the
 * size of the distinct stacks, not of the events). One thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "export_walk.h"
#include "walk.h"
#include "debugsym.h"
#include "frames.h"
#include "intern.h"
#include "offcpu.h"
#include "out.h"
#include "pb.h"
#include "tools.h"
#include "walk.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

struct pprof {
	struct frec_intern strings;		/* string_table; "" is 0 */
	struct frec_intern mappings;		/* "path\nbuild_id" -> id - 1 */
	struct frec_intern functions;	/* "name\npath" -> id - 1 */
	struct frec_intern locations;	/* the frame's content -> id - 1 */
	struct frec_pb body;		/* samples, locations, functions */
	int err;
};

static __u64 str_id(struct pprof *p, const char *s)
{
	bool added;
	long i = frec_intern__get(&p->strings, s ? s : "", &added);

	if (i < 0) {
		p->err = -ENOMEM;
		return 0;
	}
	return (__u64)i;
}

static __u64 mapping_id(struct pprof *p, const struct frec_frame *f)
{
	char key[8192];
	bool added;
	long i;

	snprintf(key, sizeof(key), "%s\n%s", f->module ? f->module : "[unknown]",
		 f->build_id ? f->build_id : "");
	i = frec_intern__get(&p->mappings, key, &added);
	if (i < 0) {
		p->err = -ENOMEM;
		return 0;
	}
	if (!frec_frame__is_kernel(f) && f->file_offset >= p->mappings.aux[i])
		p->mappings.aux[i] = f->file_offset + 1;
	return (__u64)i + 1;
}

static __u64 function_id(struct pprof *p, const struct frec_frame *f)
{
	char name[512], key[8192];
	bool added;
	long i;

	frec_frame__label(f, false, name, sizeof(name));
	snprintf(key, sizeof(key), "%s\n%s", name, f->module ? f->module : "");
	i = frec_intern__get(&p->functions, key, &added);
	if (i < 0) {
		p->err = -ENOMEM;
		return 0;
	}
	if (added) {
		__u64 ns = str_id(p, name);

		frec_pb__begin(&p->body, PROFILE_FUNCTION);
		frec_pb__uint(&p->body, FUNCTION_ID, (__u64)i + 1);
		frec_pb__int(&p->body, FUNCTION_NAME, (int64_t)ns);
		frec_pb__int(&p->body, FUNCTION_SYSTEM_NAME, (int64_t)ns);
		if (f->module)
			frec_pb__int(&p->body, FUNCTION_FILENAME, (int64_t)str_id(p, f->module));
		frec_pb__end(&p->body);
	}
	return (__u64)i + 1;
}

static __u64 location_id(struct pprof *p, const struct frec_frame *f)
{
	char key[8192];
	bool added;
	long i;

	snprintf(key, sizeof(key), "%s\n%llx\n%s\n%s\n%llx", f->sym ? f->sym : "",
		 (unsigned long long)f->sym_offset, f->module ? f->module : "",
		 f->build_id ? f->build_id : "", (unsigned long long)f->file_offset);
	i = frec_intern__get(&p->locations, key, &added);
	if (i < 0) {
		p->err = -ENOMEM;
		return 0;
	}
	if (added) {
		__u64 fn = function_id(p, f), m = mapping_id(p, f);

		frec_pb__begin(&p->body, PROFILE_LOCATION);
		frec_pb__uint(&p->body, LOCATION_ID, (__u64)i + 1);
		frec_pb__uint(&p->body, LOCATION_MAPPING_ID, m);
		if (!frec_frame__is_kernel(f))
			frec_pb__uint(&p->body, LOCATION_ADDRESS, f->file_offset);
		frec_pb__begin(&p->body, LOCATION_LINE);
		frec_pb__uint(&p->body, LINE_FUNCTION_ID, fn);
		frec_pb__end(&p->body);
		frec_pb__end(&p->body);
	}
	return (__u64)i + 1;
}

static void value_type(struct pprof *p, struct frec_pb *pb, __u32 field, const char *type,
		       const char *unit)
{
	__u64 t = str_id(p, type), u = str_id(p, unit);

	frec_pb__begin(pb, field);
	frec_pb__int(pb, VALUETYPE_TYPE, (int64_t)t);
	frec_pb__int(pb, VALUETYPE_UNIT, (int64_t)u);
	frec_pb__end(pb);
}

static void label(struct pprof *p, const char *key, const char *str, __u64 num)
{
	__u64 k = str_id(p, key), s = str ? str_id(p, str) : 0;

	frec_pb__begin(&p->body, SAMPLE_LABEL);
	frec_pb__int(&p->body, LABEL_KEY, (int64_t)k);
	if (str)
		frec_pb__int(&p->body, LABEL_STR, (int64_t)s);
	else
		frec_pb__int(&p->body, LABEL_NUM, (int64_t)num);
	frec_pb__end(&p->body);
}

static void sample(struct pprof *p, const struct frec_offcpu_row *r,
		   const struct frec_offcpu_stack *s)
{
	__u64 ids[2 * FREC_MAX_STACK_DEPTH];
	__u32 i;

	/* locations first: they write their own messages into body */
	for (i = 0; i < s->nframes && i < 2 * FREC_MAX_STACK_DEPTH; i++)
		ids[i] = location_id(p, &s->frames[i]);
	str_id(p, "tid");
	str_id(p, "pid");
	str_id(p, "comm");
	str_id(p, r->comm);
	frec_pb__begin(&p->body, PROFILE_SAMPLE);
	frec_pb__begin(&p->body, SAMPLE_LOCATION_ID);
	for (__u32 j = 0; j < i; j++)
		frec_pb__varint(&p->body, ids[j]);
	frec_pb__end(&p->body);
	frec_pb__begin(&p->body, SAMPLE_VALUE);
	frec_pb__varint(&p->body, r->count);
	frec_pb__varint(&p->body, r->total_ns);
	frec_pb__end(&p->body);
	label(p, "tid", NULL, r->tid);
	label(p, "pid", NULL, r->pid);
	label(p, "comm", r->comm, 0);
	frec_pb__end(&p->body);
}

/* The profile into o: header fields, the body, the mappings, the strings. */
static int write_profile(struct pprof *p, struct frec_offcpu *oc, const struct frec_header *h,
			 __u64 first_ts, __u64 last_ts, struct frec_out *o)
{
	struct frec_pb head, tail;
	__s64 wall;
	size_t i;
	int rc;

	frec_pb__init(&head);
	frec_pb__init(&tail);
	str_id(p, "");
	value_type(p, &head, PROFILE_SAMPLE_TYPE, "blocks", "count");
	value_type(p, &head, PROFILE_SAMPLE_TYPE, "offcpu", "nanoseconds");
	value_type(p, &head, PROFILE_PERIOD_TYPE, "offcpu", "nanoseconds");
	frec_pb__int(&head, PROFILE_PERIOD, 1);
	frec_pb__int(&head, PROFILE_DEFAULT_SAMPLE_TYPE, (int64_t)str_id(p, "offcpu"));
	frec_pb__int(&head, PROFILE_COMMENT,
		     (int64_t)str_id(p, "frec: off-CPU time by stack, blocking switch-out to "
					"next switch-in"));
	if (h && last_ts >= first_ts && first_ts && frec_walk__wall_ns(h, first_ts, &wall) &&
	    wall > 0)
		frec_pb__int(&head, PROFILE_TIME_NANOS, wall);
	if (last_ts >= first_ts)
		frec_pb__int(&head, PROFILE_DURATION_NANOS, (int64_t)(last_ts - first_ts));
	for (i = 0; i < frec_offcpu__nrows(oc); i++) {
		const struct frec_offcpu_row *r = frec_offcpu__row(oc, i);

		sample(p, r, frec_offcpu__stack(oc, r->stack));
	}
	/* pprof takes the first mapping listed for the main binary: the
	 * files first, the kernel last */
	for (int pass = 0; pass < 2; pass++) {
		for (i = 0; i < p->mappings.n; i++) {
			const char *key = p->mappings.keys[i], *nl = strchr(key, '\n');
			char path[4096];
			/* a path too long for the key lost its build-id */
			const char *bid = nl ? nl + 1 : "";
			size_t plen = nl ? (size_t)(nl - key) : strlen(key);

			snprintf(path, sizeof(path), "%.*s", (int)plen, key);
			if ((pass == 0) == !strcmp(path, "[kernel]"))
				continue;
			frec_pb__begin(&tail, PROFILE_MAPPING);
			frec_pb__uint(&tail, MAPPING_ID, i + 1);
			frec_pb__uint(&tail, MAPPING_MEMORY_START, 0);
			frec_pb__uint(&tail, MAPPING_MEMORY_LIMIT, p->mappings.aux[i]);
			frec_pb__uint(&tail, MAPPING_FILE_OFFSET, 0);
			frec_pb__int(&tail, MAPPING_FILENAME, (int64_t)str_id(p, path));
			if (bid[0])
				frec_pb__int(&tail, MAPPING_BUILD_ID, (int64_t)str_id(p, bid));
			frec_pb__uint(&tail, MAPPING_HAS_FUNCTIONS, 1);
			frec_pb__end(&tail);
		}
	}
	for (i = 0; i < p->strings.n; i++)
		frec_pb__string(&tail, PROFILE_STRING_TABLE, p->strings.keys[i]);
	rc = p->err ? p->err : head.err ? head.err : p->body.err ? p->body.err : tail.err;
	if (!rc) {
		frec_out__write(o, head.buf, head.len);
		frec_out__write(o, p->body.buf, p->body.len);
		frec_out__write(o, tail.buf, tail.len);
		rc = frec_out__error(o);
	}
	frec_pb__fini(&head);
	frec_pb__fini(&tail);
	return rc;
}

int frec_export_pprof__run(const char *path, const struct frec_export_opts *opts, FILE *out,
			   FILE *err, struct frec_export_stats *st)
{
	struct frec_export_opts zo = { .format = FREC_EXPORT_PPROF, .gzip = true };
	struct frec_offcpu_opts oo = { 0 };
	struct frec_export_walk ew;
	struct frec_debugsym *ds = NULL;
	struct frec_offcpu *oc = NULL;
	const struct frec_event *ev;
	enum frec_chain_verdict v;
	struct frec_chain_run run;
	struct pprof p;
	__u64 first_ts = 0, damaged = 0;
	bool have_first = false;
	int rc;

	memset(&p, 0, sizeof(p));
	frec_pb__init(&p.body);
	rc = frec_export_walk__open(&ew, path, &zo, out, err);
	if (rc > 0)
		goto out_status;
	if (!rc) {
		ds = frec_debugsym__new(opts ? opts->debug_dir : NULL);
		oo.ds = ds;
		oc = frec_offcpu__new(&oo);
		if (!ds || !oc)
			rc = -ENOMEM;
	}
	while (!rc && frec_export_walk__next_gen(&ew) > 0) {
		const struct frec_gen_info *gi = frec_walk__gen_info(ew.w);

		if ((rc = frec_export_walk__gen(&ew)))
			break;
		if (!have_first) {
			first_ts = gi->start_ts;
			have_first = true;
		}
		/* a damaged generation skipped before this one ends every block */
		frec_offcpu__gen(oc, frec_walk__damaged(ew.w) != damaged);
		damaged = frec_walk__damaged(ew.w);
		while (!rc && (ev = frec_export_walk__next(&ew, &v, &run)))
			rc = frec_offcpu__event(oc, ew.w, ev);
		if (gi->end_ts > ew.last_ts)
			ew.last_ts = gi->end_ts;
	}
	if (!rc) {
		frec_offcpu__finish(oc);
		rc = write_profile(&p, oc, frec_walk__header(ew.w), first_ts, ew.last_ts, ew.o);
	}
	rc = frec_export_walk__close(&ew, rc, path, err, st);
out_status:
	frec_offcpu__free(oc);
	frec_debugsym__free(ds);
	frec_intern__free(&p.strings);
	frec_intern__free(&p.mappings);
	frec_intern__free(&p.functions);
	frec_intern__free(&p.locations);
	frec_pb__fini(&p.body);
	return rc;
}
