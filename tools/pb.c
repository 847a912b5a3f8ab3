// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Protobuf writer with back-patched lengths; see pb.h. */
#include <errno.h>
#include <stdlib.h>
#include "pb.h"

void frec_pb__init(struct frec_pb *pb)
{
	memset(pb, 0, sizeof(*pb));
}

void frec_pb__fini(struct frec_pb *pb)
{
	free(pb->buf);
	memset(pb, 0, sizeof(*pb));
}

int frec_pb__reserve_slow(struct frec_pb *pb, size_t n)
{
	size_t ncap = pb->cap ? pb->cap : 4096;
	uint8_t *nb;

	if (pb->err)
		return pb->err;
	while (ncap < pb->len + n) {
		if (ncap > SIZE_MAX / 2) {
			pb->err = -ENOMEM;
			return pb->err;
		}
		ncap *= 2;
	}
	nb = realloc(pb->buf, ncap);
	if (!nb) {
		pb->err = -ENOMEM;
		return pb->err;
	}
	pb->buf = nb;
	pb->cap = ncap;
	return 0;
}

void frec_pb__bytes(struct frec_pb *pb, uint32_t field, const void *p, size_t n)
{
	if (frec_pb__reserve(pb, 20 + n))
		return;
	frec_pb__put_varint(pb, ((uint64_t)field << 3) | FREC_PB_LEN);
	frec_pb__put_varint(pb, n);
	if (n)
		memcpy(pb->buf + pb->len, p, n);
	pb->len += n;
}

void frec_pb__strn(struct frec_pb *pb, uint32_t field, const char *s, size_t max)
{
	size_t n = 0;

	while (s && n < max && s[n])
		n++;
	frec_pb__bytes(pb, field, s, n);
}

void frec_pb__begin(struct frec_pb *pb, uint32_t field)
{
	if (pb->depth >= FREC_PB_MAX_DEPTH) {
		pb->err = -EOVERFLOW;
		return;
	}
	if (frec_pb__reserve(pb, 11))
		return;
	frec_pb__put_varint(pb, ((uint64_t)field << 3) | FREC_PB_LEN);
	pb->stack[pb->depth++] = pb->len;
	pb->buf[pb->len++] = 0;	/* one length byte; end() makes room if needed */
}

void frec_pb__end(struct frec_pb *pb)
{
	size_t at, n, k;

	if (!pb->depth) {
		pb->err = -EINVAL;
		return;
	}
	at = pb->stack[--pb->depth];
	if (pb->err)
		return;
	n = pb->len - at - 1;
	k = frec_pb__varint_len(n);
	if (k > 1) {
		if (frec_pb__reserve(pb, k - 1))
			return;
		memmove(pb->buf + at + k, pb->buf + at + 1, n);
		pb->len += k - 1;
	}
	/* write the varint into its slot without moving len */
	{
		uint8_t *p = pb->buf + at;
		uint64_t v = n;

		while (v >= 0x80) {
			*p++ = (uint8_t)(v | 0x80);
			v >>= 7;
		}
		*p = (uint8_t)v;
	}
}
