/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Events per second, by type, and lost per second, as frec status and
 * systemd's STATUS= show them: measured between two samples of the loop's
 * counters at least FRECD_RATE_INTERVAL_MS apart. Arithmetic only: the
 * caller takes the samples (frecd_daemon__status()) and reads the clock
 * (CLOCK_MONOTONIC ns). The state is the caller's; the loop's thread in frecd.
 */
#ifndef FRECD_RATES_H
#define FRECD_RATES_H

#include <stdbool.h>
#include <frec/event.h>
#include <linux/types.h>

#define FRECD_RATE_INTERVAL_MS		1000

struct frecd_status;

struct frecd_rates {
	/* The last sample. */
	__u64 ns;
	__u64 events;
	__u64 by_type[FREC_EV__MAX];
	__u64 lost;
	/* The rates between it and the one before, over rate_ns (0: none yet). */
	__u64 rate_ns;
	double events_per_s, by_type_per_s[FREC_EV__MAX], lost_per_s;
};

/* The first sample, st taken at now; no rates yet. */
void frecd_rates__init(struct frecd_rates *r, const struct frecd_status *st, __u64 now);
/* Whether at now the last sample is old enough for another. */
bool frecd_rates__due(const struct frecd_rates *r, __u64 now);
/* Another sample, st taken at now: the rates since the last one. */
void frecd_rates__update(struct frecd_rates *r, const struct frecd_status *st, __u64 now);
/* The rates into st (rate_ns, events_per_s, by type, lost_per_s). */
void frecd_rates__fill(const struct frecd_rates *r, struct frecd_status *st);

#endif /* FRECD_RATES_H */
