// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Containers as their cgroup paths name them (include/frec/cgroup.h).
 * Container runtimes put each container in a cgroup whose name holds its
 * id, 64 lower-case hex digits, in a few shapes:
 *
 *   systemd driver   .../docker-<id>.scope, cri-containerd-<id>.scope,
 *                    crio-<id>.scope, libpod-<id>.scope (never the
 *                    runtime's monitor, crio-conmon-<id>.scope or
 *                    libpod-conmon-<id>.scope)
 *   cgroupfs driver  /docker/<id>, /kubepods[/<qos>]/pod<uid>/<id>,
 *                    /libpod_parent/libpod-<id>
 *
 * and a container that runs systemd or its own cgroups has more below
 * (.../docker-<id>.scope/init.scope): components are tried from the leaf
 * up, the first that matches wins. Pure string work: any thread, no
 * allocation.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <frec/cgroup.h>

#define ID_HEX	64

/* A path component: [s, s + n). */
struct comp {
	const char *s;
	size_t n;
};

/* The component before the one that starts at cur (cur > path), skipping
 * empty ones; false at the top. */
static bool comp_prev(const char *path, const char *cur, struct comp *c)
{
	const char *e = cur;

	while (e > path && e[-1] == '/')
		e--;
	if (e == path)
		return false;
	c->s = e;
	while (c->s > path && c->s[-1] != '/')
		c->s--;
	c->n = (size_t)(e - c->s);
	return true;
}

static bool is_hex_id(const char *s, size_t n)
{
	if (n != ID_HEX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool comp_is(const struct comp *c, const char *word)
{
	size_t n = strlen(word);

	return c->n == n && !memcmp(c->s, word, n);
}

static bool comp_starts(const struct comp *c, const char *prefix)
{
	size_t n = strlen(prefix);

	return c->n >= n && !memcmp(c->s, prefix, n);
}

/* Some component above the one at cur is kubepods' (kubepods, or the
 * systemd driver's kubepods.slice and kubepods-<qos>.slice). */
static bool under_kubepods(const char *path, const char *cur)
{
	struct comp c;

	while (comp_prev(path, cur, &c)) {
		if (comp_is(&c, "kubepods") || comp_starts(&c, "kubepods.") ||
		    comp_starts(&c, "kubepods-"))
			return true;
		cur = c.s;
	}
	return false;
}

static const struct {
	const char *prefix;
	const char *runtime;
} scopes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "libpod-", "podman" },
};

/*
 * Does component c (its parent p, when has_p) name a container? Then *id
 * points at its 64 digits and *runtime is the runtime's name, or NULL
 * when the shape does not tell.
 */
static bool comp_match(const char *path, const struct comp *c, const struct comp *p, bool has_p,
		       const char **id, const char **runtime)
{
	static const char scope[] = ".scope";
	const size_t sl = sizeof(scope) - 1;

	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t pl = strlen(scopes[i].prefix);

		if (!comp_starts(c, scopes[i].prefix))
			continue;
		/* <prefix><id>.scope; the monitors' <prefix>conmon-<id>.scope
		 * fail the hex test */
		if (c->n == pl + ID_HEX + sl && !memcmp(c->s + pl + ID_HEX, scope, sl) &&
		    is_hex_id(c->s + pl, ID_HEX)) {
			*id = c->s + pl;
			*runtime = scopes[i].runtime;
			return true;
		}
		/* podman's cgroupfs driver: libpod_parent/libpod-<id> */
		if (has_p && !strcmp(scopes[i].prefix, "libpod-") && comp_is(p, "libpod_parent") &&
		    is_hex_id(c->s + pl, c->n - pl)) {
			*id = c->s + pl;
			*runtime = scopes[i].runtime;
			return true;
		}
	}
	if (!has_p || !is_hex_id(c->s, c->n))
		return false;
	if (comp_is(p, "docker")) {
		*id = c->s;
		*runtime = "docker";
		return true;
	}
	/* kubelet's cgroupfs driver: pod<uid>/<id>, whatever the runtime */
	if (comp_starts(p, "pod") && p->n > 3 && under_kubepods(path, p->s)) {
		*id = c->s;
		*runtime = NULL;
		return true;
	}
	return false;
}

/* The first component from the leaf up that names a container. */
static bool path_match(const char *path, const char **id, const char **runtime)
{
	const char *cur;
	struct comp c, p;

	if (!path)
		return false;
	cur = path + strlen(path);
	while (comp_prev(path, cur, &c)) {
		bool has_p = comp_prev(path, c.s, &p);

		if (comp_match(path, &c, &p, has_p, id, runtime))
			return true;
		cur = c.s;
	}
	return false;
}

int frec_cgroup__container(const char *path, char *out, size_t len)
{
	const char *id, *runtime;

	if (len)
		out[0] = '\0';
	if (!path_match(path, &id, &runtime))
		return -ENOENT;
	if (len < FREC_CONTAINER_ID_LEN)
		return -ENOSPC;
	memcpy(out, id, ID_HEX);
	out[ID_HEX] = '\0';
	return 0;
}

const char *frec_cgroup__runtime(const char *path)
{
	const char *id, *runtime;

	return path_match(path, &id, &runtime) ? runtime : NULL;
}
