// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec: read flight-recorder snapshots (info, dump, report, export) and talk
 * to frecd. main() only dispatches; each subcommand lives in its own file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
	const char *summary;
};

static const struct command commands[] = {
	{ "info", cmd_info, frec_info__usage, "describe a snapshot: host, time span, events, drops" },
	{ "dump", cmd_dump, frec_dump__usage, "print every event, one a line (--json for JSON lines)" },
	{ "report", cmd_report, frec_report__usage,
	  "on-CPU time, run-queue latency, probe call latency, drops" },
	{ "export", cmd_export, frec_export__usage, "convert for Perfetto, chrome://tracing or pprof" },
	/* These talk to a running frecd over its control socket (ctl.c). */
	{ "snapshot", cmd_snapshot, frec_snapshot__usage,
	  "ask the running frecd for a snapshot, wait, print its path" },
	{ "trigger", cmd_trigger, frec_trigger__usage,
	  "fire frecd's manual trigger NAME, wait, print the snapshot's path" },
	{ "status", cmd_status, frec_status__usage,
	  "what the running frecd records: rates, drops, window, probes, triggers" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: frec COMMAND [OPTIONS] [FILE]\n"
		"       frec --help | --version\n"
		"\n"
		"Read the snapshots frecd writes (.frec files), and ask a running frecd\n"
		"for one or for its status.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Run 'frec COMMAND --help' for the options of a command.\n"
		"\n"
		"EXAMPLES\n"
		"  frec info snap.frec\n"
		"  frec dump --json snap.frec | grep '\"type\":\"sched_switch\"'\n"
		"  frec report --top 5 snap.frec\n"
		"  frec export --format perfetto -o snap.perfetto-trace snap.frec\n"
		"  sudo frec snapshot --reason 'p99 spike'\n"
		"  sudo frec trigger oops\n"
		"  sudo frec status\n");
	frec_usage__exit_status(f);
}

int main(int argc, char **argv)
{
	char name[64];
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return FREC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc > 2) {
			for (i = 0; i < NCOMMANDS; i++) {
				if (!strcmp(argv[2], commands[i].name)) {
					commands[i].usage(stdout);
					return FREC_EXIT_OK;
				}
			}
		}
		usage(stdout);
		return FREC_EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("frec %s (snapshot format %d)\n", FREC_VERSION, FREC_FORMAT_VERSION);
		return FREC_EXIT_OK;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* getopt's messages then read "frec dump: unrecognized option" */
		snprintf(name, sizeof(name), "frec %s", commands[i].name);
		argv[1] = name;
		return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "frec: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return FREC_EXIT_USAGE;
}
