// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: `frec report` on one input (its CRCs recomputed, see
 * harness.h). The options come from the input's length, so that the seeds
 * stay plain snapshot files and every option path is still reached:
 *   size % 4 == 0  defaults (text, top 10); --folded when size / 4 is odd
 *              1  --json --offcpu
 *              2  --pid P --top 3 --offcpu, P one of the seeds' processes
 *              3  --json --tid T --since +1us --until +5ms, T as above
 * Checks, besides memory safety: exit status 0, 1 or 3; text output valid
 * UTF-8 without control characters; JSON output one valid document; the
 * error stream clean text.
 */
#include "harness.h"
#include "tools.h"

static struct fuzz_sink out, err;

/* tgids and tids that the seeds of tests/fuzz/corpus hold */
static const __u32 ids[] = { 100, 102, 500, 501, 700, 702, 901, 1100, 1200, 1300 };

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
	struct frec_report_opts o = { .top = 10 };
	__u32 id = ids[(size / 4) % (sizeof(ids) / sizeof(ids[0]))];
	const uint8_t *fixed;
	bool changed;
	int st;

	switch (size % 4) {
	case 0:
		o.folded = (size / 4) % 2;
		break;
	case 1:
		o.json = true;
		o.offcpu = true;
		break;
	case 2:
		o.has_pid = true;
		o.pid = id;
		o.top = 3;
		o.offcpu = true;
		break;
	case 3:
		o.json = true;
		o.has_tid = true;
		o.tid = id;
		o.has_since = o.since_rel = true;
		o.since_ns = 1000;
		o.has_until = o.until_rel = true;
		o.until_ns = 5000000;
		break;
	}
	fixed = fuzz_input__fix_crcs(data, size, &changed);
	fuzz_input__set(fixed, size);
	fuzz_sink__reset(&out);
	fuzz_sink__reset(&err);
	st = frec_report__run(fuzz_input__path(), &o, out.f, err.f);
	fuzz_check__status("report", st);
	if (st != 1)
		fuzz_check__sink(o.json ? "report --json" : "report", &out,
				 o.json ? fuzz_check__json : fuzz_check__text);
	fuzz_check__sink("report stderr", &err, fuzz_check__text);
	return 0;
}
