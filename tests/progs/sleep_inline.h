/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sleep_ns(): nanosleep() with the system call made in the caller's own
 * code (inline on x86-64), for the stack tests' programs: through libc,
 * whose wrapper has no frame pointer, a frame-pointer walk would skip the
 * caller (the wrapper's return address is not on the frame chain).
 * Expects <time.h> and <sys/syscall.h>.
 */
#ifndef FREC_TEST_SLEEP_INLINE_H
#define FREC_TEST_SLEEP_INLINE_H

static inline __attribute__((always_inline)) long sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
#if defined(__x86_64__)
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "0"((long)SYS_nanosleep), "D"(&ts), "S"(&ts)
			     : "rcx", "r11", "memory");
	return ret;
#else
	return nanosleep(&ts, &ts);
#endif
}

#endif /* FREC_TEST_SLEEP_INLINE_H */
