/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The threads frec report lists, shared by its analyses: every thread that
 * some analysis counted something for, with its name and thread group, and
 * the command line of each process.
 *
 * Names, thread groups and command lines follow the newest generation that
 * names the thread or process (so after an exec, the program the process
 * became): the report calls frec_report_threads__refresh() once per
 * generation. A thread the walker's table does not name keeps what the
 * caller knew of it when it was added (a thread that ran before a skipped
 * generation), else "<...>".
 *
 * Indices are stable for the life of the table (0, 1, 2, ... in the order
 * threads are added), so an analysis keeps its numbers per thread in an
 * array by index. Not thread-safe: one table per report, on the thread
 * that walks the snapshot.
 */
#ifndef FREC_TOOLS_REPORT_THREADS_H
#define FREC_TOOLS_REPORT_THREADS_H

#include <stddef.h>
#include <frec/snapshot.h>

struct frec_walk;
struct frec_report_threads;

struct frec_report_thread {
	__u32 tid;
	__u32 tgid;
	char comm[FREC_COMM_LEN];
};

/* NULL on ENOMEM. The walker must outlive the table. */
struct frec_report_threads *frec_report_threads__new(struct frec_walk *w);
void frec_report_threads__free(struct frec_report_threads *t);

/* The index of tid, added when new. comm (may be NULL or empty) and tgid
 * are what the caller knows of the thread, used only when the walker's
 * table does not name it. The index, or -ENOMEM. */
int frec_report_threads__get(struct frec_report_threads *t, __u32 tid, const char *comm,
			     __u32 tgid);
size_t frec_report_threads__count(const struct frec_report_threads *t);
const struct frec_report_thread *frec_report_threads__at(const struct frec_report_threads *t,
							 size_t i);
/* The command line of process tgid, or NULL when none was recorded. */
const char *frec_report_threads__cmdline(const struct frec_report_threads *t, __u32 tgid);

/* Take names, thread groups and command lines from the walker's new
 * generation. A pointer cmdline() returned may be freed by it. */
void frec_report_threads__refresh(struct frec_report_threads *t);

#endif /* FREC_TOOLS_REPORT_THREADS_H */
