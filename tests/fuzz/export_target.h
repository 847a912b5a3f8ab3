/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the export targets share: one `frec export` run on the input
 * (its CRCs recomputed, see harness.h), with --gzip when the input's length
 * is odd, so that the seeds stay plain snapshot files. The exit status must
 * be 0, 1 or 3 and the error stream clean text; the output, inflated when
 * gzipped, goes to the target's own check.
 *
 * Header-only, so that it is built like the rest of each target, with
 * coverage and sanitizers (harness.c is built without either).
 */
#ifndef FREC_FUZZ_EXPORT_TARGET_H
#define FREC_FUZZ_EXPORT_TARGET_H

#include "harness.h"
#include "tools.h"

static struct fuzz_sink export_out, export_err;

static inline void export_target__init(void)
{
	fuzz_input__init();
	fuzz_sink__init(&export_out);
	fuzz_sink__init(&export_err);
}

/* name: "export chrome", as the failed checks say it. */
static inline void export_target__run(const uint8_t *data, size_t size,
				      enum frec_export_format format, const char *name,
				      void (*check)(const char *what, const char *p, size_t n))
{
	struct frec_export_opts o = { .format = format, .gzip = size & 1 };
	struct frec_export_stats stats = { 0 };
	char what_err[64], what_gzip[64];
	const uint8_t *fixed;
	const char *output;
	size_t len;
	bool changed;
	int st;

	snprintf(what_err, sizeof(what_err), "%s stderr", name);
	snprintf(what_gzip, sizeof(what_gzip), "%s --gzip", name);
	fixed = fuzz_input__fix_crcs(data, size, &changed);
	fuzz_input__set(fixed, size);
	fuzz_sink__reset(&export_out);
	fuzz_sink__reset(&export_err);
	st = frec_export__run(fuzz_input__path(), &o, export_out.f, export_err.f, &stats);
	fuzz_check__status(name, st);
	fuzz_check__sink(what_err, &export_err, fuzz_check__text);
	fuzz_sink__flush(&export_out);
	if (st == 1 || export_out.overflow)
		return;
	output = export_out.buf;
	len = export_out.len;
	if (o.gzip && !(output = fuzz_check__gunzip(what_gzip, export_out.buf, export_out.len, &len)))
		return;
	check(name, output, len);
}

/* A target's two libFuzzer entry points: the export to format, named name
 * in the failed checks, its output checked by check. */
#define EXPORT_TARGET(format, name, check)					\
	int LLVMFuzzerInitialize(int *argc, char ***argv);			\
	int LLVMFuzzerInitialize(int *argc, char ***argv)			\
	{									\
		export_target__init();						\
		return 0;							\
	}									\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);		\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)		\
	{									\
		export_target__run(data, size, format, name, check);		\
		return 0;							\
	}

#endif /* FREC_FUZZ_EXPORT_TARGET_H */
