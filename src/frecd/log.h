/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's log: one line per message on stderr, with a UTC timestamp and a
 * level, so that it reads the same in a terminal and in the journal. -v adds
 * debug lines, including libbpf's own.
 *
 * Threads: any (the writer, /proc reader and reload detach threads log
 * too): each line is one fprintf. The level is set on main's thread at start
 * and the loop's on a reload.
 */
#ifndef FRECD_LOG_H
#define FRECD_LOG_H

#include <stdarg.h>

enum frecd_log_level {
	FRECD_LOG_ERROR = 0,
	FRECD_LOG_WARN,
	FRECD_LOG_INFO,
	FRECD_LOG_DEBUG,
};

/* Messages above level are dropped; default FRECD_LOG_INFO. */
void frecd_log__set_level(enum frecd_log_level level);
enum frecd_log_level frecd_log__level(void);

void frecd_log(enum frecd_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void frecd_vlog(enum frecd_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#define log_error(...)	frecd_log(FRECD_LOG_ERROR, __VA_ARGS__)
#define log_warn(...)	frecd_log(FRECD_LOG_WARN, __VA_ARGS__)
#define log_info(...)	frecd_log(FRECD_LOG_INFO, __VA_ARGS__)
#define log_debug(...)	frecd_log(FRECD_LOG_DEBUG, __VA_ARGS__)

/* Route libbpf's messages through the log (warnings always, debug with -v). */
void frecd_log__hook_libbpf(void);
/* Without -v, libbpf's warnings are kept, not shown: replay the last few as
 * errors (when frecd gives up), or forget them (when a fallback worked). */
void frecd_log__replay_libbpf(void);
void frecd_log__forget_libbpf(void);

#endif /* FRECD_LOG_H */
