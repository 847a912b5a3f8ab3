// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * zstd snapshots (docs/FORMAT.md "Blocks", flags 2): what the writer makes
 * of a window, and what the reader refuses. The reader's damage tests
 * (test_reader.c) and the encoding round trips (test_encode.c) also run
 * on zstd files; these are the cases only zstd has: its window bound, its
 * frame that must match the block's lengths exactly, and the format version that allows it (3 on).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <zstd.h>
#include "synth.h"

#define SEC 1000000000ull

static uint8_t *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;

	assert_non_null(f);
	assert_int_equal(synth_slurp(f, &b, len), 0);
	fclose(f);
	return b;
}

static void spew_file(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The length of a file's header (prefix, body, CRC). */
static size_t header_len(const uint8_t *b)
{
	return FILE_PREFIX_LEN + get_le32(b + 12) + 4;
}

/* n exec events from ts on, of processes 100, 101, ..., each with a file
 * name of random bytes (any but NUL), which zstd cannot shrink. */
static void random_execs(struct frec_recorder *rec, __u64 ts, unsigned n)
{
	char name[FREC_FILENAME_LEN];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned e = 0; e < n; e++) {
		for (unsigned i = 0; i + 1 < sizeof(name); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			name[i] = (char)(1 + (x >> 32) % 255);
		}
		name[sizeof(name) - 1] = '\0';
		assert_int_equal(synth_exec(rec, ts + e, 0, 100 + e, 100 + e, "x", name), 0);
	}
}

/* n uprobe hits from ts on, each with 6 random 64-bit arguments, which
 * zstd cannot shrink (a generation of file names cannot grow as large:
 * the string table seals it at 256 KiB). */
static void random_probes(struct frec_recorder *rec, __u64 ts, unsigned n)
{
	static const struct frec_probe_info probe = {
		.id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:f",
		.path = "/bin/app", .func = "f", .build_id = "", .nargs = 6,
	};
	uint64_t x = 0x2545f4914f6cdd1dull;
	__u64 args[6];

	assert_int_equal(frec_recorder__set_probes(rec, &probe, 1), 0);
	for (unsigned e = 0; e < n; e++) {
		for (unsigned i = 0; i < 6; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			args[i] = x;
		}
		assert_int_equal(synth_probe(rec, FREC_EV_UPROBE, ts + e, e & 3, 200, 200, 1, 6,
					     args, 0), 0);
	}
}

/* A one-generation recorder whose generation is raw_min bytes or more: a
 * few threads switching and waking on 4 CPUs, as a busy machine would. */
static struct frec_recorder *big_generation(size_t raw_min, __u64 *end)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 64 << 20,
		.gen_max_bytes = 8 << 20,
		.ncpus = 4,
		.max_threads = 16384,
		.max_processes = 8192,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);
	struct frec_recorder_stats st;
	char a[16], b[16];
	__u64 ts = SEC;
	unsigned i = 0;

	assert_non_null(rec);
	do {
		__u32 cpu = i & 3, x = 100 + (i * 7) % 61, y = 100 + (i * 13) % 61;

		snprintf(a, sizeof(a), "w-%u", x);
		snprintf(b, sizeof(b), "w-%u", y);
		ts += 100 + (i * 37) % 900;
		assert_int_equal(synth_switch(rec, ts, cpu, x, x & ~3u, a, i & 1, y, y & ~3u, b), 0);
		ts += 50;
		assert_int_equal(synth_wake(rec, FREC_EV_SCHED_WAKING, ts, cpu, y, y & ~3u,
					    x, x & ~3u, a, (cpu + 1) & 3), 0);
		i++;
		if (!(i & 1023))
			frec_recorder__stats(rec, &st);
	} while ((i & 1023) || st.open_bytes < raw_min);
	*end = ts + 1;
	return rec;
}

static int write_pin(struct frec_recorder *rec, const char *dir, const char *name,
		     enum frec_compress c)
{
	struct frec_snapshot_opts o = { .sz = sizeof(o), .compress = c };
	struct frec_header hdr;
	struct frec_pin *pin;
	int dfd, err;

	frec_header__init(&hdr);
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	err = frec_snapshot__write_opts(dfd, name, &hdr, pin, &o);
	close(dfd);
	frec_recorder__unpin(rec, pin);
	return err;
}

struct read_result {
	unsigned gens;
	__u64 events, damaged;
	int last_err;
};

static struct read_result read_path(const char *path)
{
	struct read_result res = { 0 };
	struct frec_reader *r;
	struct frec_gen *g;
	int rc;

	assert_int_equal(frec_reader__open(path, &r), 0);
	while ((rc = frec_reader__next_gen(r, &g)) != 0) {
		if (rc < 0) {
			res.last_err = rc;
			continue;
		}
		res.gens++;
		res.events += frec_gen__info(g)->nevents;
	}
	res.damaged = frec_reader__damaged(r);
	frec_reader__free(r);
	return res;
}

/* Both files hold the same generations and events, field by field. */
static void same_events(const char *pa, const char *pb)
{
	struct frec_reader *ra, *rb;
	struct frec_gen *ga, *gb;
	struct frec_event ea, eb;
	__u64 n = 0;
	int a, b;

	assert_int_equal(frec_reader__open(pa, &ra), 0);
	assert_int_equal(frec_reader__open(pb, &rb), 0);
	while ((a = frec_reader__next_gen(ra, &ga)) == 1) {
		assert_int_equal(frec_reader__next_gen(rb, &gb), 1);
		assert_int_equal(frec_gen__info(ga)->seq, frec_gen__info(gb)->seq);
		assert_int_equal(frec_gen__info(ga)->nevents, frec_gen__info(gb)->nevents);
		assert_int_equal(frec_gen__info(ga)->raw_bytes, frec_gen__info(gb)->raw_bytes);
		while ((a = frec_gen__next_event(ga, &ea)) == 1) {
			b = frec_gen__next_event(gb, &eb);
			assert_int_equal(b, 1);
			assert_true(synth_event_eq(&ea, &eb));
			n++;
		}
		assert_int_equal(a, 0);
		assert_int_equal(frec_gen__next_event(gb, &eb), 0);
	}
	assert_int_equal(a, 0);
	assert_int_equal(frec_reader__next_gen(rb, &gb), 0);
	assert_int_equal(frec_reader__damaged(ra), 0);
	assert_int_equal(frec_reader__damaged(rb), 0);
	assert_true(n > 0);
	frec_reader__free(ra);
	frec_reader__free(rb);
}

/*
 * A generation over 1 MiB (past zstd's window here, so the frame is not
 * one segment) written both ways from one window: the same events, format
 * 3, a zstd block, and a smaller file.
 */
static void test_big_generation(void **state)
{
	char dir[64], ps[128], pz[128];
	struct frec_recorder *rec;
	size_t ns, nz;
	uint8_t *bs, *bz;
	__u64 end;

	assert_int_equal(synth_tmpdir(dir), 0);
	rec = big_generation(3 << 19, &end);
	frec_recorder__seal(rec, end);
	assert_int_equal(write_pin(rec, dir, "s.frec", FREC_COMPRESS_NONE), 0);
	assert_int_equal(write_pin(rec, dir, "z.frec", FREC_COMPRESS_ZSTD), 0);
	snprintf(ps, sizeof(ps), "%s/s.frec", dir);
	snprintf(pz, sizeof(pz), "%s/z.frec", dir);
	same_events(ps, pz);

	bs = slurp_file(ps, &ns);
	bz = slurp_file(pz, &nz);
	/* the writer's version, zstd blocks or not */
	assert_int_equal(get_le32(bs + 8), FORMAT_VERSION_WRITTEN);
	assert_int_equal(get_le32(bz + 8), FORMAT_VERSION_WRITTEN);
	assert_int_equal(get_le32(bs + header_len(bs) + BLOCK_OFF_FLAGS), BLOCK_COMP_NONE);
	assert_int_equal(get_le32(bz + header_len(bz) + BLOCK_OFF_FLAGS), BLOCK_COMP_ZSTD);
	assert_true(get_le32(bs + header_len(bs) + BLOCK_OFF_RAW) > (1u << 20));
	/* one block each, so the file's length is the header and the block */
	assert_int_equal(nz, header_len(bz) + BLOCK_HDR_LEN +
			     get_le32(bz + header_len(bz) + BLOCK_OFF_PAYLOAD));
	assert_true(nz * 10 < ns * 9);
	free(bs);
	free(bz);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/*
 * A zstd block made here from a stored block's payload: claim as R,
 * window_log for the frame (0: zstd's default for the size, one segment
 * when it fits), plus extra bytes of garbage after the frame, all inside P
 * and under correct CRCs.
 */
static bool no_content_size;	/* zstd_block(): leave the frame's content size out */

static uint8_t *zstd_block(const uint8_t *stored, size_t claim_delta, int window_log,
			   const uint8_t *extra, size_t nextra, size_t *len)
{
	uint32_t raw = get_le32(stored + BLOCK_OFF_RAW);
	size_t cap = ZSTD_compressBound(raw) + nextra, n;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint8_t *b = malloc(BLOCK_HDR_LEN + cap);

	assert_non_null(cc);
	assert_non_null(b);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1)));
	if (window_log)
		assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog,
								 window_log)));
	if (no_content_size)
		assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
	n = ZSTD_compress2(cc, b + BLOCK_HDR_LEN, cap, stored + BLOCK_HDR_LEN, raw);
	assert_false(ZSTD_isError(n));
	ZSTD_freeCCtx(cc);
	if (nextra)
		memcpy(b + BLOCK_HDR_LEN + n, extra, nextra);
	n += nextra;
	memcpy(b, stored, BLOCK_HDR_LEN);
	put_le32(b + BLOCK_OFF_FLAGS, BLOCK_COMP_ZSTD);
	put_le32(b + BLOCK_OFF_PAYLOAD, (uint32_t)n);
	put_le32(b + BLOCK_OFF_RAW, (uint32_t)(raw + claim_delta));
	put_le32(b + BLOCK_OFF_PCRC, (uint32_t)crc32(0, b + BLOCK_HDR_LEN, (uInt)n));
	put_le32(b + BLOCK_OFF_HCRC, (uint32_t)crc32(0, b, BLOCK_OFF_HCRC));
	*len = BLOCK_HDR_LEN + n;
	return b;
}

/* path: the header of file (its version set, CRC fixed), then blk, then
 * the stored file's blocks from `from` on (none when from is its end). */
static void compose(const char *path, const uint8_t *file, size_t flen, uint32_t version,
		    const uint8_t *blk, size_t blen, size_t from)
{
	size_t hl = header_len(file);
	uint8_t *out = malloc(hl + blen + (flen - from));

	assert_non_null(out);
	memcpy(out, file, hl);
	put_le32(out + 8, version);
	put_le32(out + hl - 4, (uint32_t)crc32(0, out + FILE_MAGIC_LEN, (uInt)(hl - 4 - FILE_MAGIC_LEN)));
	memcpy(out + hl, blk, blen);
	memcpy(out + hl + blen, file + from, flen - from);
	spew_file(path, out, hl + blen + flen - from);
	free(out);
}

/* Frames that do not match their block: each is damage, and the block
 * after it is still read. The well-formed one reads. */
static void test_frame_must_match(void **state)
{
	static const uint8_t junk[] = { 0x28, 0xb5, 0x2f, 0xfd, 0 };
	char dir[64], path[128], out[128];
	size_t flen, blen, second;
	uint8_t *file, *blk, *first;
	struct read_result res;

	assert_int_equal(synth_tmpdir(dir), 0);
	synth_zstd = false;
	assert_int_equal(synth_known_snapshot(dir, "k.frec"), 0);
	snprintf(path, sizeof(path), "%s/k.frec", dir);
	snprintf(out, sizeof(out), "%s/x.frec", dir);
	file = slurp_file(path, &flen);
	first = file + header_len(file);
	second = header_len(file) + BLOCK_HDR_LEN + get_le32(first + BLOCK_OFF_PAYLOAD);

	/* well-formed: both generations */
	blk = zstd_block(first, 0, 0, NULL, 0, &blen);
	compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, second);
	res = read_path(out);
	assert_int_equal(res.gens, 2);
	assert_int_equal(res.damaged, 0);
	same_events(path, out);
	/* ... but a format 2 file has no zstd blocks (the block alone: the
	 * stored one's tables are the writer's version's, not version 2's) */
	compose(out, file, flen, FORMAT_VERSION_STORED, blk, blen, flen);
	res = read_path(out);
	assert_int_equal(res.gens, 0);
	assert_int_equal(res.damaged, 1);
	free(blk);

	/* R one more, or one less, than the frame makes */
	for (int d = -1; d <= 1; d += 2) {
		blk = zstd_block(first, (size_t)d, 0, NULL, 0, &blen);
		compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, second);
		res = read_path(out);
		assert_int_equal(res.gens, 1);
		assert_int_equal(res.damaged, 1);
		free(blk);
	}
	/* bytes after the frame: a byte, and the start of a second frame */
	for (size_t k = 1; k <= sizeof(junk); k += sizeof(junk) - 1) {
		blk = zstd_block(first, 0, 0, junk, k, &blen);
		compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, second);
		res = read_path(out);
		assert_int_equal(res.gens, 1);
		assert_int_equal(res.damaged, 1);
		free(blk);
	}
	/* a frame that does not say its content size: the writer's always do */
	no_content_size = true;
	blk = zstd_block(first, 0, 0, NULL, 0, &blen);
	no_content_size = false;
	compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, second);
	res = read_path(out);
	assert_int_equal(res.gens, 1);
	assert_int_equal(res.damaged, 1);
	free(blk);
	/* a legacy (v0.7) frame's magic, and a skippable frame, before the
	 * block's bytes: never handed to libzstd's other decoders */
	for (unsigned k = 0; k < 2; k++) {
		static const uint32_t magic[2] = { 0xfd2fb527u, 0x184d2a50u };
		uint32_t raw = get_le32(first + BLOCK_OFF_RAW);

		blk = zstd_block(first, 0, 0, NULL, 0, &blen);
		memmove(blk + BLOCK_HDR_LEN + 8, blk + BLOCK_HDR_LEN, blen - BLOCK_HDR_LEN);
		put_le32(blk + BLOCK_HDR_LEN, magic[k]);
		put_le32(blk + BLOCK_HDR_LEN + 4, (uint32_t)(blen - BLOCK_HDR_LEN));
		blen += 8;
		put_le32(blk + BLOCK_OFF_PAYLOAD, (uint32_t)(blen - BLOCK_HDR_LEN));
		put_le32(blk + BLOCK_OFF_RAW, raw);
		put_le32(blk + BLOCK_OFF_PCRC,
			 (uint32_t)crc32(0, blk + BLOCK_HDR_LEN, (uInt)(blen - BLOCK_HDR_LEN)));
		put_le32(blk + BLOCK_OFF_HCRC, (uint32_t)crc32(0, blk, BLOCK_OFF_HCRC));
		compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, second);
		res = read_path(out);
		assert_int_equal(res.gens, 1);
		assert_int_equal(res.damaged, 1);
		free(blk);
	}
	/* a frame cut short (P and its CRC say so) */
	blk = zstd_block(first, 0, 0, NULL, 0, &blen);
	put_le32(blk + BLOCK_OFF_PAYLOAD, (uint32_t)(blen - BLOCK_HDR_LEN - 3));
	put_le32(blk + BLOCK_OFF_PCRC,
		 (uint32_t)crc32(0, blk + BLOCK_HDR_LEN, (uInt)(blen - BLOCK_HDR_LEN - 3)));
	put_le32(blk + BLOCK_OFF_HCRC, (uint32_t)crc32(0, blk, BLOCK_OFF_HCRC));
	compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen - 3, second);
	res = read_path(out);
	assert_int_equal(res.gens, 1);
	assert_int_equal(res.damaged, 1);
	free(blk);
	free(file);
	synth_rmdir(dir);
}

/*
 * rec's one generation, over 1 MiB, written stored to dir/s.frec, then as
 * a zstd block with the writer's window (BLOCK_ZSTD_WINDOW_LOG), which
 * reads, and with 2 MiB, which is damage (a decoder would need more memory
 * than a reader grants). Returns the zstd frame's bytes per raw byte.
 */
static double window_cases(struct frec_recorder *rec, __u64 end, const char *dir)
{
	char path[128], out[128];
	struct read_result res;
	uint8_t *file, *blk;
	size_t flen, blen;
	uint32_t raw;

	frec_recorder__seal(rec, end);
	snprintf(path, sizeof(path), "%s/s.frec", dir);
	snprintf(out, sizeof(out), "%s/w.frec", dir);
	unlink(path);
	assert_int_equal(write_pin(rec, dir, "s.frec", FREC_COMPRESS_NONE), 0);
	frec_recorder__free(rec);
	file = slurp_file(path, &flen);
	raw = get_le32(file + header_len(file) + BLOCK_OFF_RAW);
	assert_true(raw > (1u << 20));

	blk = zstd_block(file + header_len(file), 0, BLOCK_ZSTD_WINDOW_LOG, NULL, 0, &blen);
	compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, flen);
	res = read_path(out);
	assert_int_equal(res.gens, 1);
	assert_int_equal(res.damaged, 0);
	free(blk);
	/* 2 MiB, which for this size is one segment: the whole content */
	blk = zstd_block(file + header_len(file), 0, BLOCK_ZSTD_WINDOW_LOG + 1, NULL, 0, &blen);
	compose(out, file, flen, FORMAT_VERSION_WRITTEN, blk, blen, flen);
	res = read_path(out);
	assert_int_equal(res.gens, 0);
	assert_int_equal(res.damaged, 1);
	free(blk);
	free(file);
	return (double)(blen - BLOCK_HDR_LEN) / raw;
}

/*
 * The window bound, for a generation zstd shrinks well (decoded by
 * libzstd's streaming path, which checks windows) and for one it barely
 * shrinks, whose whole output fits the reader's first buffer: libzstd
 * then decodes in one pass and checks no window, so the reader must.
 */
static void test_window_bound(void **state)
{
	struct frec_recorder *rec;
	char dir[64];
	__u64 end;

	assert_int_equal(synth_tmpdir(dir), 0);
	rec = big_generation(3 << 19, &end);
	assert_true(window_cases(rec, end, dir) < 0.25);
	rec = big_generation(0, &end);
	random_probes(rec, end, 20000);
	assert_true(window_cases(rec, end + 20000, dir) > 0.5);
	synth_rmdir(dir);
}

/*
 * A window zstd cannot shrink (a generation of little but random file
 * names): its block is stored, and the file says the writer's format, as a
 * file written with --compress none does.
 */
static void test_nothing_shrinks(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	char dir[64], path[128];
	size_t len;
	uint8_t *b;

	assert_int_equal(synth_tmpdir(dir), 0);
	random_execs(rec, SEC, 8);
	frec_recorder__seal(rec, 2 * SEC);
	assert_int_equal(write_pin(rec, dir, "z.frec", FREC_COMPRESS_ZSTD), 0);
	snprintf(path, sizeof(path), "%s/z.frec", dir);
	b = slurp_file(path, &len);
	assert_int_equal(get_le32(b + 8), FORMAT_VERSION_WRITTEN);
	assert_int_equal(get_le32(b + header_len(b) + BLOCK_OFF_FLAGS), BLOCK_COMP_NONE);
	assert_int_equal(read_path(path).gens, 1);
	assert_int_equal(read_path(path).damaged, 0);
	free(b);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/*
 * A write that fails halfway through a zstd block (the file may not grow
 * past 64 KiB): the error, no file and no temp file left, and the window
 * still whole for the next snapshot.
 */
static void test_write_fails_cleanly(void **state)
{
	struct rlimit lim, small;
	struct frec_recorder *rec;
	char dir[64], path[128];
	void (*old)(int);
	int dfd, err;
	__u64 end;

	assert_int_equal(synth_tmpdir(dir), 0);
	rec = big_generation(3 << 19, &end);
	frec_recorder__seal(rec, end);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &lim), 0);
	small = lim;
	small.rlim_cur = 64 << 10;
	old = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	err = write_pin(rec, dir, "z.frec", FREC_COMPRESS_ZSTD);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	signal(SIGXFSZ, old);
	assert_int_equal(err, -EFBIG);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(faccessat(dfd, "z.frec", F_OK, 0), -1);
	assert_int_equal(faccessat(dfd, ".z.frec.tmp", F_OK, 0), -1);
	close(dfd);
	assert_int_equal(write_pin(rec, dir, "z.frec", FREC_COMPRESS_ZSTD), 0);
	snprintf(path, sizeof(path), "%s/z.frec", dir);
	assert_int_equal(read_path(path).gens, 1);
	assert_int_equal(read_path(path).damaged, 0);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* Options the writer does not know: refused before a file is made. */
static void test_bad_options(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_snapshot_opts o = { .sz = sizeof(o), .compress = 7 };
	struct frec_header hdr;
	struct frec_pin *pin;
	char dir[64];
	int dfd;

	assert_int_equal(synth_tmpdir(dir), 0);
	synth_switch(rec, SEC, 0, 1, 1, "x", 0, 2, 2, "y");
	frec_recorder__seal(rec, 2 * SEC);
	frec_header__init(&hdr);
	pin = frec_recorder__pin(rec);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(frec_snapshot__write_opts(dfd, "a.frec", &hdr, pin, &o), -EINVAL);
	o.compress = FREC_COMPRESS_ZSTD;
	o.sz = 0;
	assert_int_equal(frec_snapshot__write_opts(dfd, "a.frec", &hdr, pin, &o), -EINVAL);
	assert_int_equal(faccessat(dfd, "a.frec", F_OK, 0), -1);
	assert_int_equal(faccessat(dfd, ".a.frec.tmp", F_OK, 0), -1);
	/* and the pin is still whole: written now */
	o.sz = sizeof(o);
	assert_int_equal(frec_snapshot__write_opts(dfd, "a.frec", &hdr, pin, &o), 0);
	close(dfd);
	frec_recorder__unpin(rec, pin);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big_generation),
		cmocka_unit_test(test_frame_must_match),
		cmocka_unit_test(test_window_bound),
		cmocka_unit_test(test_nothing_shrinks),
		cmocka_unit_test(test_write_fails_cleanly),
		cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
