// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "frecd/retention.h"
#include "frecd/snapname.h"

struct snap {
	char name[FRECD_SNAPSHOT_NAME_MAX];
	__u64 bytes;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct snap *)a)->name, ((const struct snap *)b)->name);
}

/* Every snapshot in the directory, oldest first. 0 or -errno. */
static int list(int dirfd, struct snap **out, size_t *nout)
{
	struct snap *snaps = NULL, *grown;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd, ret = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((errno = 0, de = readdir(dir))) {
		if (!frecd_snapname__is_snapshot(de->d_name))
			continue;
		/* Not through a symlink, and only files: lstat semantics. */
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(snaps, cap * sizeof(*snaps));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			snaps = grown;
		}
		strcpy(snaps[n].name, de->d_name);
		snaps[n].bytes = st.st_size;
		n++;
	}
	if (!ret && errno)
		ret = -errno;
	closedir(dir);
	if (ret) {
		free(snaps);
		return ret;
	}
	if (n)
		qsort(snaps, n, sizeof(*snaps), by_name);
	*out = snaps;
	*nout = n;
	return 0;
}

int frecd_retention__apply(int dirfd, __u32 keep, __u64 keep_bytes, const char *protect,
			   struct frecd_retention_stats *st)
{
	struct snap *snaps = NULL;
	size_t n = 0, i;
	__u64 bytes = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = list(dirfd, &snaps, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		bytes += snaps[i].bytes;
	st->kept = n;
	st->kept_bytes = bytes;
	/* Oldest first; the newest is never removed (it is the last, or the
	 * one just written when the clock went back). */
	for (i = 0; i + 1 < n; i++) {
		bool over_count = keep && st->kept > keep;
		bool over_size = keep_bytes && st->kept_bytes > keep_bytes;

		if (!over_count && !over_size)
			break;
		if (protect && !strcmp(snaps[i].name, protect))
			continue;
		if (unlinkat(dirfd, snaps[i].name, 0) && errno != ENOENT) {
			ret = -errno;
			break;
		}
		st->kept--;
		st->kept_bytes -= snaps[i].bytes;
		st->removed++;
		st->removed_bytes += snaps[i].bytes;
	}
	free(snaps);
	return ret;
}
