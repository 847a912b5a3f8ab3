// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "frecd/outdir.h"

int frecd_outdir__open(const char *path)
{
	int fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

int frecd_outdir__prepare(const char *path, char *err, size_t errlen)
{
	char probe[64];
	struct stat st;
	int dfd, fd, ret = 0;

	if (mkdir(path, 0700) && errno != EEXIST) {
		ret = -errno;
		if (ret == -ENOENT)
			snprintf(err, errlen,
				 "-o %s: cannot create it, its parent directory does not exist; create the parent or choose another -o",
				 path);
		else
			snprintf(err, errlen, "-o %s: cannot create it: %s; choose another -o",
				 path, strerror(-ret));
		return ret;
	}
	if (stat(path, &st)) {
		ret = -errno;
		snprintf(err, errlen, "-o %s: %s; choose another -o", path, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "-o %s: not a directory; choose a directory for the snapshots",
			 path);
		return -ENOTDIR;
	}
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "-o %s: cannot open it: %s; choose another -o", path,
			 strerror(-ret));
		return ret;
	}
	/* Really create a file: access() says yes to root on a read-only mount
	 * or an immutable directory. The name is a hidden one, never *.frec. */
	snprintf(probe, sizeof(probe), ".frecd-check.%d", (int)getpid());
	fd = openat(dfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "-o %s: not writable (%s); choose a writable directory",
			 path, strerror(-ret));
	} else {
		close(fd);
		unlinkat(dfd, probe, 0);
	}
	close(dfd);
	return ret;
}
