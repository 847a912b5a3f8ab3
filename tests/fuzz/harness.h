/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the fuzz targets share: the input as a file, output captured in
 * memory, and the checks that make a wrong answer as loud as a crash.
 *
 * Input. The reader and the tools read files by descriptor or path, so the
 * input is written into one memfd per process; targets open it as
 * /proc/self/fd/N (a fresh description, offset 0) or read it through a dup.
 *
 * CRCs. Every header and block carries CRC32s, so nearly every mutated input
 * would stop at the first checksum and the decoders behind it would never
 * see fuzzed bytes. fuzz_input__fix_crcs() recomputes the checksums of the
 * file header and of every block it can find (the layout of
 * src/core/format.h), so that mutations reach the payload parsers; the
 * reader target also runs on the unfixed bytes, which keeps the checksum
 * and resynchronisation paths covered.
 *
 * Checks (oracles). Besides ASan and UBSan, every output a target produces
 * is checked for what the tools promise whatever the input (tools/json.h):
 * text is valid UTF-8 without control characters but newline, JSON parses,
 * the Perfetto trace is well-formed protobuf with consistent compact_sched
 * arrays, gzip streams inflate, and the exit status is 0, 1 or 3. A failed
 * check prints what and where, then aborts, so libFuzzer saves the input.
 */
#ifndef FREC_FUZZ_HARNESS_H
#define FREC_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Outputs larger than this are not kept (nor checked): a 64 KiB input can
 * legitimately expand a thousandfold through a deflated block. */
#define FUZZ_SINK_CAP	(16u << 20)

/* The input file. */
void fuzz_input__init(void);
/* A copy of data with every CRC the layout allows recomputed; valid until the
 * next call. *changed tells whether any byte differs from data. */
const uint8_t *fuzz_input__fix_crcs(const uint8_t *data, size_t size, bool *changed);
/* Make the input file hold exactly these bytes. */
void fuzz_input__set(const uint8_t *data, size_t size);
/* A new descriptor on the input, at offset 0 (the reader takes ownership). */
int fuzz_input__fd(void);
/* "/proc/self/fd/N" */
const char *fuzz_input__path(void);

/* An output stream captured in memory. */
struct fuzz_sink {
	FILE *f;
	char *buf;
	size_t len;
	bool overflow;		/* more than FUZZ_SINK_CAP bytes were written */
};
void fuzz_sink__init(struct fuzz_sink *s);
/* Forget what was written (and any error on the stream). */
void fuzz_sink__reset(struct fuzz_sink *s);
/* Flush the stream so that buf/len hold everything written. */
void fuzz_sink__flush(struct fuzz_sink *s);

/* The checks; each aborts with a message naming what when it fails. */
void fuzz_check__status(const char *what, int status);
void fuzz_check__text(const char *what, const char *p, size_t n);
void fuzz_check__json(const char *what, const char *p, size_t n);
void fuzz_check__json_lines(const char *what, const char *p, size_t n);
void fuzz_check__perfetto(const char *what, const uint8_t *p, size_t n);
void fuzz_check__pprof(const char *what, const uint8_t *p, size_t n);
/* Inflate a gzip stream (aborts if it is not one); the result is valid until
 * the next call. NULL when it inflates to more than FUZZ_SINK_CAP bytes. */
const char *fuzz_check__gunzip(const char *what, const char *p, size_t n, size_t *outlen);

/* Check a sink with a checker, unless it overflowed. */
void fuzz_check__sink(const char *what, struct fuzz_sink *s,
		      void (*check)(const char *, const char *, size_t));

__attribute__((noreturn, format(printf, 1, 2)))
void fuzz_fail(const char *fmt, ...);

#endif /* FREC_FUZZ_HARNESS_H */
