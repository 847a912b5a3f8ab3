// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libfrectarget.so: a shared library of the probe tests' own, so that a
 * library function can be probed by library name and by path, with exact
 * counts (nothing else on the machine calls it).
 */
#include "target.h"

long frec_lib_mul(long a, long b)
{
	return a * b;
}
