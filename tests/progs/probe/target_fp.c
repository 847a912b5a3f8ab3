// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Built with -fno-omit-frame-pointer: the function starts with push %rbp,
 * which the kernel emulates when a uprobe hits it (the cheap case). gcc 12
 * sets up no frame at all for a function that never touches the stack, flag
 * or not; the volatile local gives it a stack slot, and so a frame.
 */
#include "target.h"

long frec_target_fp(long a, long b, long c)
{
	volatile long sum = a + b;

	return sum + c;
}
