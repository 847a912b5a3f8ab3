// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writing a pinned window as a .frec file, atomically: the blocks are
 * already in their file form (seal.c), so this is the header, then the
 * pinned chunks as they are, into ".<name>.tmp", fsync, a rename that never
 * replaces an existing file, and an fsync of the directory. It reads only
 * the pin (immutable while pinned) and stores its progress in it (atomic),
 * so it may run in another thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <zlib.h>
#include "recorder_int.h"
#include "varint.h"

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
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

static int write_header(int fd, const struct frec_header *hdr)
{
	uint8_t buf[FILE_PREFIX_LEN + HEADER_MAX_BYTES + 4];
	int n = header_encode(hdr, buf + FILE_PREFIX_LEN, HEADER_MAX_BYTES);

	if (n < 0)
		return n;
	memcpy(buf, FILE_MAGIC, FILE_MAGIC_LEN);
	put_le32(buf + 8, FREC_FORMAT_VERSION);
	put_le32(buf + 12, (uint32_t)n);
	put_le32(buf + FILE_PREFIX_LEN + n,
		 (uint32_t)crc32(0, buf + FILE_MAGIC_LEN, (uInt)(8 + n)));
	return write_all(fd, buf, FILE_PREFIX_LEN + (size_t)n + 4);
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

int frec_snapshot__write(int dirfd, const char *name, const struct frec_header *hdr,
			 const struct frec_pin *pin)
{
	char tmp[NAME_MAX + 1];
	struct stat st;
	int fd = -1, err;
	bool renamed = false;

	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    !hdr || !pin)
		return -EINVAL;
	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* Fail before writing anything when the name is taken; the rename
	 * below is what guarantees it, this only saves the work. */
	if (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	/* Written generations go back to the recorder: a pin is written once. */
	if (__atomic_load_n(&pin->written, __ATOMIC_ACQUIRE))
		return -EALREADY;

	fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_header(fd, hdr);
	/* Generation by generation, oldest first, telling the recorder after
	 * each: the kernel has copied those chunks, so the recorder may reuse
	 * the ones its window has let go while the rest is written. */
	for (uint32_t i = 0; i < pin->ngens && !err; i++) {
		err = writev_all(fd, pin->iov + pin->gen_iov[i], pin->gen_iov[i + 1] - pin->gen_iov[i]);
		if (!err)	/* the pin is the recorder's, not const: see recorder_int.h */
			__atomic_store_n((uint32_t *)&pin->written, i + 1, __ATOMIC_RELEASE);
	}
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
