// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frecd/probe_path.h"

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
