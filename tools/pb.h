/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tiny protobuf writer, enough to hand-encode Perfetto traces without a
 * protobuf library: varints, tags, scalar fields, strings, and nested
 * (length-delimited) messages whose length is back-patched when they end.
 * Nested messages and packed arrays are written in place: begin() writes the
 * tag and a one-byte length, end() rewrites the length and, when it needs
 * more bytes, moves the payload up. The output is canonical protobuf.
 * The buffer grows by doubling; an allocation failure is sticky (err).
 */
#ifndef FREC_TOOLS_PB_H
#define FREC_TOOLS_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FREC_PB_MAX_DEPTH	16

enum frec_pb_wire {
	FREC_PB_VARINT = 0,
	FREC_PB_I64 = 1,
	FREC_PB_LEN = 2,
	FREC_PB_I32 = 5,
};

struct frec_pb {
	uint8_t *buf;
	size_t len;
	size_t cap;
	size_t stack[FREC_PB_MAX_DEPTH];	/* offsets of open length bytes */
	unsigned int depth;
	int err;				/* -ENOMEM, -EOVERFLOW (depth) */
};

void frec_pb__init(struct frec_pb *pb);
void frec_pb__fini(struct frec_pb *pb);
/* Forget the content, keep the memory. */
static inline void frec_pb__reset(struct frec_pb *pb)
{
	pb->len = 0;
	pb->depth = 0;
}
int frec_pb__reserve_slow(struct frec_pb *pb, size_t n);

static inline int frec_pb__reserve(struct frec_pb *pb, size_t n)
{
	if (pb->len + n <= pb->cap)
		return 0;
	return frec_pb__reserve_slow(pb, n);
}

static inline size_t frec_pb__varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Callers must have reserved 10 bytes. */
static inline void frec_pb__put_varint(struct frec_pb *pb, uint64_t v)
{
	uint8_t *p = pb->buf + pb->len;

	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	pb->len = (size_t)(p - pb->buf);
}

static inline void frec_pb__varint(struct frec_pb *pb, uint64_t v)
{
	if (frec_pb__reserve(pb, 10))
		return;
	frec_pb__put_varint(pb, v);
}

static inline void frec_pb__tag(struct frec_pb *pb, uint32_t field, enum frec_pb_wire w)
{
	frec_pb__varint(pb, ((uint64_t)field << 3) | w);
}

/* uint32/uint64/bool/enum field */
static inline void frec_pb__uint(struct frec_pb *pb, uint32_t field, uint64_t v)
{
	if (frec_pb__reserve(pb, 20))
		return;
	frec_pb__put_varint(pb, ((uint64_t)field << 3) | FREC_PB_VARINT);
	frec_pb__put_varint(pb, v);
}

/* int32/int64 field: negative values take ten bytes, as protobuf says
 * (sign-extended to 64 bits, not zigzag). */
static inline void frec_pb__int(struct frec_pb *pb, uint32_t field, int64_t v)
{
	frec_pb__uint(pb, field, (uint64_t)v);
}

void frec_pb__bytes(struct frec_pb *pb, uint32_t field, const void *p, size_t n);
static inline void frec_pb__string(struct frec_pb *pb, uint32_t field, const char *s)
{
	frec_pb__bytes(pb, field, s, s ? strlen(s) : 0);
}
/* A string of at most max bytes (stops at NUL): for fixed char arrays. */
void frec_pb__strn(struct frec_pb *pb, uint32_t field, const char *s, size_t max);

/* Open a nested message or packed array as field; end() closes the latest. */
void frec_pb__begin(struct frec_pb *pb, uint32_t field);
void frec_pb__end(struct frec_pb *pb);

#endif /* FREC_TOOLS_PB_H */
