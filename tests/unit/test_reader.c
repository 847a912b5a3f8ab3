// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader on damaged input: a snapshot cut at every byte offset, every
 * byte flipped in turn, garbage between blocks, random garbage, a newer
 * format version, a pipe instead of a file, and well-formed blocks whose
 * counts claim far more than they hold. It must never crash, it must
 * return exactly the generations that are intact, and its allocations (and
 * the walker's) must follow the bytes present, not the counts claimed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include <zlib.h>
#include "synth.h"
#include "tools_test.h"
#include "core/format.h"
#include "core/varint.h"

struct file {
	unsigned char *buf;
	size_t len;
	size_t hdr_len;		/* bytes before the first block */
	size_t gen_end[SYNTH_KNOWN_GENS];	/* offset just after each block */
	__u64 gen_events[SYNTH_KNOWN_GENS];
	char dir[64];
};

static __u32 le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

static void load_known(struct file *f)
{
	char path[128];
	struct frec_reader *r;
	struct frec_gen *g;
	size_t blocks = 0;
	unsigned i = 0;
	FILE *fp;

	assert_int_equal(synth_tmpdir(f->dir), 0);
	assert_int_equal(synth_known_snapshot(f->dir, "k.frec"), 0);
	snprintf(path, sizeof(path), "%s/k.frec", f->dir);
	fp = fopen(path, "rb");
	f->buf = malloc(1 << 16);
	f->len = fread(f->buf, 1, 1 << 16, fp);
	fclose(fp);
	assert_int_equal(frec_reader__open(path, &r), 0);
	while (frec_reader__next_gen(r, &g) == 1) {
		f->gen_end[i] = frec_gen__info(g)->file_bytes;
		f->gen_events[i++] = frec_gen__info(g)->nevents;
		blocks += frec_gen__info(g)->file_bytes;
	}
	assert_int_equal(i, SYNTH_KNOWN_GENS);
	frec_reader__free(r);
	f->hdr_len = f->len - blocks;
	f->gen_end[0] += f->hdr_len;
	f->gen_end[1] += f->gen_end[0];
	assert_int_equal(f->gen_end[1], f->len);
	/* The damage below is done to the kind of block asked for. zstd
	 * does not shrink the second, 95-byte block, which is then stored:
	 * a file of both kinds. */
	assert_int_equal(le32(f->buf + f->hdr_len + BLOCK_OFF_FLAGS),
			 synth_zstd ? BLOCK_COMP_ZSTD :
			 synth_compress_level ? BLOCK_COMP_DEFLATE : BLOCK_COMP_NONE);
	assert_int_equal(le32(f->buf + f->gen_end[0] + BLOCK_OFF_FLAGS),
			 synth_compress_level ? BLOCK_COMP_DEFLATE : BLOCK_COMP_NONE);
	assert_int_equal(f->buf[8], FREC_FORMAT_VERSION);	/* zstd blocks or not */
}

/* A reader over buf[0..len) through a pipe (the reader must not need to
 * seek), or through a file. */
static int open_mem(const struct file *f, const void *buf, size_t len, bool pipe_it,
		    struct frec_reader **r)
{
	char path[128];
	int fd, p[2];

	if (pipe_it) {
		/* The known snapshot fits in the pipe buffer. */
		assert_true(len < 65536);
		assert_int_equal(pipe(p), 0);
		assert_int_equal(write(p[1], buf, len), (ssize_t)len);
		close(p[1]);
		return frec_reader__open_fd(p[0], r);
	}
	snprintf(path, sizeof(path), "%s/cut.frec", f->dir);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return frec_reader__open(path, r);
}

struct result {
	unsigned gens;		/* generations returned with 1 */
	__u64 events;		/* their events, all decoded */
	__u64 seqs;		/* bit (seq - 1) per generation returned */
	unsigned errors;	/* negative returns from next_gen */
	__u64 damaged;
};

static struct result read_all(struct frec_reader *r)
{
	struct result res = { 0 };
	struct frec_gen *g;
	struct frec_event ev;
	int rc, guard = 0;

	while ((rc = frec_reader__next_gen(r, &g)) != 0) {
		assert_true(++guard < 1000);
		if (rc < 0) {
			assert_true(rc == -EBADMSG || rc == -ENODATA);
			res.errors++;
			continue;
		}
		res.gens++;
		res.seqs |= 1ull << (frec_gen__info(g)->seq - 1);
		while ((rc = frec_gen__next_event(g, &ev)) == 1)
			res.events++;
		assert_int_equal(rc, 0);
	}
	/* Stays at the end. */
	assert_int_equal(frec_reader__next_gen(r, &g), 0);
	res.damaged = frec_reader__damaged(r);
	return res;
}

static void test_truncated_everywhere(void **state)
{
	struct file f;

	load_known(&f);
	for (size_t len = 0; len <= f.len; len++) {
		struct frec_reader *r;
		struct result res;
		unsigned want = (len >= f.gen_end[0]) + (len >= f.gen_end[1]);
		int rc = open_mem(&f, f.buf, len, len % 2, &r);

		if (len < f.hdr_len) {
			/* Every prefix of our header is a truncated header. */
			assert_int_equal(rc, -ENODATA);
			assert_null(r);
			continue;
		}
		assert_int_equal(rc, 0);
		res = read_all(r);
		assert_int_equal(res.gens, want);
		assert_int_equal(res.events, (want > 0 ? f.gen_events[0] : 0) +
					     (want > 1 ? f.gen_events[1] : 0));
		/* A cut inside a block is one damaged (truncated) block. */
		bool at_boundary = len == f.hdr_len || len == f.gen_end[0] || len == f.gen_end[1];
		assert_int_equal(res.errors, at_boundary ? 0 : 1);
		assert_int_equal(res.damaged, at_boundary ? 0 : 1);
		frec_reader__free(r);
	}
	free(f.buf);
	synth_rmdir(f.dir);
}

static void test_flipped_bytes(void **state)
{
	struct file f;
	unsigned char *copy;

	load_known(&f);
	copy = malloc(f.len);
	for (size_t off = 0; off < f.len; off++) {
		struct frec_reader *r;
		struct result res;
		int rc;

		memcpy(copy, f.buf, f.len);
		copy[off] ^= 0x10;
		rc = open_mem(&f, copy, f.len, false, &r);
		if (off < f.hdr_len) {
			/* The header's CRC (or its magic, version, length). */
			assert_true(rc == -EBADMSG || rc == -EPROTONOSUPPORT || rc == -ENODATA);
			continue;
		}
		assert_int_equal(rc, 0);
		res = read_all(r);
		/* Exactly the other generation survives. */
		assert_int_equal(res.gens, 1);
		assert_int_equal(res.seqs, off < f.gen_end[0] ? 2 : 1);
		assert_int_equal(res.events, off < f.gen_end[0] ? f.gen_events[1] : f.gen_events[0]);
		assert_int_equal(res.damaged, 1);
		assert_int_equal(res.errors, 1);
		frec_reader__free(r);
	}
	free(copy);
	free(f.buf);
	synth_rmdir(f.dir);
}

static void test_garbage_between_blocks(void **state)
{
	struct file f;
	unsigned char *copy;
	struct frec_reader *r;
	struct result res;
	size_t g = 300, cut;

	load_known(&f);
	copy = malloc(f.len + g);
	cut = f.gen_end[0];
	memcpy(copy, f.buf, cut);
	for (size_t i = 0; i < g; i++)
		copy[cut + i] = (unsigned char)(i * 37 + 11);
	memcpy(copy + cut + g, f.buf + cut, f.len - cut);
	assert_int_equal(open_mem(&f, copy, f.len + g, true, &r), 0);
	res = read_all(r);
	assert_int_equal(res.gens, 2);
	assert_int_equal(res.events, f.gen_events[0] + f.gen_events[1]);
	assert_int_equal(res.damaged, 1);
	frec_reader__free(r);

	/* Garbage after the last block. */
	memcpy(copy, f.buf, f.len);
	memset(copy + f.len, 'x', g);
	assert_int_equal(open_mem(&f, copy, f.len + g, false, &r), 0);
	res = read_all(r);
	assert_int_equal(res.gens, 2);
	assert_int_equal(res.damaged, 1);
	frec_reader__free(r);
	free(copy);
	free(f.buf);
	synth_rmdir(f.dir);
}

static void test_not_a_snapshot(void **state)
{
	struct file f;
	struct frec_reader *r;
	unsigned char junk[4096];
	__u64 x = 88172645463325252ull;

	load_known(&f);
	for (size_t i = 0; i < sizeof(junk); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		junk[i] = (unsigned char)x;
	}
	assert_int_equal(open_mem(&f, junk, sizeof(junk), false, &r), -EBADMSG);
	assert_null(r);
	assert_int_equal(open_mem(&f, "hello world, not a frec file", 28, true, &r), -EBADMSG);
	assert_int_equal(frec_reader__open("/nonexistent/x.frec", &r), -ENOENT);

	/* A newer format version: refused as such (the version is checked
	 * before the CRC: a newer header need not be understood). */
	memcpy(junk, f.buf, f.hdr_len);
	junk[8] = FREC_FORMAT_VERSION + 1;
	assert_int_equal(open_mem(&f, junk, f.hdr_len, false, &r), -EPROTONOSUPPORT);

	/* A valid header and then garbage: one damaged stretch, no generation. */
	memcpy(junk, f.buf, f.hdr_len);
	memset(junk + f.hdr_len, 0x5a, 1000);
	assert_int_equal(open_mem(&f, junk, f.hdr_len + 1000, true, &r), 0);
	struct result res = read_all(r);
	assert_int_equal(res.gens, 0);
	assert_int_equal(res.damaged, 1);
	frec_reader__free(r);

	assert_string_equal(frec_strerror(-EBADMSG), "not a frec snapshot, or damaged data");
	assert_string_equal(frec_strerror(EPROTONOSUPPORT),
			    "written by a newer frec format version; upgrade frec");
	assert_string_equal(frec_strerror(-ENODATA), "file ends early (truncated)");
	assert_string_equal(frec_strerror(-ENOENT), strerror(ENOENT));
	free(f.buf);
	synth_rmdir(f.dir);
}

/* A block with valid CRCs whose lengths lie: refused before allocating,
 * skipped, and the next one read. */
static void test_lying_block(void **state)
{
	struct file f;
	unsigned char *copy;
	struct frec_reader *r;
	struct result res;
	unsigned char *b;

	load_known(&f);
	copy = malloc(f.len);
	memcpy(copy, f.buf, f.len);
	b = copy + f.hdr_len;
	/* raw_len 200 MiB from a few hundred bytes: not stored, and more
	 * than deflate can expand. The header CRC (bytes 28-31) is fixed up. */
	b[16] = 0; b[17] = 0; b[18] = 0x80; b[19] = 0x0c;
	{
		uLong crc = crc32(0, b, 28);

		b[28] = (unsigned char)crc; b[29] = (unsigned char)(crc >> 8);
		b[30] = (unsigned char)(crc >> 16); b[31] = (unsigned char)(crc >> 24);
	}
	assert_int_equal(open_mem(&f, copy, f.len, false, &r), 0);
	res = read_all(r);
	assert_int_equal(res.gens, 1);
	assert_int_equal(res.seqs, 2);
	assert_int_equal(res.damaged, 1);
	frec_reader__free(r);
	free(copy);
	free(f.buf);
	synth_rmdir(f.dir);
}

/* Random damage, many times: no crash, no leak, sane counts. */
static void test_random_damage(void **state)
{
	struct file f;
	unsigned char *copy;
	__u64 x = 1;

	load_known(&f);
	copy = malloc(f.len);
	for (unsigned it = 0; it < 3000; it++) {
		struct frec_reader *r;
		struct result res;
		size_t len = f.len;

		memcpy(copy, f.buf, f.len);
		for (unsigned k = 0; k < 1 + it % 4; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			copy[f.hdr_len + x % (f.len - f.hdr_len)] = (unsigned char)(x >> 32);
		}
		if (it % 3 == 0)
			len = f.hdr_len + (x >> 20) % (f.len - f.hdr_len);
		if (open_mem(&f, copy, len, it % 2, &r))
			continue;
		res = read_all(r);
		assert_true(res.gens <= 2);
		frec_reader__free(r);
	}
	free(copy);
	free(f.buf);
	synth_rmdir(f.dir);
}

/* The largest single allocation since the last reset, seen through the
 * sanitizer's allocation hook (the unit tests run under ASan); without it
 * the size checks are skipped, the results are still checked. */
extern int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
						     void (*f)(const volatile void *))
	__attribute__((weak));
static size_t max_alloc;
static bool hooked;

static void on_malloc(const volatile void *p, size_t n)
{
	(void)p;
	if (n > max_alloc)
		max_alloc = n;
}

static void on_free(const volatile void *p)
{
	(void)p;
}

static void max_alloc_reset(void)
{
	if (!hooked && __sanitizer_install_malloc_and_free_hooks)
		hooked = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0;
#ifdef __SANITIZE_ADDRESS__
	/* the sanitized build must check the sizes, not skip them */
	assert_true(hooked);
#endif
	max_alloc = 0;
}

/* A well-formed deflated block (both CRCs right) of raw, whose header says
 * it inflates to claim bytes (synth_deflate.h). */
static unsigned char *deflate_block(const uint8_t *raw, size_t raw_len, size_t events_len,
				    size_t claim, size_t *len)
{
	unsigned char *b = synth_deflate_block(raw, raw_len, events_len, claim, 9, 9, len);

	assert_non_null(b);
	return b;
}

/* A block of events_len zero bytes of event stream, a summary claiming
 * nevents events and counts[] entries in the thread, process, probe and
 * string tables, then zeros zero bytes of tables (each 4 zero bytes parse
 * as a thread of tid 0). */
static unsigned char *claim_block(size_t events_len, __u64 nevents, const __u32 counts[4],
				  size_t zeros, size_t *len)
{
	uint8_t sum[64], *p = sum, *raw;
	unsigned char *b;
	size_t raw_len;

	p = put_varint(p, 9);			/* seq */
	p = put_varint(p, 100);			/* start_ts */
	p = put_varint(p, 200);			/* end_ts */
	p = put_varint(p, nevents);
	p = put_varint(p, 0);			/* no counts by type */
	p = put_varint(p, 1);			/* one CPU */
	p = put_varint(p, 0);			/* no drops */
	for (int i = 0; i < 4; i++)
		p = put_varint(p, counts[i]);
	/* + 1: version 2's section count after the tables, 0 */
	raw_len = events_len + (size_t)(p - sum) + zeros + 1;
	raw = calloc(1, raw_len);
	assert_non_null(raw);
	memcpy(raw + events_len, sum, (size_t)(p - sum));
	b = deflate_block(raw, raw_len, events_len, raw_len, len);
	free(raw);
	return b;
}

/* The known snapshot with blk inserted before its first block. */
static unsigned char *with_block(const struct file *f, const unsigned char *blk, size_t blen,
				 size_t *len)
{
	unsigned char *c = malloc(f->len + blen);

	assert_non_null(c);
	memcpy(c, f->buf, f->hdr_len);
	memcpy(c + f->hdr_len, blk, blen);
	memcpy(c + f->hdr_len + blen, f->buf + f->hdr_len, f->len - f->hdr_len);
	*len = f->len + blen;
	return c;
}

#define CLAIM_RAW	(4u << 20)	/* zeros: about 4 KiB once deflated */

/* Counts that the bytes cannot hold: each table claims a third of the block
 * (what the reader used to allow per table), all four together far more.
 * Damaged, refused before allocating for them, the known generations read. */
static void test_claimed_tables(void **state)
{
	const __u32 counts[4] = { CLAIM_RAW / 3, CLAIM_RAW / 3, CLAIM_RAW / 3, CLAIM_RAW / 3 };
	unsigned char *blk, *copy;
	struct frec_reader *r;
	struct frec_gen *g;
	struct result res;
	size_t blen, len;
	struct file f;

	load_known(&f);
	blk = claim_block(0, 0, counts, CLAIM_RAW, &blen);
	copy = with_block(&f, blk, blen, &len);
	assert_int_equal(open_mem(&f, copy, len, false, &r), 0);
	max_alloc_reset();
	assert_int_equal(frec_reader__next_gen(r, &g), -EBADMSG);
	/* The inflated block itself, and nothing the size of the tables
	 * (a probe entry alone is 56 bytes: 75 MB for the claimed count). */
	if (hooked)
		assert_true(max_alloc <= CLAIM_RAW + 4096);
	res = read_all(r);
	assert_int_equal(res.gens, SYNTH_KNOWN_GENS);
	assert_int_equal(res.damaged, 1);
	frec_reader__free(r);
	free(copy);
	free(blk);
	free(f.buf);
	synth_rmdir(f.dir);
}

/* A block that claims to inflate to 1000 times its size and makes only
 * its size: the inflated buffer follows the output, not the claim. */
static void test_claimed_raw(void **state)
{
	struct synth_rand rnd = { .x = 0x9e3779b97f4a7c15ull };
	const size_t n = 64 << 10;
	unsigned char *blk, *copy;
	struct frec_reader *r;
	struct frec_gen *g;
	struct result res;
	size_t blen, len;
	struct file f;
	uint8_t *raw;

	load_known(&f);
	raw = malloc(n);
	assert_non_null(raw);
	for (size_t i = 0; i < n; i++)
		raw[i] = (uint8_t)synth_next(&rnd);
	blk = deflate_block(raw, n, 0, n, &blen);
	/* the stream stays, the claim becomes 1000 x payload */
	put_le32(blk + BLOCK_OFF_RAW, (uint32_t)(1000 * (blen - BLOCK_HDR_LEN)));
	put_le32(blk + BLOCK_OFF_HCRC, (uint32_t)crc32(0, blk, BLOCK_OFF_HCRC));
	copy = with_block(&f, blk, blen, &len);
	assert_int_equal(open_mem(&f, copy, len, false, &r), 0);
	max_alloc_reset();
	assert_int_equal(frec_reader__next_gen(r, &g), -EBADMSG);
	if (hooked)
		assert_true(max_alloc <= 8 * n);
	res = read_all(r);
	assert_int_equal(res.gens, SYNTH_KNOWN_GENS);
	assert_int_equal(res.damaged, 1);
	frec_reader__free(r);
	free(copy);
	free(blk);
	free(raw);
	free(f.buf);
	synth_rmdir(f.dir);
}

/* The bound is exact: as many tid 0 threads as the zeros hold is a valid
 * table, one more is damage (the writer's version: 3 bytes an entry). */
static void test_claimed_tables_exact(void **state)
{
	const size_t zeros = 4095;
	__u32 counts[4] = { zeros / THREAD_MIN_BYTES_V5, 0, 0, 0 };
	struct frec_reader *r;
	struct frec_gen *g;
	unsigned char *blk, *copy;
	size_t blen, len;
	struct file f;

	load_known(&f);
	for (int extra = 0; extra <= 1; extra++) {
		counts[0] = (__u32)(zeros / THREAD_MIN_BYTES_V5) + extra;
		blk = claim_block(0, 0, counts, zeros, &blen);
		copy = with_block(&f, blk, blen, &len);
		assert_int_equal(open_mem(&f, copy, len, false, &r), 0);
		if (!extra) {
			assert_int_equal(frec_reader__next_gen(r, &g), 1);
			assert_int_equal(frec_gen__info(g)->nthreads, counts[0]);
			assert_int_equal(frec_gen__thread_at(g, counts[0] - 1)->tid, 0);
		} else {
			assert_int_equal(frec_reader__next_gen(r, &g), -EBADMSG);
		}
		frec_reader__free(r);
		free(copy);
		free(blk);
	}
	free(f.buf);
	synth_rmdir(f.dir);
}

/* A generation claiming a third of its event stream in events, each
 * undecodable from the first: the walker sizes its buffer by what it
 * decodes, not by the claim (1.4 M events of 112 bytes), reports the block
 * in one line and goes on to the known generations. */
static void test_claimed_events(void **state)
{
	const __u32 counts[4] = { 0 };
	unsigned char *blk, *copy;
	struct captured c;
	struct file f;
	size_t blen, len;
	char path[128];
	FILE *fp;

	load_known(&f);
	blk = claim_block(CLAIM_RAW, CLAIM_RAW / EV_MIN_BYTES, counts, 0, &blen);
	copy = with_block(&f, blk, blen, &len);
	snprintf(path, sizeof(path), "%s/claim.frec", f.dir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(copy, 1, len, fp), len);
	fclose(fp);
	max_alloc_reset();
	c = run_dump(path, false);
	if (hooked)
		assert_true(max_alloc <= CLAIM_RAW + 4096);
	assert_int_equal(c.status, FREC_EXIT_DAMAGED);
	assert_int_equal(count_lines(c.err), 1);
	assert_int_equal(count_substr(c.err, "generation block 1 has undecodable events"), 1);
	assert_int_equal(count_lines(c.out) > 10, true);
	captured_free(&c);
	/* More events than the stream could hold: the block is damaged. */
	free(blk);
	free(copy);
	blk = claim_block(CLAIM_RAW, CLAIM_RAW / EV_MIN_BYTES + 1, counts, 0, &blen);
	copy = with_block(&f, blk, blen, &len);
	{
		struct frec_reader *r;
		struct frec_gen *g;

		assert_int_equal(open_mem(&f, copy, len, false, &r), 0);
		assert_int_equal(frec_reader__next_gen(r, &g), -EBADMSG);
		frec_reader__free(r);
	}
	free(copy);
	free(blk);
	free(f.buf);
	synth_rmdir(f.dir);
}

static int stored(void **state)
{
	synth_compress_level = 0;
	synth_zstd = false;
	return 0;
}

static int deflated(void **state)
{
	synth_compress_level = 1;
	synth_zstd = false;
	return 0;
}

static int zstd(void **state)
{
	synth_compress_level = 0;
	synth_zstd = true;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_truncated_everywhere, stored),
		cmocka_unit_test_setup(test_flipped_bytes, stored),
		cmocka_unit_test_setup(test_garbage_between_blocks, stored),
		cmocka_unit_test_setup(test_not_a_snapshot, stored),
		cmocka_unit_test_setup(test_lying_block, stored),
		cmocka_unit_test_setup(test_random_damage, stored),
		cmocka_unit_test_setup(test_truncated_everywhere, deflated),
		cmocka_unit_test_setup(test_flipped_bytes, deflated),
		cmocka_unit_test_setup(test_lying_block, deflated),
		cmocka_unit_test_setup(test_random_damage, deflated),
		cmocka_unit_test_setup(test_truncated_everywhere, zstd),
		cmocka_unit_test_setup(test_flipped_bytes, zstd),
		cmocka_unit_test_setup(test_lying_block, zstd),
		cmocka_unit_test_setup(test_random_damage, zstd),
		cmocka_unit_test_setup(test_claimed_tables, stored),
		cmocka_unit_test_setup(test_claimed_tables_exact, stored),
		cmocka_unit_test_setup(test_claimed_raw, stored),
		cmocka_unit_test_setup(test_claimed_events, stored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
