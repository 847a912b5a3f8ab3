/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The functions probe_target calls, each in a file of its own so that each
 * can be built with its own prologue (tests/progs/Makefile.inc).
 */
#ifndef FREC_PROBE_TARGET_H
#define FREC_PROBE_TARGET_H

long frec_target_fp(long a, long b, long c);	/* a + b + c, push %rbp prologue */
long frec_target_nofp(long a, long b, long c);	/* a * b + c, no frame pointer */
long frec_lib_mul(long a, long b);		/* a * b, in libfrectarget.so */

#endif
