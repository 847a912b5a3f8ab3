// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Container ids from cgroup paths (include/frec/cgroup.h), on the layouts
 * the usual runtimes make: docker, containerd, cri-o and podman, under
 * systemd's and the cgroupfs driver, kubepods under both, the runtimes'
 * monitors (none), systemd inside a container, and plain slices (none).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <frec/cgroup.h>

#define ID  "3b1f0c2d4e5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
#define ID2 "aa00bb11cc22dd33ee44ff5566778899aa00bb11cc22dd33ee44ff5566778899"
#define POD "pod6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
#define PODS "pod6f1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d"

struct layout {
	const char *path;
	const char *id;		/* NULL: none */
	const char *runtime;	/* NULL: none, or not told */
};

static const struct layout layouts[] = {
	/* docker, systemd driver */
	{ "/system.slice/docker-" ID ".scope", ID, "docker" },
	/* systemd inside it: init.scope and its services below */
	{ "/system.slice/docker-" ID ".scope/init.scope", ID, "docker" },
	{ "/system.slice/docker-" ID ".scope/system.slice/nginx.service", ID, "docker" },
	/* rootless docker, in the user's manager */
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" ID ".scope", ID,
	  "docker" },
	/* docker, cgroupfs driver, and a nested one */
	{ "/docker/" ID, ID, "docker" },
	{ "/docker/" ID "/init.scope", ID, "docker" },
	{ "/docker/" ID2 "/docker/" ID, ID, "docker" },
	/* kubepods, systemd driver: containerd and cri-o */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-" PODS
	  ".slice/cri-containerd-" ID ".scope", ID, "containerd" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-" PODS
	  ".slice/crio-" ID ".scope", ID, "crio" },
	{ "/kubepods.slice/kubepods-" PODS ".slice/crio-" ID ".scope", ID, "crio" },
	/* cri-o's monitor, and the pod's own slice: no container */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-" PODS
	  ".slice/crio-conmon-" ID ".scope", NULL, NULL },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-" PODS ".slice", NULL,
	  NULL },
	/* kubepods, cgroupfs driver: the runtime is not told */
	{ "/kubepods/burstable/" POD "/" ID, ID, NULL },
	{ "/kubepods/besteffort/" POD "/" ID, ID, NULL },
	{ "/kubepods/" POD "/" ID, ID, NULL },
	{ "/kubepods/burstable/" POD, NULL, NULL },
	/* a 64-hex name under a pod-like name outside kubepods: none */
	{ "/something/" POD "/" ID, NULL, NULL },
	/* podman, systemd driver: the container, systemd in it, its monitor */
	{ "/machine.slice/libpod-" ID ".scope", ID, "podman" },
	{ "/machine.slice/libpod-" ID ".scope/container", ID, "podman" },
	{ "/machine.slice/libpod-" ID ".scope/init.scope", ID, "podman" },
	{ "/machine.slice/libpod-conmon-" ID ".scope", NULL, NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope", ID,
	  "podman" },
	/* podman, cgroupfs driver */
	{ "/libpod_parent/libpod-" ID, ID, "podman" },
	{ "/libpod_parent/conmon", NULL, NULL },
	/* plain slices and services */
	{ "/", NULL, NULL },
	{ "", NULL, NULL },
	{ "/system.slice/nginx.service", NULL, NULL },
	{ "/user.slice/user-1000.slice/session-2.scope", NULL, NULL },
	{ "/init.scope", NULL, NULL },
	/* not quite: a short id, upper case, no .scope, a service */
	{ "/system.slice/docker-3b1f0c2d4e5a.scope", NULL, NULL },
	{ "/system.slice/docker-3B1F0C2D4E5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0.scope",
	  NULL, NULL },
	{ "/system.slice/docker-" ID, NULL, NULL },
	{ "/system.slice/docker.service", NULL, NULL },
	{ "/system.slice/containerd.service", NULL, NULL },
	{ "/" ID, NULL, NULL },
};

static void test_layouts(void **state)
{
	char out[FREC_CONTAINER_ID_LEN];

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout *l = &layouts[i];
		const char *rt = frec_cgroup__runtime(l->path);
		int rc = frec_cgroup__container(l->path, out, sizeof(out));

		if (l->id ? rc != 0 || strcmp(out, l->id) : rc != -ENOENT || out[0])
			fail_msg("%s: container rc %d '%s', want %s", l->path, rc, out,
				 l->id ? l->id : "none");
		if (l->runtime ? !rt || strcmp(rt, l->runtime) : rt != NULL)
			fail_msg("%s: runtime %s, want %s", l->path, rt ? rt : "NULL",
				 l->runtime ? l->runtime : "NULL");
	}
}

/* Trailing and doubled slashes are not components; a buffer too small
 * says so; NULL is no path. */
static void test_edges(void **state)
{
	char out[FREC_CONTAINER_ID_LEN], small[64];

	assert_int_equal(frec_cgroup__container("/system.slice/docker-" ID ".scope/", out,
						sizeof(out)), 0);
	assert_string_equal(out, ID);
	assert_int_equal(frec_cgroup__container("//docker//" ID, out, sizeof(out)), 0);
	assert_string_equal(out, ID);
	memset(small, 'x', sizeof(small));
	assert_int_equal(frec_cgroup__container("/docker/" ID, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "");
	assert_int_equal(frec_cgroup__container(NULL, out, sizeof(out)), -ENOENT);
	assert_null(frec_cgroup__runtime(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
