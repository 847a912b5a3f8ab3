// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Built with -fomit-frame-pointer -O2: the first instruction is arithmetic,
 * which a uprobe must single-step out of line (the expensive case).
 */
#include "target.h"

long frec_target_nofp(long a, long b, long c)
{
	return a * b + c;
}
