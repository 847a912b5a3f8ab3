// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Columns of report's text tables; see table.h. */
#include <stdio.h>
#include <frec/snapshot.h>
#include "json.h"
#include "table.h"

void frec_table__ms(struct frec_out *o, __u64 ns, int width)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%llu.%06llu", (unsigned long long)(ns / 1000000),
		 (unsigned long long)(ns % 1000000));
	frec_out__printf(o, "%*s", width, buf);
}

void frec_table__us(struct frec_out *o, __u64 ns, int width)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	frec_out__printf(o, "%*s", width, buf);
}

void frec_table__comm(struct frec_out *o, const char *comm, int width)
{
	size_t before;
	int used;

	/* the escaped comm must sit in the buffer whole to be measured */
	if (o->len + 4 * FREC_COMM_LEN + 8 > sizeof(o->buf))
		frec_out__flush(o);
	before = o->len;
	frec_text__str(o, comm, FREC_COMM_LEN);
	used = (int)(o->len - before);
	for (; used < width; used++)
		frec_out__char(o, ' ');
}
