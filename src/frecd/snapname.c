// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include "frecd/writer.h"

/* Two digits of suffix keep the names sorting by time. */
#define MAX_ATTEMPTS	100

int frecd_snapshot_name(char *buf, size_t len, __u64 realtime_ns, unsigned int attempt)
{
	time_t secs = realtime_ns / 1000000000ull;
	unsigned int ms = realtime_ns / 1000000ull % 1000;
	char stamp[32];
	struct tm tm;
	int n;

	if (attempt >= MAX_ATTEMPTS)
		return -EEXIST;
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	if (attempt)
		n = snprintf(buf, len, "frec-%s.%03uZ_%02u.frec", stamp, ms, attempt);
	else
		n = snprintf(buf, len, "frec-%s.%03uZ.frec", stamp, ms);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
