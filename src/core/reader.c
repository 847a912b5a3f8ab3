// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot reader. It streams: one buffer for the input (a whole block
 * at most), one for the inflated generation, and tables reused from one
 * generation to the next. Every length and count is checked against the
 * bytes actually there (inflated ones for a deflated block) before anything
 * is allocated or read, buffers grow with what is really read or inflated,
 * never with what a block claims, every block's CRCs are checked before it
 * is inflated, and a damaged block is skipped by scanning for the next block
 * magic. Any input gives a result or an error code, never a crash: the
 * fuzzers feed it garbage.
 *
 * This file reads the file: its header, then block by block (framing,
 * CRCs, resynchronisation after damage, inflating); a block's content is
 * parsed in reader_gen.c and its events decoded in reader_events.c. A
 * reader is used by one thread at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include <frec/snapshot.h>
#include "crc32.h"
#include "format.h"
#include "reader_int.h"
#include "varint.h"

#define IN_MIN_CAP (64u << 10)

struct frec_reader {
	int fd;
	struct frec_header hdr;
	uint8_t *buf;
	size_t pos, len, cap;
	bool eof, done, resync;
	uint64_t damaged;
	z_stream zs;
	bool zs_ready;
	ZSTD_DCtx *zd;		/* made at the first zstd block */
	uint8_t *raw;
	size_t raw_cap;
	struct frec_gen gen;
};

/* --- input ---------------------------------------------------------------- */

/* Make need bytes available at buf + pos: 0, -ENODATA at end of file, or
 * -errno. The buffer grows only once it is full of real data, so a lying
 * length costs at most twice the bytes the input really has. */
static int in_need(struct frec_reader *r, size_t need)
{
	while (r->len - r->pos < need) {
		ssize_t n;

		if (r->eof)
			return -ENODATA;
		if (r->len == r->cap) {
			if (r->pos) {
				memmove(r->buf, r->buf + r->pos, r->len - r->pos);
				r->len -= r->pos;
				r->pos = 0;
				continue;
			}
			if (grow(&r->buf, &r->cap, r->cap ? r->cap * 2 : IN_MIN_CAP, 1))
				return -ENOMEM;
		}
		n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			r->eof = true;
		r->len += (size_t)n;
	}
	return 0;
}

static bool is_prefix(const uint8_t *p, size_t n, const char *magic, size_t mlen)
{
	return !memcmp(p, magic, n < mlen ? n : mlen);
}

static int read_header(struct frec_reader *r)
{
	const uint8_t *b;
	uint32_t version, body;
	int err;

	err = in_need(r, FILE_PREFIX_LEN);
	if (err == -ENODATA)
		return is_prefix(r->buf + r->pos, r->len - r->pos, FILE_MAGIC, FILE_MAGIC_LEN) ?
			       -ENODATA : -EBADMSG;
	if (err)
		return err;
	b = r->buf + r->pos;
	if (memcmp(b, FILE_MAGIC, FILE_MAGIC_LEN))
		return -EBADMSG;
	version = get_le32(b + 8);
	body = get_le32(b + 12);
	if (!version)
		return -EBADMSG;
	if (version > FREC_FORMAT_VERSION)
		return -EPROTONOSUPPORT;
	if (body > FILE_BODY_MAX)
		return -EBADMSG;
	err = in_need(r, FILE_PREFIX_LEN + body + 4);
	if (err)
		return err;
	b = r->buf + r->pos;
	if (frec_crc32(0, b + FILE_MAGIC_LEN, 8 + body) != get_le32(b + FILE_PREFIX_LEN + body))
		return -EBADMSG;
	err = header_decode(b + FILE_PREFIX_LEN, body, &r->hdr);
	if (err)
		return err;
	r->hdr.version = version;
	r->pos += FILE_PREFIX_LEN + body + 4;
	return 0;
}

int frec_reader__open_fd(int fd, struct frec_reader **rp)
{
	struct frec_reader *r;
	int err;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	if (inflateInit2(&r->zs, -15) != Z_OK) {
		frec_reader__free(r);
		return -ENOMEM;
	}
	r->zs_ready = true;
	err = read_header(r);
	if (err) {
		frec_reader__free(r);
		return err;
	}
	*rp = r;
	return 0;
}

int frec_reader__open(const char *path, struct frec_reader **rp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*rp = NULL;
		return -errno;
	}
	return frec_reader__open_fd(fd, rp);
}

const struct frec_header *frec_reader__header(const struct frec_reader *r)
{
	return &r->hdr;
}

__u64 frec_reader__damaged(const struct frec_reader *r)
{
	return r->damaged;
}

void frec_reader__free(struct frec_reader *r)
{
	struct frec_gen *g;

	if (!r)
		return;
	g = &r->gen;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_ready)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->zd);
	free(r->buf);
	free(r->raw);
	gen_free(g);
	free(r);
}

/* --- generations ---------------------------------------------------------- */

/* Skip to the next block magic. 1 found, 0 end of file, -errno. */
static int resync(struct frec_reader *r)
{
	for (;;) {
		size_t avail = r->len - r->pos;
		int err;

		if (avail >= BLOCK_MAGIC_LEN) {
			const uint8_t *m = memmem(r->buf + r->pos, avail, BLOCK_MAGIC, BLOCK_MAGIC_LEN);

			if (m) {
				r->pos = (size_t)(m - r->buf);
				r->resync = false;
				return 1;
			}
			/* Keep what may be the start of a magic. */
			r->pos = r->len - (BLOCK_MAGIC_LEN - 1);
			avail = BLOCK_MAGIC_LEN - 1;
		}
		err = in_need(r, avail + 1);
		if (err == -ENODATA) {
			r->pos = r->len;
			return 0;
		}
		if (err)
			return err;
	}
}

/* Room for cap bytes of output in r->raw: exactly cap, since the callers
 * double it themselves and a power of two above the block's size would
 * waste up to half of it. */
static int raw_reserve(struct frec_reader *r, size_t cap)
{
	uint8_t *b;

	if (cap <= r->raw_cap)
		return 0;
	b = realloc(r->raw, cap);
	if (!b)
		return -ENOMEM;
	r->raw = b;
	r->raw_cap = cap;
	return 0;
}

/* The first output buffer for comp bytes that claim raw: what the input
 * could plausibly make, grown as the stream really produces more. */
static size_t raw_first_cap(uint32_t comp, uint32_t raw)
{
	size_t cap = (size_t)comp * 4 + IN_MIN_CAP;

	return cap > raw ? raw : cap;
}

/* Inflate comp bytes that claim to make exactly raw bytes. The buffer grows
 * with the output actually produced, from a guess of a few times comp, so a
 * block that claims far more than it makes costs what it makes. */
static int inflate_block(struct frec_reader *r, const uint8_t *in, uint32_t comp, uint32_t raw)
{
	size_t out = 0, cap = raw_first_cap(comp, raw);
	int rc;

	if (!raw)
		return -EBADMSG;	/* no room even for the summary */
	inflateReset(&r->zs);
	r->zs.next_in = (Bytef *)in;
	r->zs.avail_in = comp;
	for (;;) {
		if (cap > raw)
			cap = raw;
		if (raw_reserve(r, cap))
			return -ENOMEM;
		r->zs.next_out = r->raw + out;
		r->zs.avail_out = (uInt)(cap - out);
		rc = inflate(&r->zs, Z_NO_FLUSH);
		out = cap - r->zs.avail_out;
		if (rc == Z_STREAM_END)
			break;
		/* More output than claimed, or a stream that stops short. */
		if (rc != Z_OK || out == raw)
			return -EBADMSG;
		if (out == cap)
			cap *= 2;
	}
	if (out != raw || r->zs.avail_in)
		return -EBADMSG;
	return 0;
}

/*
 * The frame header of a zstd block (RFC 8878, 3.1.1.1), checked before
 * libzstd sees the frame: the standard magic (not a skippable frame, nor
 * the legacy formats some libzstd builds still decode, which size their
 * buffers from the frame and ignore any window bound), no dictionary, no
 * reserved bit, a content size equal to raw, and a window of at most
 * 2^BLOCK_ZSTD_WINDOW_LOG (a single-segment frame's window is its content
 * size). libzstd checks the window only on its streaming path, which a
 * frame that fits the first output buffer never takes.
 */
static bool zstd_header_ok(const uint8_t *in, uint32_t comp, uint32_t raw)
{
	uint64_t window = 0, size = 0;
	unsigned fcs_flag, nsize;
	size_t pos = 5;
	bool single;
	uint8_t d;

	if (comp < 6 || get_le32(in) != ZSTD_MAGICNUMBER)
		return false;
	d = in[4];
	if (d & 0x0b)		/* reserved bit 3, dictionary id bits 0-1 */
		return false;
	single = d & 0x20;
	fcs_flag = d >> 6;
	if (!single) {
		unsigned log = 10 + (in[pos] >> 3);

		window = (1ull << log) + ((1ull << log) >> 3) * (in[pos] & 7);
		pos++;
	}
	nsize = fcs_flag ? 1u << fcs_flag : single;
	if (!nsize || pos + nsize > comp)
		return false;	/* the writer always says the content size */
	for (unsigned i = 0; i < nsize; i++)
		size |= (uint64_t)in[pos + i] << (8 * i);
	if (nsize == 2)
		size += 256;
	if (single)
		window = size;
	return size == raw && window <= (1ull << BLOCK_ZSTD_WINDOW_LOG);
}

/*
 * A zstd block: one frame that makes exactly raw bytes and ends exactly at
 * comp, its header as zstd_header_ok() wants it, so that the decoder's own
 * memory is bounded too (the window and zstd's buffers, some 1.4 MiB at
 * most); like inflate_block(), the output grows only with what the frame
 * really produces.
 */
static int zstd_block(struct frec_reader *r, const uint8_t *in, uint32_t comp, uint32_t raw)
{
	ZSTD_inBuffer zin = { in, comp, 0 };
	size_t cap = raw_first_cap(comp, raw);
	ZSTD_outBuffer zout;
	size_t rc;

	if (!raw || !zstd_header_ok(in, comp, raw))
		return -EBADMSG;
	if (!r->zd) {
		r->zd = ZSTD_createDCtx();
		if (!r->zd || ZSTD_isError(ZSTD_DCtx_setParameter(r->zd, ZSTD_d_windowLogMax,
								   BLOCK_ZSTD_WINDOW_LOG))) {
			ZSTD_freeDCtx(r->zd);
			r->zd = NULL;
			return -ENOMEM;
		}
	}
	/* a new frame; the window bound set at creation stays */
	ZSTD_DCtx_reset(r->zd, ZSTD_reset_session_only);
	zout.pos = 0;
	for (;;) {
		size_t in0 = zin.pos, out0 = zout.pos;

		if (raw_reserve(r, cap))
			return -ENOMEM;
		zout.dst = r->raw;
		zout.size = cap;
		rc = ZSTD_decompressStream(r->zd, &zout, &zin);
		if (ZSTD_isError(rc))
			return ZSTD_getErrorCode(rc) == ZSTD_error_memory_allocation ? -ENOMEM
										    : -EBADMSG;
		if (!rc)
			break;		/* the frame is complete */
		if (zout.pos == cap && cap < raw) {
			cap = cap * 2 > raw ? raw : cap * 2;
			continue;
		}
		/* Stuck: a frame that stops short, or one that would make more
		 * than raw bytes. */
		if (zin.pos == in0 && zout.pos == out0)
			return -EBADMSG;
	}
	if (zout.pos != raw || zin.pos != zin.size)
		return -EBADMSG;
	return 0;
}

/* A damaged block at pos: count it, resynchronise from the next byte. */
static int damaged_here(struct frec_reader *r)
{
	r->damaged++;
	r->pos++;
	r->resync = true;
	return -EBADMSG;
}

/* The input ends inside a block: count it, nothing more to read. */
static int truncated(struct frec_reader *r, bool ours)
{
	r->damaged++;
	r->pos = r->len;
	r->done = true;
	return ours ? -ENODATA : -EBADMSG;
}

int frec_reader__next_gen(struct frec_reader *r, struct frec_gen **genp)
{
	const uint8_t *b, *raw;
	uint32_t flags, plen, rlen, elen;
	int err;

	*genp = NULL;
	if (r->done)
		return 0;
	if (r->resync) {
		err = resync(r);
		if (err <= 0) {
			r->done = true;
			return err;
		}
	}
	err = in_need(r, BLOCK_HDR_LEN);
	if (err == -ENODATA) {
		size_t avail = r->len - r->pos;

		if (!avail) {
			r->done = true;
			return 0;
		}
		return truncated(r, is_prefix(r->buf + r->pos, avail, BLOCK_MAGIC, BLOCK_MAGIC_LEN));
	}
	if (err) {
		r->done = true;
		return err;
	}
	b = r->buf + r->pos;
	if (memcmp(b, BLOCK_MAGIC, BLOCK_MAGIC_LEN) ||
	    frec_crc32(0, b, BLOCK_OFF_HCRC) != get_le32(b + BLOCK_OFF_HCRC))
		return damaged_here(r);
	flags = get_le32(b + BLOCK_OFF_FLAGS);
	plen = get_le32(b + BLOCK_OFF_PAYLOAD);
	rlen = get_le32(b + BLOCK_OFF_RAW);
	elen = get_le32(b + BLOCK_OFF_EVENTS);
	/* Lengths a writer cannot produce: refuse before reading or allocating. */
	if (!plen || plen > BLOCK_MAX_COMP || rlen > BLOCK_MAX_RAW || elen > rlen ||
	    (flags == BLOCK_COMP_NONE && plen != rlen) ||
	    (flags != BLOCK_COMP_NONE && rlen / BLOCK_MAX_RATIO > plen) ||
	    (flags != BLOCK_COMP_NONE && flags != BLOCK_COMP_DEFLATE &&
	     (flags != BLOCK_COMP_ZSTD || r->hdr.version < FORMAT_VERSION_ZSTD)))
		return damaged_here(r);

	err = in_need(r, BLOCK_HDR_LEN + (size_t)plen);
	if (err == -ENODATA)
		return truncated(r, true);
	if (err) {
		r->done = true;
		return err;
	}
	b = r->buf + r->pos;
	if (frec_crc32(0, b + BLOCK_HDR_LEN, plen) != get_le32(b + BLOCK_OFF_PCRC))
		return damaged_here(r);
	/* A stored payload is parsed where it lies in the input buffer, which
	 * stays put until the next call. */
	raw = b + BLOCK_HDR_LEN;
	err = 0;
	if (flags == BLOCK_COMP_DEFLATE) {
		err = inflate_block(r, raw, plen, rlen);
		raw = r->raw;
	} else if (flags == BLOCK_COMP_ZSTD) {
		err = zstd_block(r, raw, plen, rlen);
		raw = r->raw;
	}
	r->pos += BLOCK_HDR_LEN + (size_t)plen;
	r->gen.version = r->hdr.version;
	if (!err)
		err = gen_load(&r->gen, raw, rlen, elen);
	if (err) {
		/* Intact block, undecodable content: the next block follows. */
		r->damaged++;
		return err == -ENOMEM ? err : -EBADMSG;
	}
	r->gen.info.raw_bytes = rlen;
	r->gen.info.file_bytes = BLOCK_HDR_LEN + (uint64_t)plen;
	*genp = &r->gen;
	return 1;
}

const char *frec_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EBADMSG:
		return "not a frec snapshot, or damaged data";
	case EPROTONOSUPPORT:
		return "written by a newer frec format version; upgrade frec";
	case ENODATA:
		return "file ends early (truncated)";
	default:
		return strerror(err);
	}
}
