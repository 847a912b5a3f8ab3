// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency histograms: log2 of microseconds, and log-linear for percentiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "out.h"
#include "table.h"

#define SUB		(1u << FREC_HIST_SUB_BITS)	/* 128 */
#define PAGE0_LEN	(2 * SUB)			/* values 0..255, exact */

void frec_hist__init(struct frec_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void frec_hist__fini(struct frec_hist *h)
{
	unsigned int i;

	for (i = 0; i < FREC_HIST_PAGES; i++)
		free(h->pages[i]);
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/* Page 0 holds 0..255 one value per bucket; page p >= 1 holds the values whose
 * highest set bit is p + 7, in 128 buckets of width 2^p. */
static inline void locate(uint64_t v, unsigned int *page, unsigned int *idx)
{
	unsigned int top;

	if (v < PAGE0_LEN) {
		*page = 0;
		*idx = (unsigned int)v;
		return;
	}
	top = 63 - (unsigned int)__builtin_clzll(v);
	*page = top - FREC_HIST_SUB_BITS;
	*idx = (unsigned int)(v >> *page) - SUB;	/* 0..127 */
}

static inline uint64_t bucket_low(unsigned int page, unsigned int idx)
{
	if (!page)
		return idx;
	return ((uint64_t)idx + SUB) << page;
}

static inline unsigned int log2_slot(uint64_t us)
{
	return us < 2 ? 0 : 63 - (unsigned int)__builtin_clzll(us);
}

void frec_hist__add(struct frec_hist *h, uint64_t ns)
{
	unsigned int page, idx;

	h->count++;
	h->sum = h->sum + ns < h->sum ? UINT64_MAX : h->sum + ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->log2_us[log2_slot(ns / 1000)]++;

	locate(ns, &page, &idx);
	if (!h->pages[page]) {
		h->pages[page] = calloc(page ? SUB : PAGE0_LEN, sizeof(uint32_t));
		if (!h->pages[page]) {
			h->oom = 1;
			return;
		}
	}
	h->pages[page][idx]++;
}

uint64_t frec_hist__mean(const struct frec_hist *h)
{
	return h->count ? h->sum / h->count : 0;
}

uint64_t frec_hist__percentile(const struct frec_hist *h, double p)
{
	uint64_t rank, seen = 0, v = 0;
	unsigned int page, i;

	if (!h->count)
		return 0;
	/* nearest rank: the smallest sample with at least p% at or below it */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;
	for (page = 0; page < FREC_HIST_PAGES; page++) {
		unsigned int n = page ? SUB : PAGE0_LEN;

		if (!h->pages[page])
			continue;
		for (i = 0; i < n; i++) {
			seen += h->pages[page][i];
			if (seen >= rank) {
				v = bucket_low(page, i);
				goto found;
			}
		}
	}
	v = h->max;	/* only when pages were lost to OOM */
found:
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

void frec_hist__log2_range(unsigned int i, uint64_t *lo, uint64_t *hi)
{
	if (i == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	*lo = 1ull << i;
	*hi = i >= 63 ? UINT64_MAX : (1ull << (i + 1)) - 1;
}

int frec_hist__log2_span(const struct frec_hist *h, unsigned int *first, unsigned int *last)
{
	int f = -1, l = -1, i;

	for (i = 0; i < FREC_HIST_LOG2; i++) {
		if (!h->log2_us[i])
			continue;
		if (f < 0)
			f = i;
		l = i;
	}
	if (f < 0)
		return 0;
	*first = (unsigned int)f;
	*last = (unsigned int)l;
	return 1;
}

void frec_hist__print_log2(const struct frec_hist *h, FILE *out, const char *indent)
{
	unsigned int first, last, i;
	uint32_t peak = 0;
	const int width = 40;

	if (!frec_hist__log2_span(h, &first, &last))
		return;
	for (i = first; i <= last; i++)
		if (h->log2_us[i] > peak)
			peak = h->log2_us[i];
	fprintf(out, "%s%20s : %-10s %s\n", indent, "usecs", "count", "distribution");
	for (i = first; i <= last; i++) {
		uint64_t lo, hi;
		char range[48], bar[64];
		int stars = (int)((uint64_t)h->log2_us[i] * width / peak);

		frec_hist__log2_range(i, &lo, &hi);
		snprintf(range, sizeof(range), "%llu -> %llu",
			 (unsigned long long)lo, (unsigned long long)hi);
		memset(bar, '*', (size_t)stars);
		memset(bar + stars, ' ', (size_t)(width - stars));
		bar[width] = '\0';
		fprintf(out, "%s%20s : %-10u |%s|\n", indent, range, h->log2_us[i], bar);
	}
}

void frec_hist__text(struct frec_out *o, const struct frec_hist *h)
{
	frec_out__printf(o, "%llu samples, p50 ", (unsigned long long)h->count);
	frec_table__us(o, frec_hist__percentile(h, 50), 0);
	frec_out__str(o, " us, p99 ");
	frec_table__us(o, frec_hist__percentile(h, 99), 0);
	frec_out__str(o, " us, max ");
	frec_table__us(o, h->count ? h->max : 0, 0);
	frec_out__str(o, " us, mean ");
	frec_table__us(o, frec_hist__mean(h), 0);
	frec_out__str(o, " us\n");
}

void frec_hist__text_log2(struct frec_out *o, const struct frec_hist *h, const char *indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	frec_hist__print_log2(h, m, indent);
	fclose(m);
	frec_out__write(o, buf, len);
	free(buf);
}

void frec_hist__json(struct frec_out *o, const struct frec_hist *h)
{
	unsigned int first, last, i;
	bool comma = false;

	frec_out__printf(o, "{\"count\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,"
			 "\"mean_ns\":%llu,\"log2_us\":[",
			 (unsigned long long)h->count,
			 (unsigned long long)frec_hist__percentile(h, 50),
			 (unsigned long long)frec_hist__percentile(h, 99),
			 (unsigned long long)(h->count ? h->max : 0),
			 (unsigned long long)frec_hist__mean(h));
	if (frec_hist__log2_span(h, &first, &last)) {
		for (i = first; i <= last; i++) {
			uint64_t lo, hi;

			frec_hist__log2_range(i, &lo, &hi);
			frec_out__printf(o, "%s{\"lo\":%llu,\"hi\":%llu,\"count\":%u}", comma ? "," : "",
					 (unsigned long long)lo, (unsigned long long)hi, h->log2_us[i]);
			comma = true;
		}
	}
	frec_out__str(o, "]}");
}
