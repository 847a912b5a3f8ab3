/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's own events, left out: its wakeups and probe hits would otherwise
 * be recorded and drained, and woken for, in a loop. frecd gives its tgid to
 * each object in a knob set between open and load; the knob is the
 * program's own, under the name its skeleton has always had (self_tgid in
 * frec.bpf.c, self_pid in probe.bpf.c), and these take its address (a
 * const volatile knob is read where it is used, as the programs always
 * read it). 0 means no process is frecd's.
 *
 * What a program does with a match (count it or not, the exceptions such as
 * sched_switch) is its own choice. Expects vmlinux.h and bpf_helpers.h first.
 */
#ifndef FREC_FILTER_SELF_BPF_H
#define FREC_FILTER_SELF_BPF_H

/* Whether process a or b is frecd's (b == a when the event concerns one). */
static __always_inline bool is_self(const volatile __u32 *self, __u32 a, __u32 b)
{
	return *self && (a == *self || b == *self);
}

/* Whether the current task is one of frecd's threads. */
static __always_inline bool current_is_self(const volatile __u32 *self)
{
	return *self && bpf_get_current_pid_tgid() >> 32 == *self;
}

#endif /* FREC_FILTER_SELF_BPF_H */
