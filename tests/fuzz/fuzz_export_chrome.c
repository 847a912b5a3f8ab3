// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: `frec export --format chrome` on one input (its CRCs
 * recomputed, see harness.h); with --gzip when the input's length is odd,
 * so that the seeds stay plain snapshot files. Checks, besides memory
 * safety: exit status 0, 1 or 3; the gzip stream inflates; the output is
 * one valid JSON document (valid UTF-8, every string escaped); the error
 * stream is clean text.
 */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frec_export_opts o = { .format = FREC_EXPORT_CHROME, .gzip = size & 1 };
	struct frec_export_stats stats = { 0 };
	const uint8_t *fixed;
	const char *json;
	size_t len;
	bool changed;
	int st;

	fixed = fuzz_input__fix_crcs(data, size, &changed);
	fuzz_input__set(fixed, size);
	fuzz_sink__reset(&out);
	fuzz_sink__reset(&err);
	st = frec_export_chrome__run(fuzz_input__path(), &o, out.f, err.f, &stats);
	fuzz_check__status("export chrome", st);
	fuzz_check__sink("export chrome stderr", &err, fuzz_check__text);
	fuzz_sink__flush(&out);
	if (st == 1 || out.overflow)
		return 0;
	json = out.buf;
	len = out.len;
	if (o.gzip && !(json = fuzz_check__gunzip("export chrome --gzip", out.buf, out.len, &len)))
		return 0;
	fuzz_check__json("export chrome", json, len);
	return 0;
}
