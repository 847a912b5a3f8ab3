// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "frecd/log.h"
#include "frecd/outdir.h"
#include "frecd/snapname.h"

struct frecd_outdir {
	char path[PATH_MAX];
	int fd;			/* O_DIRECTORY | O_NOFOLLOW, flock'ed */
	dev_t dev;		/* of fd: is -o still this directory? */
	ino_t ino;
};

/* -o without trailing slashes: "dir/" would follow a symbolic link "dir"
 * even with O_NOFOLLOW. "/" stays "/". */
static int copy_path(char *dst, size_t len, const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (!n || n >= len)
		return -ENAMETOOLONG;
	memcpy(dst, path, n);
	dst[n] = '\0';
	return 0;
}

/*
 * Open path as a directory without following a symbolic link in its last
 * component, creating it 0700 when it is missing. fd, or -errno with the
 * cause and the fix in err.
 */
static int open_dir(const char *path, char *err, size_t errlen)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd, ret;

	fd = open(path, flags);
	if (fd < 0 && errno == ENOENT) {
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
		fd = open(path, flags);
	}
	if (fd >= 0)
		return fd;
	ret = -errno;
	/* O_DIRECTORY | O_NOFOLLOW gives ENOTDIR for a symbolic link as for a
	 * file: tell which from what is there. */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		ret = -ELOOP;
		snprintf(err, errlen,
			 "-o %s: is a symbolic link, which frecd does not follow; give the directory itself (e.g. -o \"$(realpath %s)\")",
			 path, path);
	} else if (ret == -ENOTDIR && !lstat(path, &st) && !S_ISDIR(st.st_mode))
		snprintf(err, errlen, "-o %s: not a directory; choose a directory for the snapshots",
			 path);
	else
		snprintf(err, errlen, "-o %s: cannot open it: %s; choose another -o", path,
			 strerror(-ret));
	return ret;
}

/* Owned by root (or by frecd's own user) and writable by nobody else. */
static int check_dir(int fd, const char *path, struct stat *st, char *err, size_t errlen)
{
	int ret;

	if (fstat(fd, st)) {
		ret = -errno;
		snprintf(err, errlen, "-o %s: %s; choose another -o", path, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "-o %s: not a directory; choose a directory for the snapshots",
			 path);
		return -ENOTDIR;
	}
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(err, errlen,
			 "-o %s: owned by uid %u, not by root, so its owner can replace the snapshots; chown root %s or choose another -o",
			 path, (unsigned int)st->st_uid, path);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "-o %s: writable by group or others (mode %04o), who could plant or swap files there; chmod go-w %s or choose another -o",
			 path, (unsigned int)(st->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

/* Really create a file: access() says yes to root on a read-only mount or
 * an immutable directory. The name is a hidden one, never *.frec. */
static int check_writable(int dfd, const char *path, char *err, size_t errlen)
{
	char probe[64];
	int fd, ret = 0;

	snprintf(probe, sizeof(probe), ".frecd-check.%d", (int)getpid());
	fd = openat(dfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "-o %s: not writable (%s); choose a writable directory",
			 path, strerror(-ret));
		return ret;
	}
	close(fd);
	unlinkat(dfd, probe, 0);
	return 0;
}

static int lock_dir(int fd, const char *path, char *err, size_t errlen)
{
	int ret;

	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	ret = -errno;
	if (ret == -EWOULDBLOCK) {
		snprintf(err, errlen,
			 "-o %s: another frecd writes its snapshots there; stop it or choose another -o",
			 path);
		return -EBUSY;
	}
	snprintf(err, errlen, "-o %s: cannot lock it: %s; choose another -o", path,
		 strerror(-ret));
	return ret;
}

/* Open, check and lock path: fd with *st filled, or -errno with err. */
static int resolve(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd, ret;

	fd = open_dir(path, err, errlen);
	if (fd < 0)
		return fd;
	ret = check_dir(fd, path, st, err, errlen);
	if (!ret)
		ret = lock_dir(fd, path, err, errlen);
	if (!ret)
		ret = check_writable(fd, path, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* The temporary files a frecd killed in the middle of a snapshot left: only
 * regular files with frecd's own temporary names. The directory is locked,
 * so none of them is another frecd's snapshot in progress. */
static void remove_tmp_files(int fd, const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int dfd;

	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return;
	}
	while ((de = readdir(dir))) {
		if (!frecd_snapname__is_tmp(de->d_name))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (unlinkat(fd, de->d_name, 0))
			log_warn("-o %s: cannot remove %s, left by a frecd that stopped during a snapshot: %s",
				 path, de->d_name, strerror(errno));
		else
			log_info("removed %s/%s, left by a frecd that stopped during a snapshot",
				 path, de->d_name);
	}
	closedir(dir);
}

struct frecd_outdir *frecd_outdir__new(const char *path, char *err, size_t errlen)
{
	struct frecd_outdir *o;
	struct stat st;
	int ret;

	o = calloc(1, sizeof(*o));
	if (!o) {
		snprintf(err, errlen, "-o %s: %s", path, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	o->fd = -1;
	ret = copy_path(o->path, sizeof(o->path), path);
	if (ret) {
		snprintf(err, errlen, "-o %s: name too long; choose a shorter -o", path);
		goto fail;
	}
	ret = resolve(o->path, &st, err, errlen);
	if (ret < 0)
		goto fail;
	o->fd = ret;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	remove_tmp_files(o->fd, o->path);
	return o;
fail:
	free(o);
	errno = -ret;
	return NULL;
}

void frecd_outdir__free(struct frecd_outdir *o)
{
	if (!o)
		return;
	if (o->fd >= 0)
		close(o->fd);	/* drops the lock */
	free(o);
}

const char *frecd_outdir__path(const struct frecd_outdir *o)
{
	return o->path;
}

static int dup_fd(const struct frecd_outdir *o, char *err, size_t errlen)
{
	int fd, ret;

	fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
	if (fd >= 0)
		return fd;
	ret = -errno;
	snprintf(err, errlen, "-o %s: %s", o->path, strerror(-ret));
	return ret;
}

int frecd_outdir__dirfd(struct frecd_outdir *o, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	/* Still the directory frecd holds? Then only its owner and mode may
	 * have changed. lstat: a symbolic link in its place is a replacement. */
	if (!lstat(o->path, &st) && st.st_dev == o->dev && st.st_ino == o->ino) {
		ret = check_dir(o->fd, o->path, &st, err, errlen);
		return ret ? ret : dup_fd(o, err, errlen);
	}
	/* Removed, renamed, or replaced: resolve -o again, as at start. */
	ret = resolve(o->path, &st, err, errlen);
	if (ret < 0)
		return ret;
	close(o->fd);
	o->fd = ret;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	log_info("-o %s was removed or replaced: snapshots go to the directory now there", o->path);
	return dup_fd(o, err, errlen);
}
