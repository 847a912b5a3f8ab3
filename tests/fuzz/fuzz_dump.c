// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: `frec info` and `frec dump`, text and JSON, on one input (its
 * CRCs recomputed, see harness.h). Checks, besides memory safety:
 *  - each run exits 0, 1 or 3, and all four runs agree on it;
 *  - text output is valid UTF-8 without control characters, JSON output
 *    parses (info: one document; dump: one document per line), and the
 *    error stream is clean text too;
 *  - dump prints one line per event, as many as info counts, less the stack
 *    events, which it shows on the events they belong to.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "tools.h"

static struct fuzz_sink out, err;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_input__init();
	fuzz_sink__init(&out);
	fuzz_sink__init(&err);
	return 0;
}

static size_t count_lines(const struct fuzz_sink *s)
{
	size_t n = 0;

	for (const char *p = s->buf; (p = memchr(p, '\n', s->len - (size_t)(p - s->buf))); p++)
		n++;
	return n;
}

/* The top-level "events" count of info --json: the first such key, since
 * the ones before it (file, header, config) hold none, and a string value
 * cannot contain an unescaped quote. */
static long long info_events(const struct fuzz_sink *s)
{
	static const char key[] = "\"events\":";
	const char *p = memmem(s->buf, s->len, key, sizeof(key) - 1);

	if (!p)
		fuzz_fail("info --json: no \"events\" key");
	return strtoll(p + sizeof(key) - 1, NULL, 10);
}

/* The stack events among them: events_by_type's "stack". */
static long long info_stack_events(const struct fuzz_sink *s)
{
	static const char obj[] = "\"events_by_type\":{", key[] = "\"stack\":";
	const char *p = memmem(s->buf, s->len, obj, sizeof(obj) - 1), *end, *q;

	if (!p)
		fuzz_fail("info --json: no \"events_by_type\" key");
	end = memchr(p, '}', s->len - (size_t)(p - s->buf));
	q = end ? memmem(p, (size_t)(end - p), key, sizeof(key) - 1) : NULL;
	if (!q)
		fuzz_fail("info --json: no \"stack\" in events_by_type");
	return strtoll(q + sizeof(key) - 1, NULL, 10);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frec_info_opts io = { 0 };
	struct frec_dump_opts dopt = { 0 };
	const uint8_t *fixed;
	long long events = -1;
	size_t lines;
	bool changed;
	int st, st0;

	fixed = fuzz_input__fix_crcs(data, size, &changed);
	fuzz_input__set(fixed, size);

	fuzz_sink__reset(&out);
	fuzz_sink__reset(&err);
	st0 = frec_info__run(fuzz_input__path(), &io, out.f, err.f);
	fuzz_check__status("info", st0);
	if (st0 != 1)
		fuzz_check__sink("info", &out, fuzz_check__text);
	fuzz_check__sink("info stderr", &err, fuzz_check__text);

	io.json = true;
	fuzz_sink__reset(&out);
	fuzz_sink__reset(&err);
	st = frec_info__run(fuzz_input__path(), &io, out.f, err.f);
	if (st != st0)
		fuzz_fail("info --json exits %d, info %d", st, st0);
	if (st != 1) {
		fuzz_check__sink("info --json", &out, fuzz_check__json);
		if (!out.overflow)
			events = info_events(&out) - info_stack_events(&out);
	}
	fuzz_check__sink("info --json stderr", &err, fuzz_check__text);

	fuzz_sink__reset(&out);
	fuzz_sink__reset(&err);
	st = frec_dump__run(fuzz_input__path(), &dopt, out.f, err.f);
	if (st != st0)
		fuzz_fail("dump exits %d, info %d", st, st0);
	if (st != 1) {
		fuzz_check__sink("dump", &out, fuzz_check__text);
		lines = count_lines(&out);
		if (!out.overflow && events >= 0 && lines != (size_t)events)
			fuzz_fail("dump printed %zu lines, info counts %lld events", lines, events);
	}
	fuzz_check__sink("dump stderr", &err, fuzz_check__text);

	dopt.json = true;
	fuzz_sink__reset(&out);
	fuzz_sink__reset(&err);
	st = frec_dump__run(fuzz_input__path(), &dopt, out.f, err.f);
	if (st != st0)
		fuzz_fail("dump --json exits %d, info %d", st, st0);
	if (st != 1) {
		fuzz_check__sink("dump --json", &out, fuzz_check__json_lines);
		lines = count_lines(&out);
		if (!out.overflow && events >= 0 && lines != (size_t)events)
			fuzz_fail("dump --json printed %zu lines, info counts %lld events", lines,
				  events);
	}
	fuzz_check__sink("dump --json stderr", &err, fuzz_check__text);
	return 0;
}
