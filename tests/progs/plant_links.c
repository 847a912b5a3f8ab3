// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Plant symbolic links at the names frecd's next snapshots will take, as an
 * attacker who can write in the snapshot directory would, for the test that
 * checks that such a link never redirects a write.
 *
 *   plant_links DIR temp|final TARGET SECONDS
 *     for every millisecond from now to SECONDS from now (CLOCK_REALTIME,
 *     the clock that names snapshots), a symbolic link to TARGET named
 *       temp:  DIR/.frec-YYYYMMDDTHHMMSS.mmmZ.frec.tmp  (the temporary file)
 *       final: DIR/frec-YYYYMMDDTHHMMSS.mmmZ.frec       (the snapshot)
 *     Prints "planted N FIRST LAST" (the first and last stamps).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void stamp(char *buf, size_t len, unsigned long long ms)
{
	time_t secs = ms / 1000;
	struct tm tm;
	char s[32];

	gmtime_r(&secs, &tm);
	strftime(s, sizeof(s), "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, len, "%s.%03lluZ", s, ms % 1000);
}

int main(int argc, char **argv)
{
	unsigned long long now_ms, ms, end, n = 0;
	char path[4096], first[32], last[32];
	struct timespec ts;
	int temp;

	if (argc != 5 || (strcmp(argv[2], "temp") && strcmp(argv[2], "final")) || atoi(argv[4]) <= 0) {
		fprintf(stderr, "usage: plant_links DIR temp|final TARGET SECONDS\n");
		return 2;
	}
	temp = !strcmp(argv[2], "temp");
	clock_gettime(CLOCK_REALTIME, &ts);
	now_ms = ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
	end = now_ms + atoi(argv[4]) * 1000ull;
	for (ms = now_ms; ms <= end; ms++) {
		stamp(last, sizeof(last), ms);
		if (ms == now_ms)
			memcpy(first, last, sizeof(first));
		snprintf(path, sizeof(path), temp ? "%s/.frec-%s.frec.tmp" : "%s/frec-%s.frec",
			 argv[1], last);
		if (symlink(argv[3], path) && errno != EEXIST) {
			fprintf(stderr, "plant_links: %s: %s\n", path, strerror(errno));
			return 1;
		}
		n++;
	}
	printf("planted %llu %s %s\n", n, first, last);
	return 0;
}
