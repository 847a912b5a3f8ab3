// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writing a pinned window as a .frec file, atomically: the blocks are
 * already in their file form (seal.c), so this is the header, then the
 * pinned chunks, into ".<name>.tmp", fsync, a rename that never replaces an
 * existing file, and an fsync of the directory. It reads only the pin
 * (immutable while pinned) and stores its progress in it (atomic), so it
 * may run in another thread.
 *
 * Compression happens here, not at seal: recording pays nothing for it,
 * and a snapshot pays once for the window it writes. zstd at level 1
 * takes 22% off bench-core's large mix (256 CPUs, 100,000 threads) and
 * 71-77% off a real window of the pipe benchmark, at some 22-31 ns per
 * event on the writer's thread; deflate at its fastest level takes about
 * as much off at six times zstd's CPU on the same file (which is why
 * seal.c stopped deflating). frecd does it only with --compress zstd: it
 * makes a full 64 MiB window's snapshot several times slower.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "crc32.h"
#include "recorder_int.h"
#include "varint.h"

/* n bytes at off, or at the file's offset (advancing it) when off is -1. */
static int write_all_at(int fd, const void *buf, size_t n, off_t off)
{
	const char *p = buf;

	while (n) {
		ssize_t w = off < 0 ? write(fd, p, n) : pwrite(fd, p, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

static int writev_all(int fd, const struct iovec *iov, uint32_t n)
{
	struct iovec cur[IOV_MAX];
	uint32_t i = 0;

	while (i < n) {
		uint32_t k = n - i < IOV_MAX ? n - i : IOV_MAX;
		ssize_t w;

		memcpy(cur, iov + i, k * sizeof(*cur));
		i += k;
		/* Resume partial writes inside the batch. */
		for (uint32_t j = 0; j < k;) {
			w = writev(fd, cur + j, (int)(k - j));
			if (w < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			while (j < k && (size_t)w >= cur[j].iov_len) {
				w -= (ssize_t)cur[j].iov_len;
				j++;
			}
			if (j < k) {
				cur[j].iov_base = (char *)cur[j].iov_base + w;
				cur[j].iov_len -= (size_t)w;
			}
		}
	}
	return 0;
}

/* The file's header as it is written, into buf: its length, or -errno. */
static int header_build(const struct frec_header *hdr, uint32_t version,
			uint8_t buf[FILE_PREFIX_LEN + HEADER_MAX_BYTES + 4])
{
	int n = header_encode(hdr, buf + FILE_PREFIX_LEN, HEADER_MAX_BYTES);

	if (n < 0)
		return n;
	memcpy(buf, FILE_MAGIC, FILE_MAGIC_LEN);
	put_le32(buf + 8, version);
	put_le32(buf + 12, (uint32_t)n);
	put_le32(buf + FILE_PREFIX_LEN + n,
		 frec_crc32(0, buf + FILE_MAGIC_LEN, 8 + n));
	return FILE_PREFIX_LEN + n + 4;
}

/* rename without replacing; linkat + unlinkat where the filesystem has no
 * RENAME_NOREPLACE (link fails with EEXIST just the same). */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (!renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -errno;
	if (linkat(dirfd, from, dirfd, to, 0))
		return -errno;
	unlinkat(dirfd, from, 0);
	return 0;
}

static int fsync_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) && errno != EINVAL)	/* some filesystems cannot */
		err = -errno;
	close(fd);
	return err;
}

/*
 * The compressor's state for one snapshot: the context (level 1, a window
 * the reader accepts) and an output buffer; a block's frame is written as
 * the buffer fills, so memory does not follow the block's size.
 */
struct zwriter {
	ZSTD_CCtx *cc;
	uint8_t *out;
	size_t out_cap;
};

static int zwriter_init(struct zwriter *z)
{
	z->out_cap = ZSTD_CStreamOutSize();
	z->cc = ZSTD_createCCtx();
	z->out = malloc(z->out_cap);
	if (!z->cc || !z->out ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_windowLog, BLOCK_ZSTD_WINDOW_LOG)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_checksumFlag, 0)))
		return -ENOMEM;
	return 0;
}

static void zwriter_free(struct zwriter *z)
{
	ZSTD_freeCCtx(z->cc);
	free(z->out);
}

/*
 * One generation's block (n iovecs, the block header whole at the start of
 * the first: encode.c reserves it there) as a zstd block at fd's offset.
 * The header goes in last, once the frame's length and CRC are known. A
 * block zstd does not shrink, or shrinks past what a reader accepts
 * (BLOCK_MAX_RATIO), is written stored instead, as it is in memory, and so
 * is a block that is not stored to begin with.
 */
static int write_gen_zstd(int fd, struct zwriter *z, const struct iovec *iov, uint32_t n)
{
	const uint8_t *bh = iov[0].iov_base;
	uint32_t raw, crc = 0;
	uint64_t plen = 0;
	uint8_t h[BLOCK_HDR_LEN];
	off_t start;
	int err;

	if (iov[0].iov_len < BLOCK_HDR_LEN || get_le32(bh + BLOCK_OFF_FLAGS) != BLOCK_COMP_NONE)
		return writev_all(fd, iov, n);
	raw = get_le32(bh + BLOCK_OFF_RAW);
	start = lseek(fd, 0, SEEK_CUR);
	if (start < 0 || lseek(fd, start + BLOCK_HDR_LEN, SEEK_SET) < 0)
		return -errno;
	ZSTD_CCtx_reset(z->cc, ZSTD_reset_session_only);
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z->cc, raw)))
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		ZSTD_EndDirective mode = i + 1 == n ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_inBuffer in = { iov[i].iov_base, iov[i].iov_len, i ? 0 : BLOCK_HDR_LEN };
		size_t left;

		do {
			ZSTD_outBuffer out = { z->out, z->out_cap, 0 };

			left = ZSTD_compressStream2(z->cc, &out, &in, mode);
			if (ZSTD_isError(left))
				return ZSTD_getErrorCode(left) == ZSTD_error_memory_allocation ?
				       -ENOMEM : -EINVAL;
			if (out.pos) {
				crc = frec_crc32(crc, z->out, out.pos);
				plen += out.pos;
				if ((err = write_all_at(fd, z->out, out.pos, -1)))
					return err;
			}
		} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	}
	if (plen >= raw || raw / BLOCK_MAX_RATIO > plen) {
		if (lseek(fd, start, SEEK_SET) < 0 || ftruncate(fd, start))
			return -errno;
		return writev_all(fd, iov, n);
	}
	memcpy(h, bh, BLOCK_HDR_LEN);
	put_le32(h + BLOCK_OFF_FLAGS, BLOCK_COMP_ZSTD);
	put_le32(h + BLOCK_OFF_PAYLOAD, (uint32_t)plen);
	put_le32(h + BLOCK_OFF_PCRC, crc);
	put_le32(h + BLOCK_OFF_HCRC, frec_crc32(0, h, BLOCK_OFF_HCRC));
	return write_all_at(fd, h, BLOCK_HDR_LEN, start);
}

int frec_snapshot__write(int dirfd, const char *name, const struct frec_header *hdr,
			 const struct frec_pin *pin)
{
	return frec_snapshot__write_opts(dirfd, name, hdr, pin, NULL);
}

int frec_snapshot__write_opts(int dirfd, const char *name, const struct frec_header *hdr,
			      const struct frec_pin *pin, const struct frec_snapshot_opts *opts)
{
	uint8_t head[FILE_PREFIX_LEN + HEADER_MAX_BYTES + 4];
	struct zwriter z = { 0 };
	bool zstd = false;
	int hlen;
	char tmp[NAME_MAX + 1];
	struct stat st;
	int fd = -1, err;
	bool renamed = false;

	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    !hdr || !pin)
		return -EINVAL;
	if (opts) {
		if (opts->sz < sizeof(*opts) || (unsigned int)opts->compress > FREC_COMPRESS_ZSTD)
			return -EINVAL;
		zstd = opts->compress == FREC_COMPRESS_ZSTD;
	}
	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* Fail before writing anything when the name is taken; the rename
	 * below is what guarantees it, this only saves the work. */
	if (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	/* Written generations go back to the recorder: a pin is written once. */
	if (__atomic_load_n(&pin->written, __ATOMIC_ACQUIRE))
		return -EALREADY;

	if (zstd && (err = zwriter_init(&z))) {
		zwriter_free(&z);
		return err;
	}
	fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		zwriter_free(&z);
		return err;
	}
	/* The lowest version that reads the file: the recorder's blocks are
	 * the version seal.c writes (format.h), zstd or not. */
	hlen = header_build(hdr, FORMAT_VERSION_WRITTEN, head);
	err = hlen < 0 ? hlen : write_all_at(fd, head, (size_t)hlen, -1);
	/* Generation by generation, oldest first, telling the recorder after
	 * each: the kernel has copied those chunks, so the recorder may reuse
	 * the ones its window has let go while the rest is written. */
	for (uint32_t i = 0; i < pin->ngens && !err; i++) {
		const struct iovec *iov = pin->iov + pin->gen_iov[i];
		uint32_t n = pin->gen_iov[i + 1] - pin->gen_iov[i];

		err = zstd ? write_gen_zstd(fd, &z, iov, n) : writev_all(fd, iov, n);
		if (!err)	/* the pin is the recorder's, not const: see recorder_int.h */
			__atomic_store_n((uint32_t *)&pin->written, i + 1, __ATOMIC_RELEASE);
	}
	zwriter_free(&z);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err)
		err = rename_noreplace(dirfd, tmp, name);
	if (!err) {
		renamed = true;
		err = fsync_dir(dirfd);
	}
	if (!renamed)
		unlinkat(dirfd, tmp, 0);
	return err;
}
