/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a task_struct from a tracepoint program, on every kernel with BTF:
 * the fields are found through CO-RE, and the ones that moved or changed
 * type between kernels are read through CO-RE "flavours". Each helper takes
 * btf, a constant once inlined: true in a tp_btf program, whose task
 * pointers are typed and may be dereferenced, false in a raw_tp one, which
 * must read through bpf_probe_read_kernel(). See RD().
 *
 * For any program attached to a tracepoint or raw tracepoint, and with btf
 * false for any other (a probe's, reading bpf_get_current_task()); no
 * maps, no knobs. Like every header here, it expects vmlinux.h, bpf_helpers.h and
 * bpf_core_read.h first.
 */
#ifndef FREC_TASK_BPF_H
#define FREC_TASK_BPF_H

#include "frec/record.h"

/*
 * Kernel drift, handled with CO-RE "flavours" (the ___suffix is ignored when
 * matching against the running kernel's BTF):
 * - 5.14, "sched: Change task_struct::state": state became __state (unsigned int).
 * - 5.16, "sched: move CPU field back into thread_info if THREAD_INFO_IN_TASK":
 *   task_cpu() reads thread_info.cpu; before, task_struct::cpu.
 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/*
 * Field f of the kernel object p points to. btf is a constant in every
 * caller once inlined: true in the tp_btf programs, where p is a typed
 * pointer from the tracepoint's arguments and a plain load does (the
 * verifier turns it into a fault-safe one); false in the raw_tp ones, where p
 * is just a number to the verifier and every read is a helper call. The
 * member offsets are CO-RE relocated either way. Measured on sched_switch:
 * the seven helper calls it made were a visible part of frec's cost.
 */
#define RD(btf, p, f) ((btf) ? (p)->f : BPF_CORE_READ(p, f))

/*
 * A task's comm into dst (FREC_COMM_LEN bytes, 8-aligned in every record):
 * in tp_btf, two plain 8-byte loads, which the verifier allows inside a char
 * array of a typed pointer; in raw_tp, one bpf_probe_read_kernel(). The
 * kernel keeps comm NUL-terminated and NUL-padded, as the helper would copy it.
 */
static __always_inline void read_comm(char *dst, struct task_struct *p, const bool btf)
{
	if (btf) {
		((__u64 *)dst)[0] = *(const __u64 *)&p->comm[0];
		((__u64 *)dst)[1] = *(const __u64 *)&p->comm[8];
	} else {
		BPF_CORE_READ_INTO((char (*)[FREC_COMM_LEN])dst, p, comm);
	}
}

/* The task's state bits (__state since 5.14, state before). */
static __always_inline unsigned int task_state(struct task_struct *t, const bool btf)
{
	if (bpf_core_field_exists(t->__state))
		return RD(btf, t, __state);
	return RD(btf, (struct task_struct___pre514 *)t, state);
}

/* The CPU the task is on, or last ran on (thread_info.cpu since 5.16). */
static __always_inline __u32 task_cpu(struct task_struct *t, const bool btf)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return RD(btf, t, thread_info.cpu);
	return RD(btf, (struct task_struct___pre516 *)t, cpu);
}

/*
 * Which program t runs (struct frec_rec_stack, struct frec_rec_exec): its
 * process leader's start_time and its self_exec_id. self_exec_id is one
 * more at each exec (begin_new_exec()), 64 bits since 5.7 ("signal: Extend
 * exec_id to 64bits"); a thread that execs out of a non-leader takes the
 * leader's start_time (de_thread()). So the pair changes at every exec
 * and with every new process under a pid, and is the same for all the
 * threads of one program.
 */
static __always_inline void task_program(struct task_struct *t, const bool btf,
					 __u64 *proc_start_ns, __u64 *exec_id)
{
	struct task_struct *leader = RD(btf, t, group_leader);

	*proc_start_ns = RD(btf, leader, start_time);
	*exec_id = RD(btf, t, self_exec_id);
}

#endif /* FREC_TASK_BPF_H */
