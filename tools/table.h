/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Columns of the text tables of frec report: durations as fixed-point
 * milliseconds or microseconds (ns precision, no floating point) and comms,
 * escaped as `frec dump` escapes them, each right- or left-aligned to a
 * width. Any thread may call them, on its own struct frec_out.
 */
#ifndef FREC_TOOLS_TABLE_H
#define FREC_TOOLS_TABLE_H

#include <linux/types.h>
#include "out.h"

/* ns as "12.345678" ms, right-aligned to width (0: no padding). */
void frec_table__ms(struct frec_out *o, __u64 ns, int width);
/* ns as "12.345" us, right-aligned to width (0: no padding). */
void frec_table__us(struct frec_out *o, __u64 ns, int width);
/* A comm (at most FREC_COMM_LEN bytes), escaped, left-aligned to width. */
void frec_table__comm(struct frec_out *o, const char *comm, int width);

#endif /* FREC_TOOLS_TABLE_H */
