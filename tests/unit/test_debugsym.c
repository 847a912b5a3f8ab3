// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --debug-dir (tools/debugsym.c): a stripped program's frames are named
 * from its separate debug file in DIR/.build-id/xx/yyyy.debug, the file
 * offset converted with the stripped file's program headers; a debug file
 * alone (whose offsets objcopy zeroed), one with another build-id, or an
 * offset outside every function names nothing. And end to end: report
 * --folded and dump --json name the frames with --debug-dir and show
 * module+0xOFFSET with the build-id without it.
 *
 * Builds its test program with the compiler and binutils at run time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include "synth.h"
#include "tools_test.h"
#include "../../tools/debugsym.h"

struct prog {
	char dir[64];
	char bin[128], stripped[128], dbgdir[128], snap[128];
	char build_id[128];
	__u64 off_inner, off_middle, off_outer;	/* file offsets of the functions */
};

static const char prog_src[] =
	"__attribute__((noinline)) int inner(int x) { __asm__ volatile(\"\"); return x * 3; }\n"
	"__attribute__((noinline)) int middle(int x) { return inner(x) + 1; }\n"
	"__attribute__((noinline)) int outer(int x) { return middle(x) + 2; }\n"
	"int main(int c, char **v) { (void)v; return outer(c); }\n";

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The file offset of function name in the ELF file path. */
static __u64 func_offset(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	__u64 addr = 0, off = 0;
	size_t n;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			gelf_getsym(d, (int)i, &s);
			if (!strcmp(elf_strptr(e, sh.sh_link, s.st_name), name))
				addr = s.st_value;
		}
	}
	assert_int_not_equal(addr, 0);
	assert_int_equal(elf_getphdrnum(e, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		gelf_getphdr(e, (int)i, &ph);
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz)
			off = addr - ph.p_vaddr + ph.p_offset;
	}
	elf_end(e);
	close(fd);
	assert_int_not_equal(off, 0);
	return off;
}

static int setup(void **state)
{
	struct prog *p = calloc(1, sizeof(*p));
	char src[160], *out = NULL;
	size_t len;
	FILE *f;

	assert_non_null(p);
	assert_int_equal(synth_tmpdir(p->dir), 0);
	snprintf(src, sizeof(src), "%s/prog.c", p->dir);
	snprintf(p->bin, sizeof(p->bin), "%s/prog", p->dir);
	snprintf(p->stripped, sizeof(p->stripped), "%s/prog.stripped", p->dir);
	snprintf(p->dbgdir, sizeof(p->dbgdir), "%s/debug", p->dir);
	snprintf(p->snap, sizeof(p->snap), "%s/s.frec", p->dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(prog_src, f);
	fclose(f);
	assert_int_equal(sh("cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o %s %s", p->bin, src), 0);
	assert_int_equal(sh("objcopy --strip-all %s %s", p->bin, p->stripped), 0);
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "readelf -n %s | sed -n 's/.*Build ID: *//p'", p->bin);
		assert_int_equal(run_cmd(cmd, &out, &len), 0);
		assert_true(len > 8);
		snprintf(p->build_id, sizeof(p->build_id), "%.*s", (int)strcspn(out, "\n"), out);
		free(out);
	}
	assert_int_equal(sh("mkdir -p %s/.build-id/%.2s && objcopy --only-keep-debug %s "
			    "%s/.build-id/%.2s/%s.debug", p->dbgdir, p->build_id, p->bin, p->dbgdir,
			    p->build_id, p->build_id + 2), 0);
	p->off_inner = func_offset(p->bin, "inner");
	p->off_middle = func_offset(p->bin, "middle");
	p->off_outer = func_offset(p->bin, "outer");
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct prog *p = *state;

	sh("rm -rf %s", p->dir);
	free(p);
	return 0;
}

static void test_name(void **state)
{
	struct prog *p = *state;
	struct frec_debugsym *ds = frec_debugsym__new(p->dbgdir);
	const char *sym = NULL;
	__u64 off = 0;

	assert_non_null(ds);
	assert_int_equal(frec_debugsym__name(ds, p->stripped, p->build_id, p->off_inner + 1, &sym,
					     &off), 0);
	assert_string_equal(sym, "inner");
	assert_int_equal(off, 1);
	assert_int_equal(frec_debugsym__name(ds, p->stripped, p->build_id, p->off_outer, &sym, &off), 0);
	assert_string_equal(sym, "outer");
	assert_int_equal(off, 0);
	/* offset 0 is the ELF header: in no function */
	assert_int_equal(frec_debugsym__name(ds, p->stripped, p->build_id, 0, &sym, &off), -ENOENT);
	/* no build-id, a malformed one, one with no debug file */
	assert_int_equal(frec_debugsym__name(ds, p->stripped, "", p->off_inner, &sym, &off), -ENOENT);
	assert_int_equal(frec_debugsym__name(ds, p->stripped, "../x", p->off_inner, &sym, &off),
			 -ENOENT);
	assert_int_equal(frec_debugsym__name(ds, p->stripped, "00112233445566778899", p->off_inner,
					     &sym, &off), -ENOENT);
	frec_debugsym__free(ds);
}

/* Without the module's headers the debug file's zeroed offsets cannot place
 * the code: nothing is named rather than something wrong. */
static void test_no_module(void **state)
{
	struct prog *p = *state;
	struct frec_debugsym *ds = frec_debugsym__new(p->dbgdir);
	const char *sym = NULL;
	__u64 off;

	assert_non_null(ds);
	assert_int_equal(frec_debugsym__name(ds, NULL, p->build_id, p->off_inner, &sym, &off), -ENOENT);
	frec_debugsym__free(ds);
	ds = frec_debugsym__new(p->dbgdir);
	assert_int_equal(frec_debugsym__name(ds, "/nonexistent/prog", p->build_id, p->off_inner, &sym,
					     &off), -ENOENT);
	frec_debugsym__free(ds);
}

/* A debug file filed under another build-id is not this program's. */
static void test_wrong_build_id(void **state)
{
	struct prog *p = *state;
	char other[] = "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef";
	struct frec_debugsym *ds;
	const char *sym = NULL;
	__u64 off;

	assert_int_equal(sh("mkdir -p %s/.build-id/de && cp %s/.build-id/%.2s/%s.debug "
			    "%s/.build-id/de/%s.debug", p->dbgdir, p->dbgdir, p->build_id,
			    p->build_id + 2, p->dbgdir, other + 2), 0);
	ds = frec_debugsym__new(p->dbgdir);
	assert_int_equal(frec_debugsym__name(ds, p->stripped, other, p->off_inner, &sym, &off), -ENOENT);
	frec_debugsym__free(ds);
}

/* A symbolizer that knows the stripped program's mapping but no names. */
struct user_ctx {
	struct prog *p;
};

static __u64 u_image(void *ctx, __u32 tgid, const struct frec_image_id *id, __u64 ts)
{
	(void)ctx;
	(void)tgid;
	(void)id;
	(void)ts;
	return 0;
}

static int u_kernel(void *ctx, __u64 ip, const char **sym, __u64 *off)
{
	(void)ctx;
	(void)ip;
	(void)sym;
	(void)off;
	return -ENOENT;
}

#define PROG_BASE 0x555500000000ull

static int u_user(void *ctx, __u32 tgid, __u64 image, __u64 ip, struct frec_user_frame *out)
{
	struct user_ctx *u = ctx;

	(void)tgid;
	(void)image;
	memset(out, 0, sizeof(*out));
	out->path = u->p->stripped;
	out->build_id = u->p->build_id;
	out->file_offset = ip - PROG_BASE;
	return 0;
}

static void make_snapshot(struct prog *p)
{
	struct frec_recorder *rec = synth_recorder(1);
	struct user_ctx u = { .p = p };
	struct frec_symbolizer sy = { .ctx = &u, .image = u_image, .kernel = u_kernel, .user = u_user };
	/* one byte in: the program's functions are a few bytes long */
	__u64 ips[3] = { PROG_BASE + p->off_inner + 1, PROG_BASE + p->off_middle + 1,
			 PROG_BASE + p->off_outer + 1 };
	__u64 t = 1000000000ull;

	assert_non_null(rec);
	frec_recorder__set_symbolizer(rec, &sy);
	frec_recorder__tick(rec, t);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 201, 200, "prog");
	synth_switch(rec, t + 1000000, 0, 201, 200, "prog", 1, 0, 0, "swapper/0");
	synth_stack(rec, t + 1000000, 0, 201, 200, NULL, 0, ips, 3, 0);
	synth_switch(rec, t + 4000000, 0, 0, 0, "swapper/0", 0, 201, 200, "prog");
	{
		const char *slash = strrchr(p->snap, '/');
		char dir[128];

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - p->snap), p->snap);
		assert_int_equal(synth_write(rec, dir, slash + 1, t + 5000000), 0);
	}
	frec_recorder__free(rec);
}

static void test_report_debug_dir(void **state)
{
	struct prog *p = *state;
	struct frec_report_opts o = { .top = 10, .folded = true, .debug_dir = p->dbgdir };
	struct frec_dump_opts d = { .json = true, .debug_dir = p->dbgdir };
	struct captured c;
	char want[512];
	const char *base;
	FILE *out, *err;

	make_snapshot(p);
	c = run_report(p->snap, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_string_equal(c.out, "prog;outer;middle;inner 3000\n");
	captured_free(&c);

	/* an empty debug dir: the module and offset, never a name */
	o.debug_dir = p->dir;
	c = run_report(p->snap, &o);
	base = strrchr(p->stripped, '/') + 1;
	snprintf(want, sizeof(want), "prog;%s+0x%llx;%s+0x%llx;%s+0x%llx 3000\n", base,
		 (unsigned long long)p->off_outer + 1, base,
		 (unsigned long long)p->off_middle + 1, base,
		 (unsigned long long)p->off_inner + 1);
	assert_string_equal(c.out, want);
	captured_free(&c);

	capture_open(&c, &out, &err);
	c.status = frec_dump__run(p->snap, &d, out, err);
	capture_close(out, err);
	snprintf(want, sizeof(want), "\"stack\":[{\"sym\":\"inner\",\"sym_offset\":1,\"module\":\"%s\","
		 "\"file_offset\":%llu,\"build_id\":\"%s\"}", p->stripped,
		 (unsigned long long)p->off_inner + 1, p->build_id);
	expect(c.out, want);
	captured_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_module, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_debug_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
