// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: `frec export --format pprof` on one input (its CRCs
 * recomputed, see harness.h); with --gzip when the input's length is odd,
 * so that the seeds stay plain snapshot files. Checks, besides memory
 * safety: exit status 0, 1 or 3; the gzip stream inflates; the output is
 * a Profile whose messages parse and whose string table starts with "";
 * the error stream is clean text.
 */
#include "export_target.h"

/* fuzz_check__pprof takes the profile as bytes; pprof files are gzipped
 * whatever --gzip says, so a profile that export_target left compressed is
 * inflated here */
static void check_profile(const char *what, const char *p, size_t n)
{
	if (n >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b &&
	    !(p = fuzz_check__gunzip(what, p, n, &n)))
		return;
	fuzz_check__pprof(what, (const uint8_t *)p, n);
}

EXPORT_TARGET(FREC_EXPORT_PPROF, "export pprof", check_profile)
