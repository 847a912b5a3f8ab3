// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frecd/log.h"
#include "frecd/probe_path.h"
#include "frecd/proc_maps.h"

#define LD_CACHE_FILE "/etc/ld.so.cache"

/* glibc's ld.so.cache, the "new" format (glibc >= 2.32 writes only this one;
 * older ones put it after an "ld.so-1.7.0" table). See glibc's
 * sysdeps/generic/dl-cache.h. String offsets are relative to the header. */
#define LD_CACHE_OLD_MAGIC "ld.so-1.7.0"
#define LD_CACHE_NEW_MAGIC "glibc-ld.so.cache1.1"

struct ld_cache_new_hdr {
	char magic[sizeof(LD_CACHE_NEW_MAGIC) - 1];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct ld_cache_new_entry {
	int32_t flags;
	uint32_t key;		/* the soname, e.g. "libc.so.6" */
	uint32_t value;		/* its path */
	uint32_t osversion;
	uint64_t hwcap;
};

struct ld_cache_old_entry {
	int32_t flags;
	uint32_t key, value;
};

#define LD_FLAG_TYPE_MASK	0x00ff
#define LD_FLAG_ELF_LIBC6	0x0003
#define LD_FLAG_REQUIRED_MASK	0xff00
#if defined(__x86_64__)
#define LD_FLAG_ARCH		0x0300
#define MULTIARCH		"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define LD_FLAG_ARCH		0x0a00
#define MULTIARCH		"aarch64-linux-gnu"
#else
#define LD_FLAG_ARCH		-1
#define MULTIARCH		""
#endif

static int copy_path(char *out, size_t len, const char *path)
{
	if (snprintf(out, len, "%s", path) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int canonical(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf))
		return -errno;
	return copy_path(out, len, buf);
}

static int is_file(const char *path, int mode)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, mode) == 0;
}

/* key names the library called name: "libc" matches "libc.so" and
 * "libc.so.6"; a name that already says ".so" must match exactly. Returns 0
 * for no match, 1 for an unversioned ".so" (often a development symlink or a
 * linker script), 2 for a versioned runtime name. */
static int lib_matches(const char *key, const char *name)
{
	size_t n = strlen(name);

	if (strstr(name, ".so"))
		return strcmp(key, name) == 0 ? 2 : 0;
	if (strncmp(key, name, n) || strncmp(key + n, ".so", 3))
		return 0;
	if (key[n + 3] == '\0')
		return 1;
	return key[n + 3] == '.' ? 2 : 0;
}

int probe_path__ld_cache(const char *cache, const char *name, char *out, size_t len)
{
	const struct ld_cache_new_hdr *hdr;
	const struct ld_cache_new_entry *ents;
	char *buf = NULL;
	size_t size = 0, off = 0, i;
	int best = 0, ret = -ENOENT;
	const char *best_path = NULL;
	FILE *f;

	f = fopen(cache ? cache : LD_CACHE_FILE, "re");
	if (!f)
		return -ENOENT;
	for (;;) {
		char *nb = realloc(buf, size + 65536);
		size_t got;

		if (!nb) {
			ret = -ENOMEM;
			goto out;
		}
		buf = nb;
		got = fread(buf + size, 1, 65536, f);
		size += got;
		if (got < 65536)
			break;
	}

	if (size >= sizeof(LD_CACHE_OLD_MAGIC) - 1 + 4 &&
	    !memcmp(buf, LD_CACHE_OLD_MAGIC, sizeof(LD_CACHE_OLD_MAGIC) - 1)) {
		uint32_t nold;

		memcpy(&nold, buf + 12, 4);
		off = 16 + (size_t)nold * sizeof(struct ld_cache_old_entry);
		off = (off + 7) & ~(size_t)7;
	}
	if (off + sizeof(*hdr) > size ||
	    memcmp(buf + off, LD_CACHE_NEW_MAGIC, sizeof(LD_CACHE_NEW_MAGIC) - 1))
		goto out;
	hdr = (const void *)(buf + off);
	if (hdr->nlibs > (size - off - sizeof(*hdr)) / sizeof(*ents))
		goto out;
	ents = (const void *)(hdr + 1);
	for (i = 0; i < hdr->nlibs; i++) {
		const struct ld_cache_new_entry *e = &ents[i];
		const char *key, *val;
		int m;

		if ((e->flags & LD_FLAG_TYPE_MASK) != LD_FLAG_ELF_LIBC6)
			continue;
		if (LD_FLAG_ARCH != -1 && (e->flags & LD_FLAG_REQUIRED_MASK) != LD_FLAG_ARCH)
			continue;
		if (e->key >= size - off || e->value >= size - off)
			continue;
		key = (const char *)hdr + e->key;
		val = (const char *)hdr + e->value;
		if (!memchr(key, '\0', size - off - e->key) || !memchr(val, '\0', size - off - e->value))
			continue;
		m = lib_matches(key, name);
		if (m > best) {
			best = m;
			best_path = val;
		}
	}
	if (best_path)
		ret = copy_path(out, len, best_path);
out:
	free(buf);
	fclose(f);
	return ret;
}

/* The library called name in dir: the exact file when name says ".so",
 * else the versioned NAME.so.N first, then NAME.so. */
static int lib_in_dir(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], best[NAME_MAX + 1] = "";
	int best_m = 0;
	struct dirent *de;
	DIR *d;

	if (strstr(name, ".so")) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		return is_file(path, R_OK) ? canonical(path, out, len) : -ENOENT;
	}
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		int m = lib_matches(de->d_name, name);

		/* Several versions: the shortest name is the soname, e.g.
		 * libfoo.so.1 rather than libfoo.so.1.2.3. */
		if (m > best_m || (m && m == best_m && strlen(de->d_name) < strlen(best))) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (!is_file(path, R_OK))
				continue;
			best_m = m;
			snprintf(best, sizeof(best), "%s", de->d_name);
		}
	}
	closedir(d);
	if (!best_m)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dir, best);
	return canonical(path, out, len);
}

/* Try each directory of a colon-separated list. */
static int lib_in_dirs(const char *dirs, const char *name, char *out, size_t len)
{
	char *copy, *dir, *save = NULL;
	int ret = -ENOENT;

	if (!dirs || !*dirs)
		return -ENOENT;
	copy = strdup(dirs);
	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		ret = lib_in_dir(dir, name, out, len);
		if (ret != -ENOENT)
			break;
	}
	free(copy);
	return ret;
}

static int find_library(const char *name, char *out, size_t len)
{
	static const char std_dirs[] = "/lib/" MULTIARCH ":/usr/lib/" MULTIARCH
				       ":/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	char path[PATH_MAX];
	int ret;

	/* libbpf looks at LD_LIBRARY_PATH first; so does the dynamic linker. */
	ret = lib_in_dirs(getenv("LD_LIBRARY_PATH"), name, out, len);
	if (ret != -ENOENT)
		return ret;
	if (probe_path__ld_cache(NULL, name, path, sizeof(path)) == 0 && is_file(path, R_OK))
		return canonical(path, out, len);
	return lib_in_dirs(std_dirs, name, out, len);
}

static int find_executable(const char *name, char *out, size_t len)
{
	const char *env = getenv("PATH");
	char *copy, *dir, *save = NULL, path[PATH_MAX];
	int ret = -ENOENT;

	copy = strdup(env && *env ? env : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (is_file(path, X_OK)) {
			ret = canonical(path, out, len);
			break;
		}
	}
	free(copy);
	return ret;
}

int probe_path__resolve(const char *name, char *out, size_t len)
{
	int ret;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return canonical(name, out, len);
	if (strncmp(name, "lib", 3) && !strstr(name, ".so")) {
		ret = find_executable(name, out, len);
		if (ret != -ENOENT)
			return ret;
	}
	return find_library(name, out, len);
}

/* --- opening a probe's file once ------------------------------------------ */

#ifndef SYS_openat2
#define SYS_openat2		437	/* the same number on every architecture */
#endif
#define FREC_RESOLVE_NO_MAGICLINKS	0x02
#define FREC_RESOLVE_IN_ROOT		0x10

/* linux/openat2.h's struct open_how, which older headers lack. */
struct frec_open_how {
	__u64 flags;
	__u64 mode;
	__u64 resolve;
};

int probe_path__openat_in_root(int rootfd, const char *path)
{
	struct frec_open_how how = {
		/* O_NONBLOCK: a FIFO in the way must not hang the open */
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = FREC_RESOLVE_IN_ROOT | FREC_RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

int probe_path__in_root_works(void)
{
	int rootfd, fd;

	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = probe_path__openat_in_root(rootfd, "/");
	close(rootfd);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

bool probe_path__in_proc_root(const char *name, __u32 *pid)
{
	unsigned long v;
	char *end;

	if (strncmp(name, "/proc/", 6) || name[6] < '1' || name[6] > '9')
		return false;
	errno = 0;
	v = strtoul(name + 6, &end, 10);
	if (errno || v > UINT32_MAX || strncmp(end, "/root", 5) || (end[5] && end[5] != '/'))
		return false;
	*pid = v;
	return true;
}

/* The start time of process pid (field 22 of /proc/PID/stat), or -ESRCH. */
static int start_time(__u32 pid, unsigned long long *t)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* the comm may hold spaces and parentheses: fields count from the last ')' */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", t) != 1)
		return -ESRCH;
	return 0;
}

/* fd must be a regular file: its identity into out. 0 or -errno (fd closed). */
static int take_file(int fd, struct probe_file *out)
{
	struct stat st;

	if (fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	out->fd = fd;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	return 0;
}

/* REST inside the root of process pid; out->path is name as given. */
static int open_in_root(const char *name, __u32 pid, const char *rest, struct probe_file *out)
{
	unsigned long long t0, t1;
	char root[64];
	int rootfd, fd, ret;

	if (copy_path(out->path, sizeof(out->path), name))
		return -ENAMETOOLONG;
	if (start_time(pid, &t0))
		return -ESRCH;
	snprintf(root, sizeof(root), "/proc/%u/root", pid);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	fd = probe_path__openat_in_root(rootfd, *rest ? rest : "/");
	close(rootfd);
	if (fd < 0)
		return fd;
	/* The same process after the open: its pid was not reused meanwhile. */
	if (start_time(pid, &t1) || t1 != t0) {
		close(fd);
		return -ESRCH;
	}
	ret = take_file(fd, out);
	if (!ret)
		out->pid = pid;
	return ret;
}

/* A library's first executable mapping in a process. */
struct lib_map {
	const char *name;
	__u64 start, end;
	char path[PATH_MAX];
};

bool probe_path__map_matches(const char *base, const char *name)
{
	size_t n = strlen(name), b = strlen(base);

	if (lib_matches(base, name))
		return true;
	return !strstr(name, ".so") && b > n + 4 && !strncmp(base, name, n) && base[n] == '-' &&
	       base[n + 1] >= '0' && base[n + 1] <= '9' && !strcmp(base + b - 3, ".so");
}

static int lib_map_fn(const struct frecd_map *m, void *ctx)
{
	struct lib_map *lm = ctx;
	char path[PATH_MAX];
	const char *base;

	if (m->path_len >= sizeof(path))
		return 0;
	memcpy(path, m->path, m->path_len);
	path[m->path_len] = '\0';
	base = strrchr(path, '/');
	if (!base || !probe_path__map_matches(base + 1, lm->name))
		return 0;
	lm->start = m->start;
	lm->end = m->end;
	memcpy(lm->path, path, m->path_len + 1);
	return 1;
}

/* The file of lm's mapping in process pid, even if deleted or in another
 * mount namespace: its map_files entry. An fd or -errno. */
static int open_mapping(__u32 pid, const struct lib_map *lm)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)lm->start, (unsigned long long)lm->end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/*
 * Library name as the -p processes map it: the first one's mapping, shown
 * as /proc/PID/root + its path. A later pid that maps another file is
 * warned about: that process is not probed. -ENOENT when the first maps no
 * such library.
 */
static int lib_in_maps(const char *name, const __u32 *pids, size_t npids, struct probe_file *out)
{
	struct lib_map lm = { .name = name };
	struct probe_file other;
	size_t i;
	int fd, ret;

	ret = frecd_maps__read(pids[0], lib_map_fn, &lm);
	if (ret != 1)
		return ret < 0 && ret != -ENOENT ? ret : -ENXIO;
	fd = open_mapping(pids[0], &lm);
	if (fd < 0)
		return fd;
	ret = take_file(fd, out);
	if (ret)
		return ret;
	out->pid = pids[0];
	if (snprintf(out->path, sizeof(out->path), "/proc/%u/root%s", pids[0], lm.path) >=
	    (int)sizeof(out->path)) {
		close(out->fd);
		out->fd = -1;
		return -ENAMETOOLONG;
	}
	for (i = 1; i < npids; i++) {
		lm.path[0] = '\0';
		if (frecd_maps__read(pids[i], lib_map_fn, &lm) != 1)
			continue;
		fd = open_mapping(pids[i], &lm);
		if (fd < 0 || take_file(fd, &other))
			continue;
		if (other.dev != out->dev || other.ino != out->ino)
			log_warn("probe on '%s': pid %u maps another %s: not probed there; add --probe /proc/%u/root%s",
				 name, pids[i], strrchr(lm.path, '/') + 1, pids[i], lm.path);
		close(other.fd);
	}
	return 0;
}

/* A library name rather than a path or a program on PATH. */
static bool is_library_name(const char *name)
{
	return !strchr(name, '/') && (!strncmp(name, "lib", 3) || strstr(name, ".so"));
}

int probe_path__open(const char *name, const __u32 *pids, size_t npids, struct probe_file *out)
{
	char path[PATH_MAX], self[64];
	__u32 pid;
	ssize_t n;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (probe_path__in_proc_root(name, &pid))
		return open_in_root(name, pid, strchr(name + 6, '/') + 5, out);
	if (npids && is_library_name(name))
		return lib_in_maps(name, pids, npids, out);
	if (strchr(name, '/')) {
		ret = copy_path(path, sizeof(path), name);
	} else {
		ret = probe_path__resolve(name, path, sizeof(path));
	}
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = take_file(fd, out);
	if (ret)
		return ret;
	/* The name of the file opened, not of what the path names by now. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", out->fd);
	n = readlink(self, out->path, sizeof(out->path) - 1);
	if (n <= 0 || (size_t)n >= sizeof(out->path) - 1) {
		if (!realpath(path, out->path))
			copy_path(out->path, sizeof(out->path), path);
	} else {
		out->path[n] = '\0';
	}
	return 0;
}
