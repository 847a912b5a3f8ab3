// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * floor: attach one pair of the floor programs (bench/floor.bpf.c) to
 * sched_switch and sched_waking until SIGTERM or SIGINT, for the system
 * benchmark's paired rounds.
 *
 *   floor empty|clock|ring|wide|query
 *
 * Prints "ready" once both programs are attached, and on exit one line
 * "floor KIND: runs R records N full F consumed C" (the programs' own
 * counters; C is what this process read from the ring, so that the
 * variants that write records pay for a consumer as a real recorder does:
 * it drains every DRAIN_MS, as the programs never wake it). The bench
 * reads both.
 * Single-threaded.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

#define DRAIN_MS 20

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_record(void *ctx, void *data, size_t size)
{
	unsigned long long *consumed = ctx;

	(void)data;
	(void)size;
	(*consumed)++;
	return 0;
}

static int floor__pick(struct floor_bpf *o, const char *kind)
{
	struct bpf_program *sw, *wk;
	struct bpf_program *all[] = {
		o->progs.fl_empty_switch, o->progs.fl_empty_waking,
		o->progs.fl_clock_switch, o->progs.fl_clock_waking,
		o->progs.fl_ring_switch, o->progs.fl_ring_waking,
		o->progs.fl_wide_switch, o->progs.fl_wide_waking,
		o->progs.fl_query_switch, o->progs.fl_query_waking,
	};
	size_t i;

	if (!strcmp(kind, "empty")) {
		sw = o->progs.fl_empty_switch;
		wk = o->progs.fl_empty_waking;
	} else if (!strcmp(kind, "clock")) {
		sw = o->progs.fl_clock_switch;
		wk = o->progs.fl_clock_waking;
	} else if (!strcmp(kind, "ring")) {
		sw = o->progs.fl_ring_switch;
		wk = o->progs.fl_ring_waking;
	} else if (!strcmp(kind, "wide")) {
		sw = o->progs.fl_wide_switch;
		wk = o->progs.fl_wide_waking;
	} else if (!strcmp(kind, "query")) {
		sw = o->progs.fl_query_switch;
		wk = o->progs.fl_query_waking;
	} else {
		return -EINVAL;
	}
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		bpf_program__set_autoload(all[i], all[i] == sw || all[i] == wk);
	return 0;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	unsigned long long consumed = 0;
	struct floor_bpf *o;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: floor empty|clock|ring|wide|query\n");
		return 2;
	}
	o = floor_bpf__open();
	if (!o) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	err = floor__pick(o, argv[1]);
	if (err) {
		fprintf(stderr, "floor: unknown kind '%s': use empty, clock, ring, wide or query\n",
			argv[1]);
		goto out;
	}
	err = floor_bpf__load(o);
	if (!err)
		err = floor_bpf__attach(o);
	if (err) {
		fprintf(stderr, "floor: cannot load or attach the programs: %s (run as root)\n",
			strerror(-err));
		goto out;
	}
	/* Only ring, wide and query write records: empty and clock leave the
	 * ring alone, and this process asleep. */
	if (strcmp(argv[1], "empty") && strcmp(argv[1], "clock")) {
		rb = ring_buffer__new(bpf_map__fd(o->maps.floor_ring), on_record, &consumed, NULL);
		if (!rb) {
			err = -errno;
			fprintf(stderr, "floor: cannot map the ring: %s\n", strerror(errno));
			goto out;
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		struct timespec ts = { 0, DRAIN_MS * 1000000L };

		if (!rb) {
			pause();
			continue;
		}
		nanosleep(&ts, NULL);
		ring_buffer__consume(rb);
	}
	if (rb)
		ring_buffer__consume(rb);
	printf("floor %s: runs %llu records %llu full %llu consumed %llu\n", argv[1],
	       (unsigned long long)o->bss->clock_runs, (unsigned long long)o->bss->ring_records,
	       (unsigned long long)o->bss->ring_full, consumed);
	err = 0;
out:
	ring_buffer__free(rb);
	floor_bpf__destroy(o);
	return err ? 1 : 0;
}
