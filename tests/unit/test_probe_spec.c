// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --probe SPEC parsing and validation, against the probe test programs
 * (.output/tests/probe_target, its stripped copy and libfrectarget.so, next
 * to this test's own binary) and the system's libc. No BPF, no root.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "frecd/elf_file.h"
#include "frecd/probe_path.h"
#include "frecd/probe_spec.h"
#include "frecd/probes.h"

static char dir[PATH_MAX / 2];		/* where this test and the programs live */
static char target[PATH_MAX];		/* probe_target, with symbols and a USDT note */
static char stripped[PATH_MAX];		/* probe_target without .symtab */
static char lib[PATH_MAX];		/* libfrectarget.so */

static const char *fmt(const char *f, ...)
{
	static char bufs[4][PATH_MAX + 256];
	static int i;
	char *b = bufs[i++ & 3];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, sizeof(bufs[0]), f, ap);
	va_end(ap);
	return b;
}

static int setup_paths(void **state)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || (size_t)n >= sizeof(dir))
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	memcpy(dir, self, slash - self + 1);
	snprintf(target, sizeof(target), "%s/probe_target", dir);
	snprintf(stripped, sizeof(stripped), "%s/probe_target.stripped", dir);
	snprintf(lib, sizeof(lib), "%s/libfrectarget.so", dir);
	if (access(target, R_OK) || access(stripped, R_OK) || access(lib, R_OK)) {
		fprintf(stderr, "test_probe_spec: build the test programs first (make progs)\n");
		return -1;
	}
	return 0;
}

/* Add one spec that must be accepted; returns the table. */
static const struct frec_probe_info *add_ok(struct frec_probes *p, const char *spec, size_t *n)
{
	char err[512] = "";
	int ret = frec_probes__add_spec(p, spec, err, sizeof(err));

	if (ret)
		fail_msg("'%s' rejected: %s", spec, err);
	return frec_probes__table(p, n);
}

/* A spec that must be refused with exactly one line naming the spec and
 * holding every key phrase; nothing may be added. */
static void add_bad(const char *spec, int expect_ret, ...)
{
	struct frec_probes *p = frec_probes__new();
	char err[512] = "";
	const char *key;
	va_list ap;
	int ret;

	assert_non_null(p);
	ret = frec_probes__add_spec(p, spec, err, sizeof(err));
	if (ret == 0)
		fail_msg("'%s' accepted", spec);
	if (expect_ret)
		assert_int_equal(ret, expect_ret);
	assert_int_equal(frec_probes__count(p), 0);
	if (!strstr(err, fmt("probe '%s': ", spec)))
		fail_msg("message does not name the spec '%s': %s", spec, err);
	assert_null(strchr(err, '\n'));
	va_start(ap, expect_ret);
	while ((key = va_arg(ap, const char *)))
		if (!strstr(err, key))
			fail_msg("'%s': message lacks '%s': %s", spec, key, err);
	va_end(ap);
	frec_probes__free(p);
}

static void test_uprobe_by_path(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const char *spec = fmt("uprobe:%s:frec_target_fp", target);
	const struct frec_probe_info *t;
	size_t n;

	t = add_ok(p, spec, &n);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].id, 1);
	assert_int_equal(t[0].kind, FREC_PROBE_UPROBE);
	assert_string_equal(t[0].name, spec);
	assert_string_equal(t[0].path, target);
	assert_string_equal(t[0].func, "frec_target_fp");
	assert_int_equal(t[0].offset, 0);
	assert_int_equal(t[0].nargs, 3);
	/* gcc and ld on Debian always emit a 20-byte GNU build-id. */
	assert_int_equal(strlen(t[0].build_id), 40);
	assert_int_equal(strspn(t[0].build_id, "0123456789abcdef"), 40);
	frec_probes__free(p);
}

static void test_func_is_two_ids(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const char *spec = fmt("func:%s:frec_target_nofp", target);
	const struct frec_probe_info *t;
	size_t n;

	add_ok(p, fmt("usdt:%s:frec_target:tick", target), &n);
	t = add_ok(p, spec, &n);
	assert_int_equal(n, 3);
	assert_int_equal(t[1].id, 2);
	assert_int_equal(t[2].id, 3);
	assert_int_equal(t[1].kind, FREC_PROBE_UPROBE);
	assert_int_equal(t[2].kind, FREC_PROBE_URETPROBE);
	assert_string_equal(t[1].name, spec);
	assert_string_equal(t[2].name, spec);
	assert_string_equal(t[1].path, t[2].path);
	assert_string_equal(t[1].func, "frec_target_nofp");
	assert_string_equal(t[2].func, "frec_target_nofp");
	assert_int_equal(t[1].nargs, 3);
	assert_int_equal(t[2].nargs, 0);
	frec_probes__free(p);
}

static void test_usdt(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const struct frec_probe_info *t;
	size_t n;

	t = add_ok(p, fmt("usdt:%s:frec_target:tick", target), &n);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].kind, FREC_PROBE_USDT);
	assert_string_equal(t[0].func, "frec_target:tick");
	assert_int_equal(t[0].nargs, 3);	/* DTRACE_PROBE3 */
	assert_int_equal(t[0].offset, 0);
	frec_probes__free(p);
}

static void test_aliases_and_offset(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const struct frec_probe_info *t;
	size_t n;

	add_ok(p, fmt("u:%s:frec_target_fp+1", target), &n);
	add_ok(p, fmt("ur:%s:frec_target_fp", target), &n);
	add_ok(p, fmt("U:%s:frec_target:tick", target), &n);
	t = add_ok(p, fmt("f:%s:frec_target_fp", target), &n);
	assert_int_equal(n, 5);
	assert_int_equal(t[0].kind, FREC_PROBE_UPROBE);
	assert_int_equal(t[0].offset, 1);
	assert_int_equal(t[1].kind, FREC_PROBE_URETPROBE);
	assert_int_equal(t[2].kind, FREC_PROBE_USDT);
	assert_int_equal(t[3].kind, FREC_PROBE_UPROBE);
	assert_int_equal(t[4].kind, FREC_PROBE_URETPROBE);
	frec_probes__free(p);
}

static void test_library_by_name_and_path(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const struct frec_probe_info *t;
	char *old = getenv("LD_LIBRARY_PATH") ? strdup(getenv("LD_LIBRARY_PATH")) : NULL;
	size_t n;

	add_ok(p, fmt("uprobe:%s:frec_lib_mul", lib), &n);
	setenv("LD_LIBRARY_PATH", fmt("/nonexistent:%s", dir), 1);
	add_ok(p, "uprobe:libfrectarget:frec_lib_mul", &n);
	t = add_ok(p, "uprobe:libfrectarget.so:frec_lib_mul", &n);
	if (old)
		setenv("LD_LIBRARY_PATH", old, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	free(old);
	assert_int_equal(n, 3);
	assert_string_equal(t[0].path, lib);
	assert_string_equal(t[1].path, lib);
	assert_string_equal(t[2].path, lib);
	assert_string_equal(t[1].name, "uprobe:libfrectarget:frec_lib_mul");
	assert_string_equal(t[0].build_id, t[1].build_id);
	frec_probes__free(p);
}

static int ends_with(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a >= b && !strcmp(s + a - b, sfx);
}

static void test_libc_by_name(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const struct frec_probe_info *t;
	char path[PATH_MAX];
	size_t n;

	/* bpftrace's uprobe:libc:malloc: the runtime libc.so.6, never the
	 * libc.so linker script next to it. */
	t = add_ok(p, "uprobe:libc:malloc", &n);
	if (!ends_with(t[0].path, "/libc.so.6"))
		fail_msg("libc resolved to %s", t[0].path);
	assert_int_equal(probe_path__ld_cache(NULL, "libc", path, sizeof(path)), 0);
	assert_true(ends_with(path, "/libc.so.6"));
	assert_int_equal(probe_path__ld_cache(NULL, "libno_such_lib_frec", path, sizeof(path)), -ENOENT);
	frec_probes__free(p);
}

static void test_relative_path_and_executable_on_path(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const struct frec_probe_info *t;
	char cwd[PATH_MAX], *old_path = strdup(getenv("PATH") ? getenv("PATH") : "");
	size_t n;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	add_ok(p, "uprobe:./probe_target:frec_target_fp", &n);
	assert_int_equal(chdir(cwd), 0);
	setenv("PATH", fmt("/nonexistent:%s", dir), 1);
	t = add_ok(p, "uprobe:probe_target:frec_target_fp", &n);
	setenv("PATH", old_path, 1);
	free(old_path);
	assert_string_equal(t[0].path, target);
	assert_string_equal(t[1].path, target);
	frec_probes__free(p);
}

static void test_address_in_stripped_file(void **state)
{
	struct frec_probes *p = frec_probes__new();
	struct elf_file *ef = elf_file__open(target);
	const struct frec_probe_info *t;
	struct elf_func fn;
	size_t n;

	assert_non_null(ef);
	assert_int_equal(elf_file__find_func(ef, "frec_target_fp", &fn), ELF_FUNC_FOUND);
	assert_true(fn.size > 0);
	elf_file__close(ef);
	add_ok(p, fmt("uprobe:%s:0x%llx", stripped, (unsigned long long)fn.addr), &n);
	t = add_ok(p, fmt("uprobe:%s:+%llu", stripped, (unsigned long long)fn.addr), &n);
	assert_string_equal(t[0].func, fmt("0x%llx", (unsigned long long)fn.addr));
	assert_string_equal(t[1].func, t[0].func);
	assert_int_equal(t[0].offset, 0);
	/* Stripped of .symtab, but the build-id note stays. */
	assert_int_equal(strlen(t[0].build_id), 40);
	frec_probes__free(p);
}

static void test_bad_syntax(void **state)
{
	add_bad("", -EINVAL, "no probe kind", "uprobe:PATH:FUNC", NULL);
	add_bad("malloc", -EINVAL, "no probe kind", NULL);
	add_bad("kprobe:do_sys_open", -EINVAL, "unknown probe kind 'kprobe'", "uprobe:", NULL);
	add_bad(fmt("uprobe:%s", target), -EINVAL, "no function", "uprobe:PATH:FUNC", NULL);
	add_bad("uprobe::malloc", -EINVAL, "empty PATH", NULL);
	add_bad(fmt("uprobe:%s:", target), -EINVAL, "empty FUNC", NULL);
	add_bad(fmt("uprobe:%s:frec_target_fp+zz", target), -EINVAL, "bad offset '+zz'", "+0xN", NULL);
	add_bad(fmt("uretprobe:%s:frec_target_fp+4", target), -EINVAL, "drop +4", NULL);
	add_bad(fmt("func:%s:frec_target_fp+4", target), -EINVAL, "drop +4", NULL);
	add_bad(fmt("func:%s:0x10", target), -EINVAL, "needs a function", NULL);
	add_bad(fmt("uretprobe:%s:+16", target), -EINVAL, "needs a function", NULL);
	add_bad(fmt("uprobe:%s:12ab", target), -EINVAL, "neither a name nor an address", NULL);
	add_bad(fmt("usdt:%s:tick", target), -EINVAL, "no PROVIDER", "usdt:PATH:PROVIDER:NAME", NULL);
	add_bad(fmt("usdt:%s", target), -EINVAL, "no PROVIDER:NAME", NULL);
	add_bad("usdt::a:b", -EINVAL, "empty PATH, PROVIDER or NAME", NULL);
}

static void test_bad_files(void **state)
{
	add_bad("uprobe:/nonexistent/frec/app:main", -ENOENT, "/nonexistent/frec/app does not exist",
		"check the path", NULL);
	add_bad("uprobe:libno_such_lib_frec:f", -ENOENT, "no library 'libno_such_lib_frec'",
		"absolute path", NULL);
	add_bad("uprobe:no_such_prog_frec:f", -ENOENT, "no executable 'no_such_prog_frec' on PATH",
		NULL);
	add_bad("uprobe:/etc/passwd:main", -ENOEXEC, "/etc/passwd is not an ELF file", NULL);
	add_bad(fmt("uprobe:%s:main", dir), -ENOEXEC, "is not an ELF file", NULL);
}

static void test_bad_symbols(void **state)
{
	add_bad(fmt("uprobe:%s:no_such_func", target), -ENOENT, "no function 'no_such_func'",
		"(not stripped)", "nm", NULL);
	add_bad(fmt("uprobe:%s:frec_target_fp", stripped), -ENOENT, "no symbol 'frec_target_fp'",
		"stripped", "use +OFFSET or a build with symbols", NULL);
	add_bad(fmt("func:%s:frec_target_fp", stripped), -ENOENT, "stripped", NULL);
	add_bad(fmt("uprobe:%s:n_calls", target), -EINVAL, "'n_calls'", "data, not a function", NULL);
	add_bad(fmt("uprobe:%s:frec_lib_mul", target), -ENOENT, "only imported",
		"uprobe:libc:frec_lib_mul", NULL);
	add_bad(fmt("uprobe:%s:frec_target_fp+100000", target), -ERANGE,
		"+100000 is beyond the end of 'frec_target_fp'", "use an offset below", NULL);
	add_bad(fmt("uprobe:%s:0x1", target), -EINVAL, "not in an executable segment", NULL);
	/* strlen in glibc is an IFUNC: its symbol is the resolver. */
	add_bad("uprobe:libc:strlen", -EINVAL, "IFUNC", "implementation", NULL);
}

static void test_bad_usdt(void **state)
{
	add_bad(fmt("usdt:%s:frec_target:nosuch", target), -ENOENT,
		"no USDT probe frec_target:nosuch", "which has frec_target:tick, frec_target:global",
		"use one of those", NULL);
	/* A global variable as an argument: "-8@n_calls(%rip)". */
	add_bad(fmt("usdt:%s:frec_target:global", target), -EINVAL,
		"argument 1 of USDT probe frec_target:global", "(%rip)", "cannot read",
		"local copy", NULL);
	add_bad(fmt("usdt:%s:a:b", lib), -ENOENT, "has no USDT probes", "sys/sdt.h", NULL);
}

static void test_too_many_probes(void **state)
{
	struct frec_probes *p = frec_probes__new();
	const char *spec = fmt("func:%s:frec_target_fp", target);
	char err[512];
	size_t n, i;

	/* 127 func: specs are 254 ids; a 128th would need ids 255 and 256. */
	for (i = 0; i < 127; i++)
		add_ok(p, spec, &n);
	assert_int_equal(n, 254);
	assert_int_equal(frec_probes__add_spec(p, spec, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "too many probes"));
	assert_int_equal(frec_probes__count(p), 254);
	add_ok(p, fmt("uprobe:%s:frec_target_fp", target), &n);
	assert_int_equal(n, 255);
	assert_int_equal(frec_probes__table(p, &n)[254].id, 255);
	frec_probes__free(p);
}

static void test_print(void **state)
{
	struct frec_probes *p = frec_probes__new();
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f;

	add_ok(p, fmt("func:%s:frec_target_fp", target), &n);
	add_ok(p, fmt("usdt:%s:frec_target:tick", target), &n);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	frec_probes__print(p, f);
	fclose(f);
	assert_non_null(strstr(buf, fmt("probe 1: func:%s:frec_target_fp -> %s:frec_target_fp+0 entry (3 args)",
					 target, target)));
	assert_non_null(strstr(buf, fmt("probe 2: func:%s:frec_target_fp -> %s:frec_target_fp return",
					 target, target)));
	assert_non_null(strstr(buf, fmt("probe 3: usdt:%s:frec_target:tick -> %s:frec_target:tick usdt (3 args)",
					 target, target)));
	free(buf);
	frec_probes__free(p);
}

static void test_attach_nothing(void **state)
{
	struct frec_probes *p = frec_probes__new();
	struct frec_probes_attach_opts o = { .sz = sizeof(o), .rings_fd = -1, .counters_fd = -1 };
	char err[128];
	size_t n = 7;

	/* No probes: nothing to load, so no privileges needed. */
	assert_int_equal(frec_probes__attach(p, &o, err, sizeof(err)), 0);
	assert_null(frec_probes__table(p, &n));
	assert_int_equal(n, 0);
	frec_probes__detach(p);
	frec_probes__detach(p);
	frec_probes__free(p);
	frec_probes__free(NULL);
}

static void test_spec_parse(void **state)
{
	struct probe_spec ps;
	char err[256];

	assert_int_equal(probe_spec__parse("uprobe:/a:b:c+0x10", &ps, err, sizeof(err)), 0);
	assert_int_equal(ps.kind, PROBE_SPEC_UPROBE);
	assert_string_equal(ps.path, "/a:b");	/* the last ':' ends PATH */
	assert_string_equal(ps.func, "c");
	assert_int_equal(ps.offset, 16);
	assert_true(ps.has_offset);
	probe_spec__free(&ps);

	assert_int_equal(probe_spec__parse("usdt:libfoo:prov:name", &ps, err, sizeof(err)), 0);
	assert_int_equal(ps.kind, PROBE_SPEC_USDT);
	assert_string_equal(ps.path, "libfoo");
	assert_string_equal(ps.provider, "prov");
	assert_string_equal(ps.name, "name");
	probe_spec__free(&ps);

	assert_int_equal(probe_spec__parse("uprobe:/x:4096", &ps, err, sizeof(err)), 0);
	assert_string_equal(ps.func, "");
	assert_int_equal(ps.offset, 4096);
	probe_spec__free(&ps);

	assert_int_equal(probe_spec__parse("uprobe:/x:f +1", &ps, err, sizeof(err)), -EINVAL);
	assert_int_equal(probe_spec__parse("uprobe:/x:f g", &ps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "space"));
}

static void test_usdt_arg_count(void **state)
{
	assert_int_equal(elf_usdt_args__count(""), 0);
	assert_int_equal(elf_usdt_args__count("-8@%rax"), 1);
	assert_int_equal(elf_usdt_args__count("-8@%rax -4@$1  -4@$2 "), 3);
}

/* A hand-made ld.so.cache: the parser must take only this architecture's
 * libc6 entries, prefer a versioned name, and survive a truncated file. */
static void test_ld_cache_file(void **state)
{
	struct {
		char magic[20];
		uint32_t nlibs, len_strings;
		uint8_t flags, pad[3];
		uint32_t ext, unused[3];
		struct { int32_t flags; uint32_t key, value, osv; uint64_t hwcap; } e[3];
		char strings[128];
	} c;
	char path[PATH_MAX], file[] = "/tmp/frec-ldcache.XXXXXX";
	size_t s0 = offsetof(__typeof__(c), strings);
	int fd;
	FILE *f;

	memset(&c, 0, sizeof(c));
	memcpy(c.magic, "glibc-ld.so.cache1.1", 20);
	c.nlibs = 3;
	strcpy(c.strings, "libq.so");				/* 0 */
	strcpy(c.strings + 8, "/wrong/libq.so");		/* 8 */
	strcpy(c.strings + 23, "libq.so.2");			/* 23 */
	strcpy(c.strings + 33, "/right/libq.so.2");		/* 33 */
	strcpy(c.strings + 50, "/other-arch/libq.so.2");	/* 50 */
#if defined(__x86_64__)
	const int32_t mine = 0x0303, other = 0x0a03;
#else
	const int32_t mine = 0x0a03, other = 0x0303;
#endif
	c.e[0].flags = other, c.e[0].key = s0 + 23, c.e[0].value = s0 + 50;
	c.e[1].flags = mine, c.e[1].key = s0, c.e[1].value = s0 + 8;
	c.e[2].flags = mine, c.e[2].key = s0 + 23, c.e[2].value = s0 + 33;

	fd = mkstemp(file);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fwrite(&c, sizeof(c), 1, f);
	fclose(f);
	assert_int_equal(probe_path__ld_cache(file, "libq", path, sizeof(path)), 0);
	assert_string_equal(path, "/right/libq.so.2");
	assert_int_equal(probe_path__ld_cache(file, "libq.so", path, sizeof(path)), 0);
	assert_string_equal(path, "/wrong/libq.so");
	assert_int_equal(probe_path__ld_cache(file, "libz", path, sizeof(path)), -ENOENT);
	assert_int_equal(truncate(file, 60), 0);
	assert_int_equal(probe_path__ld_cache(file, "libq", path, sizeof(path)), -ENOENT);
	unlink(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_parse),
		cmocka_unit_test(test_usdt_arg_count),
		cmocka_unit_test(test_ld_cache_file),
		cmocka_unit_test(test_uprobe_by_path),
		cmocka_unit_test(test_func_is_two_ids),
		cmocka_unit_test(test_usdt),
		cmocka_unit_test(test_aliases_and_offset),
		cmocka_unit_test(test_library_by_name_and_path),
		cmocka_unit_test(test_libc_by_name),
		cmocka_unit_test(test_relative_path_and_executable_on_path),
		cmocka_unit_test(test_address_in_stripped_file),
		cmocka_unit_test(test_bad_syntax),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bad_symbols),
		cmocka_unit_test(test_bad_usdt),
		cmocka_unit_test(test_too_many_probes),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_attach_nothing),
	};

	return cmocka_run_group_tests(tests, setup_paths, NULL);
}
