// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "frecd/snapname.h"

/* Two digits of suffix keep the names sorting by time. */
#define MAX_ATTEMPTS	100

int frecd_snapname__make(char *buf, size_t len, __u64 realtime_ns, unsigned int attempt)
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

/* n digits; stops at the first that is not one, a NUL included. */
static bool digits(const char *s, size_t n)
{
	for (; n; n--, s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The length of the snapshot name s starts with, 0 if it starts with none. */
static size_t name_len(const char *s)
{
	size_t n = 25;	/* "frec-YYYYMMDDTHHMMSS.mmmZ" */

	if (strncmp(s, "frec-", 5) || !digits(s + 5, 8) || s[13] != 'T' || !digits(s + 14, 6) ||
	    s[20] != '.' || !digits(s + 21, 3) || s[24] != 'Z')
		return 0;
	if (s[n] == '_') {	/* "_01" to "_99", as the attempts number them */
		if (!digits(s + n + 1, 2) || !strncmp(s + n + 1, "00", 2))
			return 0;
		n += 3;
	}
	if (strncmp(s + n, ".frec", 5))
		return 0;
	return n + 5;
}

bool frecd_snapname__is_snapshot(const char *name)
{
	size_t n = name_len(name);

	return n && !name[n];
}

bool frecd_snapname__is_tmp(const char *name)
{
	size_t n;

	if (name[0] != '.')
		return false;
	n = name_len(name + 1);
	return n && !strcmp(name + 1 + n, ".tmp");
}
