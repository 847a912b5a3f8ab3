/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's clocks, as nanoseconds in a __u64:
 *  - CLOCK_MONOTONIC for intervals frecd measures itself (how long a drain,
 *    a snapshot or a reload took, rate limits, timeouts);
 *  - CLOCK_BOOTTIME, the clock of the records (bpf_ktime_get_boot_ns()), for
 *    anything compared with an event's timestamp (cuts, lost spans, gaps);
 *  - CLOCK_REALTIME only to name a snapshot file.
 * Any thread may call them: they read the clock and keep nothing.
 */
#ifndef FRECD_CLOCK_H
#define FRECD_CLOCK_H

#include <time.h>
#include <linux/types.h>

static inline __u64 frecd_clock__ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static inline __u64 frecd_clock__mono_ns(void)
{
	return frecd_clock__ns(CLOCK_MONOTONIC);
}

static inline __u64 frecd_clock__boot_ns(void)
{
	return frecd_clock__ns(CLOCK_BOOTTIME);
}

/* Whole milliseconds of CLOCK_MONOTONIC, for the coarse timeouts. */
static inline __u64 frecd_clock__mono_ms(void)
{
	return frecd_clock__mono_ns() / 1000000;
}

#endif /* FRECD_CLOCK_H */
