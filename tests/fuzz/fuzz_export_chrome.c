// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: `frec export --format chrome` on one input (its CRCs
 * recomputed, see harness.h); with --gzip when the input's length is odd,
 * so that the seeds stay plain snapshot files. Checks, besides memory
 * safety: exit status 0, 1 or 3; the gzip stream inflates; the output is
 * one valid JSON document (valid UTF-8, every string escaped); the error
 * stream is clean text.
 */
#include "export_target.h"

EXPORT_TARGET(FREC_EXPORT_CHROME, "export chrome", fuzz_check__json)
