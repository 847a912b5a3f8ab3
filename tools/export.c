// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* frec export: option parsing and the output file; the formats are in
 * export_perfetto.c (and the files perfetto.h lists), export_chrome.c and
 * export_pprof.c,
 * on top of export_walk.c and export_calls.c, which both share. The output
 * is an outfile.h file: a regular OUT is replaced only when the export
 * succeeds, or when it exits 3 (damaged generations skipped: the trace of
 * the intact ones is complete in itself and is what the user asked for); a
 * failure (exit 1) leaves OUT as it was. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "outfile.h"
#include "tools.h"

void frec_export__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec export --format perfetto|chrome|pprof [-o OUT] [--gzip]\n"
		"                   [--debug-dir DIR] FILE\n"
		"\n"
		"Convert a snapshot for a trace viewer. Streams one generation at a time.\n"
		"\n"
		"  perfetto  Perfetto protobuf trace (open in ui.perfetto.dev or feed to\n"
		"            trace_processor): CPU lanes and thread states from per-CPU\n"
		"            ftrace bundles (compact sched_switch and sched_waking; fork,\n"
		"            exec, exit, rename, wakeup_new, migrate as ftrace events), a\n"
		"            process tree naming every process and thread, probe calls as\n"
		"            slices on their thread's track (arguments and return value as\n"
		"            debug annotations, USDT and unpaired hits as instants), trigger\n"
		"            firings as instants \"trigger NAME\" on their thread's track,\n"
		"            and lost records marked on their CPU; with stacks (frecd\n"
		"            --stacks offcpu) each blocking switch's stack as a perf\n"
		"            sample on the blocked thread (flame graphs) and its kernel\n"
		"            function as sched_blocked_reason. Timestamps are\n"
		"            CLOCK_BOOTTIME.\n"
		"  chrome    Chrome Trace Event Format JSON (chrome://tracing, Perfetto):\n"
		"            process and thread names, \"running\" slices per thread and per\n"
		"            CPU (pseudo-process \"CPUs\"), probe calls as complete slices on\n"
		"            a \"probes\" lane beside each thread, instants for fork, exec,\n"
		"            exit, trigger firings (\"trigger NAME\" on the thread) and lost\n"
		"            records. Timestamps in microseconds of BOOTTIME.\n"
		"  pprof     off-CPU time by stack (frecd --stacks offcpu) as a gzipped\n"
		"            profile.proto for go tool pprof: sample types blocks (count)\n"
		"            and offcpu (nanoseconds, the default), one sample per thread\n"
		"            and stack (labels tid, pid, comm), functions and mappings with\n"
		"            their build-ids; always gzipped.\n"
		"\n"
		"  -f, --format FMT  perfetto, chrome or pprof (required)\n"
		"  -o, --output OUT  write to OUT (default or '-': standard output, which\n"
		"                    must not be a terminal for the binary format). A file\n"
		"                    is replaced only at the end, and not if the export\n"
		"                    fails; a device or FIFO is written to directly\n"
		"  -z, --gzip        compress the output with gzip (both viewers open it)\n"
		"      --debug-dir DIR\n"
		"                    name user frames the snapshot could not from DIR's\n"
		"                    .build-id/xx/yyyy.debug files (default /usr/lib/debug)\n"
		"      --stats       print events, bytes and events/s on stderr when done\n"
		"  -h, --help        this help\n"
		"\n"
		"EXAMPLES\n"
		"  frec export --format perfetto -o snap.perfetto-trace snap.frec\n"
		"  frec export --format chrome --gzip -o snap.json.gz snap.frec\n"
		"  frec export --format pprof -o offcpu.pb.gz snap.frec && go tool pprof -top offcpu.pb.gz\n");
	frec_usage__exit_status(f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int frec_export__run(const char *path, const struct frec_export_opts *o, FILE *out, FILE *err,
		     struct frec_export_stats *st)
{
	switch (o->format) {
	case FREC_EXPORT_PERFETTO:
		return frec_export_perfetto__run(path, o, out, err, st);
	case FREC_EXPORT_PPROF:
		return frec_export_pprof__run(path, o, out, err, st);
	default:
		return frec_export_chrome__run(path, o, out, err, st);
	}
}

int cmd_export(int argc, char **argv)
{
	enum { OPT_STATS = 0x100, OPT_DEBUG_DIR };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "gzip", no_argument, NULL, 'z' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct frec_export_opts o = { 0 };
	struct frec_export_stats st = { 0 };
	const char *out_path = NULL;
	struct frec_outfile *of = NULL;
	bool stats = false;
	double t0;
	int c, status;

	optind = 0;
	while ((c = getopt_long(argc, argv, "f:o:zh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "perfetto")) {
				o.format = FREC_EXPORT_PERFETTO;
			} else if (!strcmp(optarg, "chrome") || !strcmp(optarg, "json")) {
				o.format = FREC_EXPORT_CHROME;
			} else if (!strcmp(optarg, "pprof")) {
				o.format = FREC_EXPORT_PPROF;
			} else {
				fprintf(stderr, "frec export: unknown format '%s'; use perfetto, chrome or pprof\n",
					optarg);
				return FREC_EXIT_USAGE;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'z':
			o.gzip = true;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_DEBUG_DIR:
			if (frec_opt__debug_dir("export", optarg))
				return FREC_EXIT_USAGE;
			o.debug_dir = optarg;
			break;
		case 'h':
			frec_export__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec export --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (!o.format) {
		fprintf(stderr, "frec export: which format? add --format perfetto, chrome or pprof\n");
		return FREC_EXIT_USAGE;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "frec export: expected one FILE, got %d; try 'frec export --help'\n",
			argc - optind);
		return FREC_EXIT_USAGE;
	}
	if ((!out_path || !strcmp(out_path, "-")) && (o.format != FREC_EXPORT_CHROME || o.gzip) && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "frec export: not writing a binary trace to a terminal; add -o FILE\n");
		return FREC_EXIT_USAGE;
	}
	if (frec_outfile__same_file(out_path, argv[optind])) {
		fprintf(stderr, "frec export: %s is the snapshot being exported; name another -o file\n",
			out_path);
		return FREC_EXIT_USAGE;
	}
	if (frec_outfile__open(out_path, stderr, &of))
		return FREC_EXIT_FAIL;
	t0 = now_s();
	status = frec_export__run(argv[optind], &o, frec_outfile__stream(of), stderr, &st);
	if (status == FREC_EXIT_FAIL)
		frec_outfile__abort(of);
	else if (frec_outfile__commit(of, stderr))
		status = FREC_EXIT_FAIL;
	if (stats) {
		double dt = now_s() - t0;

		fprintf(stderr, "frec export: %llu events, %llu bytes, %.3f s, %.0f events/s\n",
			(unsigned long long)st.events, (unsigned long long)st.bytes, dt,
			dt > 0 ? (double)st.events / dt : 0.0);
	}
	return status;
}
