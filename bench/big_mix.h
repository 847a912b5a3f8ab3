/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * bench-core's large mix: the ring records of a big server, made as they
 * are consumed (a fixed buffer replayed in a loop would mention only the
 * threads it happens to hold, and replay its forks of the same tids).
 *
 * ncpus CPUs (256 in the bench) and nthreads threads (100,000), 20 to a
 * process at the start. Each CPU has 10 threads of its own that get 80% of
 * the picks there (a thread switched in, a thread woken); the next 10,000
 * threads get 15%, the remaining ones 5%, so that every thread has events
 * over a run while a generation of some 25 ms names some 25,000 of
 * them. Of the records: 50% sched_switch (a quarter of them to the
 * idle task), 44% sched_waking (the target CPU the wakee's last CPU three
 * times in four, else the waker's), 3% migrations, 1% forks of a thread,
 * 1% exits (each followed by its final switch, so 2 records), 1% probe
 * hits. The exited threads' slots come back with new tids at forks, so
 * the task table churns at a fork and an exit per 100 records. The system
 * makes 10 M events/s: records 20-180 ns apart, one in 50 stamped up to
 * 300 ns early (the rings' merge is by reservation within a CPU).
 *
 * Not thread-safe; one mix per replay thread.
 */
#ifndef FREC_BENCH_BIG_MIX_H
#define FREC_BENCH_BIG_MIX_H

#include <stddef.h>
#include <stdint.h>
#include <frec/recorder.h>

struct big_mix;

/* NULL with errno set. The same seed makes the same records. */
struct big_mix *big_mix__new(unsigned ncpus, unsigned nthreads, uint64_t ts0, uint64_t seed);
void big_mix__free(struct big_mix *m);
/* What frecd does at start from /proc: every thread and its process's
 * command line into the recorder. */
int big_mix__seed(const struct big_mix *m, struct frec_recorder *rec);
/* Write records into buf (cap bytes, 8-byte aligned) until it holds n of
 * them or the next could not fit; off[i] is record i's offset. Returns the
 * number written. */
unsigned big_mix__fill(struct big_mix *m, unsigned char *buf, size_t cap, uint32_t *off,
		       unsigned n);
/* The largest timestamp made so far. */
uint64_t big_mix__now(const struct big_mix *m);

#endif /* FREC_BENCH_BIG_MIX_H */
