// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "frecd/log.h"

/* Read by every thread that logs and written by a reload on the loop's:
 * relaxed atomic loads and stores, so that sharing it is no data race. */
static int log_level = FRECD_LOG_INFO;

static enum frecd_log_level level_now(void)
{
	return (enum frecd_log_level)__atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

static const char *const level_names[] = {
	[FRECD_LOG_ERROR] = "error",
	[FRECD_LOG_WARN] = "warn",
	[FRECD_LOG_INFO] = "info",
	[FRECD_LOG_DEBUG] = "debug",
};

void frecd_log__set_level(enum frecd_log_level level)
{
	__atomic_store_n(&log_level, (int)level, __ATOMIC_RELAXED);
}

enum frecd_log_level frecd_log__level(void)
{
	return level_now();
}

void frecd_vlog(enum frecd_log_level level, const char *fmt, va_list ap)
{
	char line[1024], stamp[32];
	struct timespec ts;
	struct tm tm;
	size_t n;
	int len;

	if (level > level_now())
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	if (len < 0)
		return;
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	/* one fprintf so that lines from the writer thread do not interleave */
	fprintf(stderr, "%s.%03ldZ frecd %s: %s\n", stamp, ts.tv_nsec / 1000000,
		level_names[level], line);
}

void frecd_log(enum frecd_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	frecd_vlog(level, fmt, ap);
	va_end(ap);
}

/* The last libbpf warnings, when they are not shown (no -v). libbpf may
 * warn on the reload's detach thread too. */
#define KEPT_LINES	12
static char kept[KEPT_LINES][256];
static unsigned int kept_count;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void keep_warning(const char *fmt, va_list ap)
{
	char *line;
	size_t n;

	pthread_mutex_lock(&kept_lock);
	line = kept[kept_count % KEPT_LINES];
	vsnprintf(line, sizeof(kept[0]), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	if (n)
		kept_count++;
	pthread_mutex_unlock(&kept_lock);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	enum frecd_log_level l;

	switch (level) {
	case LIBBPF_WARN: l = FRECD_LOG_WARN; break;
	case LIBBPF_INFO: l = FRECD_LOG_DEBUG; break;
	default: l = FRECD_LOG_DEBUG; break;
	}
	/* libbpf warns about every failed tp_btf load before frecd falls back
	 * to raw_tp; those are details, shown with -v only, but kept so that
	 * they can be shown when frecd gives up. */
	if (l == FRECD_LOG_WARN && level_now() < FRECD_LOG_DEBUG) {
		keep_warning(fmt, ap);
		return 0;
	}
	frecd_vlog(l, fmt, ap);
	return 0;
}

void frecd_log__replay_libbpf(void)
{
	unsigned int i, n;

	pthread_mutex_lock(&kept_lock);
	n = kept_count < KEPT_LINES ? kept_count : KEPT_LINES;
	for (i = kept_count - n; i < kept_count; i++)
		frecd_log(FRECD_LOG_ERROR, "libbpf: %s", kept[i % KEPT_LINES]);
	kept_count = 0;
	pthread_mutex_unlock(&kept_lock);
}

void frecd_log__forget_libbpf(void)
{
	pthread_mutex_lock(&kept_lock);
	kept_count = 0;
	pthread_mutex_unlock(&kept_lock);
}

void frecd_log__hook_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
