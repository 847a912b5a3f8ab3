// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Buffered (and optionally gzip-compressed) output; see out.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <zlib.h>
#include "out.h"

#define ZBUF_LEN	(128 * 1024)

struct frec_out *frec_out__new(FILE *f, bool gzip)
{
	struct frec_out *o = calloc(1, sizeof(*o));
	z_stream *z;

	if (!o)
		return NULL;
	o->f = f;
	if (!gzip)
		return o;
	z = calloc(1, sizeof(*z));
	o->zbuf = malloc(ZBUF_LEN);
	/* windowBits 15 + 16 asks zlib for a gzip wrapper, which Perfetto's
	 * UI and trace_processor both open. Level 1: exports are large and the
	 * fastest level already shrinks varint-packed traces a lot. */
	if (!z || !o->zbuf ||
	    deflateInit2(z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		free(o->zbuf);
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	o->z = z;
	return o;
}

static void sink(struct frec_out *o, const void *p, size_t n)
{
	if (o->err || !n)
		return;
	if (fwrite(p, 1, n, o->f) != n) {
		o->err = errno ? -errno : -EIO;
		return;
	}
	o->bytes += n;
}

static void deflate_some(struct frec_out *o, const void *p, size_t n, int flush)
{
	z_stream *z = o->z;
	int rc;

	z->next_in = (Bytef *)p;
	z->avail_in = (uInt)n;
	do {
		z->next_out = o->zbuf;
		z->avail_out = ZBUF_LEN;
		rc = deflate(z, flush);
		if (rc == Z_STREAM_ERROR) {
			o->err = -EIO;
			return;
		}
		sink(o, o->zbuf, ZBUF_LEN - z->avail_out);
	} while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

int frec_out__flush(struct frec_out *o)
{
	if (o->len) {
		if (o->z)
			deflate_some(o, o->buf, o->len, Z_NO_FLUSH);
		else
			sink(o, o->buf, o->len);
		o->len = 0;
	}
	return o->err;
}

void frec_out__write_slow(struct frec_out *o, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n) {
		size_t k = sizeof(o->buf) - o->len;

		if (!k) {
			frec_out__flush(o);
			continue;
		}
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, c, k);
		o->len += k;
		c += k;
		n -= k;
	}
}

int frec_out__close(struct frec_out *o, uint64_t *bytes)
{
	int err;

	if (!o)
		return 0;
	frec_out__flush(o);
	if (o->z) {
		if (!o->err)
			deflate_some(o, NULL, 0, Z_FINISH);
		deflateEnd(o->z);
		free(o->z);
		free(o->zbuf);
	}
	if (!o->err && fflush(o->f))
		o->err = errno ? -errno : -EIO;
	if (bytes)
		*bytes = o->bytes;
	err = o->err;
	free(o);
	return err;
}

void frec_out__u64(struct frec_out *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	frec_out__write(o, tmp + i, sizeof(tmp) - (size_t)i);
}

void frec_out__s64(struct frec_out *o, int64_t v)
{
	if (v < 0) {
		frec_out__char(o, '-');
		frec_out__u64(o, (uint64_t)0 - (uint64_t)v);
		return;
	}
	frec_out__u64(o, (uint64_t)v);
}

static void frac(struct frec_out *o, uint64_t v, int digits)
{
	char tmp[9];
	int i;

	for (i = digits - 1; i >= 0; i--) {
		tmp[i] = (char)('0' + v % 10);
		v /= 10;
	}
	frec_out__write(o, tmp, (size_t)digits);
}

void frec_out__secs(struct frec_out *o, uint64_t ns)
{
	frec_out__u64(o, ns / 1000000000ull);
	frec_out__char(o, '.');
	frac(o, ns % 1000000000ull, 9);
}

void frec_out__usecs(struct frec_out *o, uint64_t ns)
{
	frec_out__u64(o, ns / 1000);
	frec_out__char(o, '.');
	frac(o, ns % 1000, 3);
}

void frec_out__printf(struct frec_out *o, const char *fmt, ...)
{
	char small[256], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		frec_out__write(o, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		o->err = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	frec_out__write(o, big, (size_t)n);
	free(big);
}
