/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tools' output stream: a fixed buffer in front of a FILE, optionally
 * gzip-compressed on the way (frec export --gzip). Formatting integers and
 * strings by hand into the buffer is several times faster than fprintf,
 * which matters for exports of millions of events. Errors are sticky: check
 * frec_out__close() (or frec_out__error()) once at the end.
 */
#ifndef FREC_TOOLS_OUT_H
#define FREC_TOOLS_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FREC_OUT_BUF	(64 * 1024)

struct frec_out {
	FILE *f;
	void *z;		/* z_stream when gzip, else NULL */
	unsigned char *zbuf;
	size_t len;
	int err;		/* first error, -errno */
	uint64_t bytes;		/* bytes handed to the FILE (compressed if gzip) */
	unsigned char buf[FREC_OUT_BUF];
};

/* Returns NULL with errno set. The FILE stays owned by the caller. */
struct frec_out *frec_out__new(FILE *f, bool gzip);
/* Flush (and finish the gzip stream), free; returns 0 or the first -errno.
 * bytes (may be NULL) gets the bytes written to the FILE. */
int frec_out__close(struct frec_out *o, uint64_t *bytes);
int frec_out__flush(struct frec_out *o);
static inline int frec_out__error(const struct frec_out *o) { return o->err; }

void frec_out__write_slow(struct frec_out *o, const void *p, size_t n);

static inline void frec_out__write(struct frec_out *o, const void *p, size_t n)
{
	if (!n)
		return;		/* p may be NULL then (an empty buffer) */
	if (o->len + n <= sizeof(o->buf)) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return;
	}
	frec_out__write_slow(o, p, n);
}

static inline void frec_out__char(struct frec_out *o, char c)
{
	if (o->len == sizeof(o->buf))
		frec_out__flush(o);
	o->buf[o->len++] = (unsigned char)c;
}

static inline void frec_out__str(struct frec_out *o, const char *s)
{
	frec_out__write(o, s, strlen(s));
}

void frec_out__u64(struct frec_out *o, uint64_t v);
void frec_out__s64(struct frec_out *o, int64_t v);
/* v ns as seconds with 9 decimals: "12.000345678" */
void frec_out__secs(struct frec_out *o, uint64_t ns);
/* v ns as microseconds with 3 decimals: "12.345" (Chrome JSON ts) */
void frec_out__usecs(struct frec_out *o, uint64_t ns);
void frec_out__printf(struct frec_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* FREC_TOOLS_OUT_H */
