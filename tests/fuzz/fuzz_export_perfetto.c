// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: `frec export --format perfetto` on one input (its CRCs
 * recomputed, see harness.h); with --gzip when the input's length is odd,
 * so that the seeds stay plain snapshot files. Checks, besides memory
 * safety: exit status 0, 1 or 3; the gzip stream inflates; the trace is
 * well-formed protobuf, packets only, with compact_sched arrays of equal
 * lengths and comm indices inside the intern table (harness.c); the error
 * stream is clean text.
 */
#include "export_target.h"

/* fuzz_check__perfetto takes the trace as bytes */
static void check_trace(const char *what, const char *p, size_t n)
{
	fuzz_check__perfetto(what, (const uint8_t *)p, n);
}

EXPORT_TARGET(FREC_EXPORT_PERFETTO, "export perfetto", check_trace)
