/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Deflated blocks for tests and fuzzing seeds. The recorder stores its
 * blocks, but readers must keep reading deflated ones (docs/FORMAT.md,
 * "Blocks": the recorder could once write them, and such files exist), so
 * the files that exercise that path are made here, from stored ones:
 *
 *   synth_deflate_block(raw, raw_len, events_len, claim, level, memlevel, &len)
 *        a well-formed deflated block (both CRCs right) of the raw payload,
 *        whose header says it inflates to claim bytes; NULL on failure
 *   synth_deflate_file(path, level)
 *        rewrite every stored block of the snapshot at path as a deflated
 *        one, byte for byte what the recorder's compress_level wrote at
 *        that level (zlib's raw DEFLATE, memLevel 8, default strategy);
 *        0 or -errno
 *
 * Header-only (static functions), needs zlib and the core's format.h and
 * varint.h; no cmocka, so that tests/fuzz/gen_corpus.c can use it too. Any
 * thread.
 */
#ifndef FREC_TEST_SYNTH_DEFLATE_H
#define FREC_TEST_SYNTH_DEFLATE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "core/format.h"
#include "core/varint.h"

/* The recorder's stream: raw DEFLATE (no zlib or gzip wrapper). */
#define SYNTH_DEFLATE_WBITS	(-15)
#define SYNTH_DEFLATE_MEMLEVEL	8

static inline uint8_t *synth_deflate_block(const uint8_t *raw, size_t raw_len, size_t events_len,
					   size_t claim, int level, int memlevel, size_t *len)
{
	z_stream zs = { 0 };
	uint8_t *b = NULL;
	uLong cap;

	if (deflateInit2(&zs, level, Z_DEFLATED, SYNTH_DEFLATE_WBITS, memlevel,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&zs, raw_len);
	b = malloc(BLOCK_HDR_LEN + cap);
	if (!b)
		goto out;
	zs.next_in = (Bytef *)raw;
	zs.avail_in = (uInt)raw_len;
	zs.next_out = b + BLOCK_HDR_LEN;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		free(b);
		b = NULL;
		goto out;
	}
	memcpy(b, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	put_le32(b + BLOCK_OFF_FLAGS, BLOCK_COMP_DEFLATE);
	put_le32(b + BLOCK_OFF_PAYLOAD, (uint32_t)zs.total_out);
	put_le32(b + BLOCK_OFF_RAW, (uint32_t)claim);
	put_le32(b + BLOCK_OFF_EVENTS, (uint32_t)events_len);
	put_le32(b + BLOCK_OFF_PCRC, (uint32_t)crc32(0, b + BLOCK_HDR_LEN, (uInt)zs.total_out));
	put_le32(b + BLOCK_OFF_HCRC, (uint32_t)crc32(0, b, BLOCK_OFF_HCRC));
	*len = BLOCK_HDR_LEN + zs.total_out;
out:
	deflateEnd(&zs);
	return b;
}

/* Room for n more bytes at *len in *buf; 0 or -ENOMEM. */
static inline int synth_room(uint8_t **buf, size_t *cap, size_t len, size_t n)
{
	size_t ncap = *cap ? *cap : 1 << 16;
	uint8_t *p;

	while (ncap - len < n)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	p = realloc(*buf, ncap);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

/* The whole of f into a new buffer; 0 or -errno. */
static inline int synth_slurp(FILE *f, uint8_t **bufp, size_t *lenp)
{
	uint8_t *buf = NULL;
	size_t cap = 0, len = 0, n;

	do {
		if (synth_room(&buf, &cap, len, 1 << 16)) {
			free(buf);
			return -ENOMEM;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/*
 * Every block of a snapshot just written, stored, becomes deflated; the file
 * header is kept. A file that is not a well-formed snapshot of stored blocks
 * gives -EBADMSG and is left as it was.
 */
static inline int synth_deflate_file(const char *path, int level)
{
	uint8_t *in = NULL, *out = NULL, *blk;
	size_t len, pos, olen = 0, ocap = 0, blen;
	FILE *f = fopen(path, "rb");
	int err;

	if (!f)
		return -errno;
	err = synth_slurp(f, &in, &len);
	fclose(f);
	if (err)
		return err;
	err = -EBADMSG;
	if (len < FILE_PREFIX_LEN || memcmp(in, FILE_MAGIC, FILE_MAGIC_LEN))
		goto out;
	pos = FILE_PREFIX_LEN + get_le32(in + 12) + 4;
	if (pos > len)
		goto out;
	if ((err = synth_room(&out, &ocap, 0, pos)))
		goto out;
	memcpy(out, in, pos);
	olen = pos;
	while (pos < len) {
		const uint8_t *h = in + pos;
		uint32_t plen;

		err = -EBADMSG;
		if (len - pos < BLOCK_HDR_LEN || memcmp(h, BLOCK_MAGIC, BLOCK_MAGIC_LEN) ||
		    get_le32(h + BLOCK_OFF_FLAGS) != BLOCK_COMP_NONE)
			goto out;
		plen = get_le32(h + BLOCK_OFF_PAYLOAD);
		if (plen > len - pos - BLOCK_HDR_LEN)
			goto out;
		err = -ENOMEM;
		blk = synth_deflate_block(h + BLOCK_HDR_LEN, plen, get_le32(h + BLOCK_OFF_EVENTS),
					  plen, level, SYNTH_DEFLATE_MEMLEVEL, &blen);
		if (!blk)
			goto out;
		if ((err = synth_room(&out, &ocap, olen, blen))) {
			free(blk);
			goto out;
		}
		memcpy(out + olen, blk, blen);
		free(blk);
		olen += blen;
		pos += BLOCK_HDR_LEN + plen;
	}
	f = fopen(path, "wb");
	if (!f) {
		err = -errno;
		goto out;
	}
	err = fwrite(out, 1, olen, f) == olen ? 0 : -EIO;
	if (fclose(f) && !err)
		err = -EIO;
out:
	free(in);
	free(out);
	return err;
}

#endif /* FREC_TEST_SYNTH_DEFLATE_H */
