/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Latency histograms for frec report. Two views of the same samples (ns):
 *  - log2 buckets of microseconds, as runqlat and funclatency print them
 *    (bucket 0 holds 0..1 us, bucket i >= 1 holds 2^i .. 2^(i+1)-1 us);
 *  - a fine log-linear histogram for the percentiles: values below 256 ns
 *    are exact, larger ones keep their top 8 significant bits (the bucket
 *    width is under 1/128 of its value). A percentile is the lowest value of
 *    the bucket holding the nearest-rank sample, clamped to [min, max]: exact
 *    for samples with at most 8 significant bits, otherwise at most 0.8% low.
 * Memory: the fine buckets come in pages of one power of two each, allocated
 * when a sample first lands there, so a thread whose latencies span ten
 * octaves costs a few KiB whatever the number of samples.
 */
#ifndef FREC_TOOLS_HIST_H
#define FREC_TOOLS_HIST_H

#include <stdint.h>
#include <stdio.h>

#define FREC_HIST_SUB_BITS	7
#define FREC_HIST_PAGES		(64 - FREC_HIST_SUB_BITS)
#define FREC_HIST_LOG2		64

struct frec_hist {
	uint64_t count;
	uint64_t sum;		/* ns; saturates instead of wrapping */
	uint64_t min;
	uint64_t max;
	uint32_t log2_us[FREC_HIST_LOG2];
	uint32_t *pages[FREC_HIST_PAGES];
	int oom;		/* a page could not be allocated: percentiles approximate */
};

void frec_hist__init(struct frec_hist *h);
void frec_hist__fini(struct frec_hist *h);
void frec_hist__add(struct frec_hist *h, uint64_t ns);
/* The nearest-rank percentile p (0 < p <= 100) in ns; 0 when empty. */
uint64_t frec_hist__percentile(const struct frec_hist *h, double p);
uint64_t frec_hist__mean(const struct frec_hist *h);

/* log2 bucket i covers [lo, hi] microseconds. */
void frec_hist__log2_range(unsigned int i, uint64_t *lo, uint64_t *hi);
/* The first and last non-empty log2 buckets; returns 0 when empty. */
int frec_hist__log2_span(const struct frec_hist *h, unsigned int *first, unsigned int *last);

/* Print the log2 buckets the way runqlat does, with a bar of stars. */
void frec_hist__print_log2(const struct frec_hist *h, FILE *out, const char *indent);

/* The renderings of frec report (any thread, on its own frec_out):
 *  text: "N samples, p50 X us, p99 X us, max X us, mean X us\n";
 *  text_log2: the log2 buckets as print_log2 prints them;
 *  json: {"count","p50_ns","p99_ns","max_ns","mean_ns","log2_us":[{lo,hi,count}]}
 *  (the non-empty span of log2 buckets, lo and hi in us). */
struct frec_out;
void frec_hist__text(struct frec_out *o, const struct frec_hist *h);
void frec_hist__text_log2(struct frec_out *o, const struct frec_hist *h, const char *indent);
void frec_hist__json(struct frec_out *o, const struct frec_hist *h);

#endif /* FREC_TOOLS_HIST_H */
