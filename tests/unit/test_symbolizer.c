// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frecd's stack symbolizer and its parsers: kallsyms text, /proc/PID/maps
 * lines, the function symbols of an ELF file (this test's own binary, a
 * stripped copy, and a stripped copy with .gnu_debugdata made with objcopy
 * and xz), and the symbolizer on this very process.
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
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>
#include "frecd/elf_file.h"
#include "frecd/elf_syms.h"
#include "frecd/ksyms.h"
#include "frecd/proc_maps.h"
#include "frecd/symbolizer.h"

static __u64 boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The helper has nothing left to do, and frecd's drain has passed now (as
 * it does before any seal names a frame): what was read may be used. */
static int settle(struct frecd_symbolizer *s)
{
	int ret = frecd_symbolizer__drain(s, 10000);

	frecd_symbolizer__drained(s, boot_ns());
	return ret;
}

/* This test binary's path. */
static void self_exe(char exe[PATH_MAX])
{
	ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 1);

	assert_true(n > 0);
	exe[n] = '\0';
}

/* A symbolizer with opts o, started; *iface its interface. */
static struct frecd_symbolizer *started(const struct frecd_symbolizer_opts *o,
					const struct frec_symbolizer **iface)
{
	struct frecd_symbolizer *s = frecd_symbolizer__new(o);

	assert_non_null(s);
	*iface = frecd_symbolizer__iface(s);
	assert_int_equal(frecd_symbolizer__start(s), 0);
	return s;
}

/* A function whose name the tests look for; global, so that a stripped
 * copy keeps it nowhere but in .gnu_debugdata. */
__attribute__((noinline)) int frec_test_marker_fn(int x);
__attribute__((noinline)) int frec_test_marker_fn(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t do_nanosleep\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 W weak_fn\n"
	"ffffffff81000300 T alias_of_weak\n"
	"ffffffff81001000 T _etext\n"
	"garbage line\n"
	"ffffffffc0a01000 t mod_fn\t[nf_tables]\n"
	"ffffffffc0c02000 t old_fn\t[gone]\n"
	"ffffffffc0b00000 t bpf_prog_0123456789abcdef_x\t[bpf]\n"
	"ffffffff81000080 T early_fn";	/* unsorted and no newline at the end */

static const char modules_text[] =
	"nf_tables 364544 0 - Live 0xffffffffc0a00000\n"
	"bad line\n"
	"zero 4096 0 - Live 0x0000000000000000\n";

static void test_ksyms(void **state)
{
	struct frecd_ksyms *ks = frecd_ksyms__parse(kallsyms_text, strlen(kallsyms_text));
	const char *name;
	__u64 off;

	assert_non_null(ks);
	assert_true(frecd_ksyms__readable(ks));
	/* data is left out, two names at one address count once */
	assert_int_equal(frecd_ksyms__count(ks), 8);
	assert_int_equal(frecd_ksyms__add_modules(ks, modules_text, strlen(modules_text)), 0);
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffff81000123ull, &name, &off), 0);
	assert_string_equal(name, "do_nanosleep");
	assert_int_equal(off, 0x23);
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffff81000080ull, &name, &off), 0);
	assert_string_equal(name, "early_fn");
	assert_int_equal(off, 0);
	/* past a data symbol: still the function before it */
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffff81000250ull, &name, &off), 0);
	assert_string_equal(name, "do_nanosleep");
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffff81000301ull, &name, &off), 0);
	assert_string_equal(name, "weak_fn");
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffffc0a01010ull, &name, &off), 0);
	assert_string_equal(name, "mod_fn [nf_tables]");
	assert_int_equal(off, 0x10);
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffff80000000ull, &name, &off), -ENOENT);
	/* past the kernel's text: not named after the last symbol in it */
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffff81001000ull, &name, &off), -ENOENT);
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffffa0000000ull, &name, &off), -ENOENT);
	/* a module's memory ends where /proc/modules says */
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffffc0a58fffull, &name, &off), 0);
	assert_string_equal(name, "mod_fn [nf_tables]");
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffffc0a59000ull, &name, &off), -ENOENT);
	/* a module /proc/modules does not list (unloaded since) */
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffffc0c02010ull, &name, &off), -ENOENT);
	/* a BPF program (no module extent): never named */
	assert_int_equal(frecd_ksyms__lookup(ks, 0xffffffffc0b00010ull, &name, &off), -ENOENT);
	frecd_ksyms__free(ks);
}

/* Without CAP_SYSLOG every address reads 0: no names at all, not wrong ones. */
static void test_ksyms_hidden(void **state)
{
	static const char text[] = "0000000000000000 T _stext\n"
				   "0000000000000000 t do_nanosleep\n";
	struct frecd_ksyms *ks = frecd_ksyms__parse(text, strlen(text));
	const char *name;
	__u64 off;

	assert_non_null(ks);
	assert_false(frecd_ksyms__readable(ks));
	assert_int_equal(frecd_ksyms__count(ks), 0);
	assert_int_equal(frecd_ksyms__lookup(ks, 0x10, &name, &off), -ENOENT);
	assert_int_equal(frecd_ksyms__lookup(ks, 0, &name, &off), -ENOENT);
	frecd_ksyms__free(ks);
}

/* The real file parses, whatever the privileges. */
static void test_ksyms_load(void **state)
{
	struct frecd_ksyms *ks = frecd_ksyms__load(FRECD_KALLSYMS, FRECD_MODULES);
	const char *name;
	__u64 off;

	if (!ks)
		skip();
	if (frecd_ksyms__readable(ks)) {
		assert_true(frecd_ksyms__count(ks) > 1000);
		assert_int_equal(frecd_ksyms__lookup(ks, ~0ull, &name, &off), -ENOENT);
	}
	frecd_ksyms__free(ks);
	assert_null(frecd_ksyms__load("/nonexistent/kallsyms", NULL));
	assert_int_equal(errno, ENOENT);
}

#define PARSE(s, m) frecd_maps__parse_line(s, strlen(s), m)

static void test_maps_lines(void **state)
{
	struct frecd_map m;

	assert_int_equal(PARSE("7f2c1a028000-7f2c1a19d000 r-xp 00028000 fe:01 1835123                    /usr/lib/x86_64-linux-gnu/libc.so.6", &m), 0);
	assert_int_equal(m.start, 0x7f2c1a028000ull);
	assert_int_equal(m.end, 0x7f2c1a19d000ull);
	assert_int_equal(m.pgoff, 0x28000);
	assert_int_equal(m.dev_major, 0xfe);
	assert_int_equal(m.dev_minor, 1);
	assert_int_equal(m.inode, 1835123);
	assert_true(m.exec);
	assert_false(m.deleted);
	assert_int_equal(m.path_len, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_memory_equal(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", m.path_len);

	assert_int_equal(PARSE("55d0c0a00000-55d0c0a01000 r-xp 00001000 08:02 42 /tmp/a b (deleted)", &m), 0);
	assert_true(m.deleted);
	assert_int_equal(m.path_len, strlen("/tmp/a b"));
	assert_memory_equal(m.path, "/tmp/a b", m.path_len);

	assert_int_equal(PARSE("7ffd3b1f2000-7ffd3b1f4000 r-xp 00000000 00:00 0                          [vdso]", &m), 0);
	assert_int_equal(m.inode, 0);
	assert_memory_equal(m.path, "[vdso]", m.path_len);
	assert_int_equal(PARSE("7f0000000000-7f0000001000 rw-p 00000000 00:00 0", &m), 0);
	assert_false(m.exec);
	assert_int_equal(m.path_len, 0);

	assert_int_equal(PARSE("", &m), -EINVAL);
	assert_int_equal(PARSE("7f00-7e00 r-xp 00000000 00:00 0 /x", &m), -EINVAL);	/* end < start */
	assert_int_equal(PARSE("7f00 r-xp 00000000 00:00 0 /x", &m), -EINVAL);
	assert_int_equal(PARSE("7f00-7f10 r-xp 0000zz00 00:00 0 /x", &m), -EINVAL);
	assert_int_equal(PARSE("7f00-7f10 r-x", &m), -EINVAL);
	assert_int_equal(PARSE("11112222333344445-7f10 r-xp 0 00:00 0 /x", &m), -EINVAL);
}

struct find_ctx {
	__u64 addr;
	struct frecd_map m;
	char path[PATH_MAX];
	int found;
};

static int find_addr(const struct frecd_map *m, void *arg)
{
	struct find_ctx *f = arg;

	if (f->addr < m->start || f->addr >= m->end)
		return 0;
	f->m = *m;
	snprintf(f->path, sizeof(f->path), "%.*s", (int)m->path_len, m->path);
	f->found++;
	return 1;
}

/* This process's own maps: the marker function's address is in an
 * executable mapping of this binary. */
static void test_maps_self(void **state)
{
	struct find_ctx f = { .addr = (__u64)(uintptr_t)frec_test_marker_fn };
	char exe[PATH_MAX];

	assert_int_equal(frecd_maps__read(getpid(), find_addr, &f), 1);
	assert_int_equal(f.found, 1);
	assert_true(f.m.exec);
	self_exe(exe);
	assert_string_equal(f.path, exe);
	assert_int_equal(frecd_maps__read(0x7fffffff, find_addr, &f), -ENOENT);
}

/* The name and offset elf_syms gives for the marker function's address + 5,
 * in the file at path, or NULL. */
static const char *marker_in(const char *path, unsigned int *sources, __u64 *off)
{
	struct find_ctx f = { .addr = (__u64)(uintptr_t)frec_test_marker_fn + 5 };
	static char name[128];
	struct elf_syms *s;
	struct elf_file *ef;
	const char *sym;
	__u64 file_off, addr;

	assert_int_equal(frecd_maps__read(getpid(), find_addr, &f), 1);
	file_off = f.addr - f.m.start + f.m.pgoff;
	ef = elf_file__open(path);
	assert_non_null(ef);
	s = elf_syms__read(ef);
	elf_file__close(ef);
	assert_non_null(s);
	*sources = elf_syms__sources(s);
	assert_int_equal(elf_syms__offset_to_addr(s, file_off, &addr), 0);
	assert_int_equal(elf_syms__offset_to_addr(s, 1ull << 60, &addr), -ERANGE);
	if (elf_syms__lookup(s, addr, &sym, off)) {
		elf_syms__free(s);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s", sym);
	elf_syms__free(s);
	return name;
}

static void test_elf_symtab(void **state)
{
	unsigned int sources;
	const char *name;
	__u64 off;

	name = marker_in("/proc/self/exe", &sources, &off);
	assert_non_null(name);
	assert_string_equal(name, "frec_test_marker_fn");
	assert_int_equal(off, 5);
	assert_true(sources & ELF_SYMS_SYMTAB);
}

static char tmpdir[] = "/tmp/frec-test-symbolizer-XXXXXX";

static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * Stripped copies of this binary: one bare, one with .gnu_debugdata that
 * keeps the marker function, as distributions' MiniDebugInfo does. Made
 * with binutils and xz; skipped where they are missing.
 */
static void test_elf_stripped(void **state)
{
	char bare[PATH_MAX], mini[PATH_MAX], exe[PATH_MAX];
	unsigned int sources;
	const char *name;
	__u64 off;

	/* the commands' own /proc/self/exe would be theirs */
	self_exe(exe);
	if (run("command -v objcopy >/dev/null && command -v strip >/dev/null && command -v xz >/dev/null"))
		skip();
	assert_non_null(mkdtemp(tmpdir));
	snprintf(bare, sizeof(bare), "%s/bare", tmpdir);
	snprintf(mini, sizeof(mini), "%s/mini", tmpdir);
	assert_int_equal(run("strip --strip-all -o %s %s", bare, exe), 0);
	assert_int_equal(run("cd %s && objcopy --strip-all --keep-symbol=frec_test_marker_fn %s debug "
			     "&& xz -f debug && objcopy --add-section .gnu_debugdata=debug.xz bare mini",
			     tmpdir, exe), 0);

	/* no .symtab: .dynsym only, where the marker is not: not named */
	name = marker_in(bare, &sources, &off);
	assert_null(name);
	assert_false(sources & ELF_SYMS_SYMTAB);
	assert_false(sources & ELF_SYMS_DEBUGDATA);

	name = marker_in(mini, &sources, &off);
	assert_non_null(name);
	assert_string_equal(name, "frec_test_marker_fn");
	assert_int_equal(off, 5);
	assert_true(sources & ELF_SYMS_DEBUGDATA);
	assert_false(sources & ELF_SYMS_SYMTAB);

	/* a damaged .gnu_debugdata names nothing from it, and fails nothing */
	assert_int_equal(run("cd %s && head -c 100 debug.xz > cut.xz && objcopy --add-section .gnu_debugdata=cut.xz bare cut",
			     tmpdir), 0);
	snprintf(mini, sizeof(mini), "%s/cut", tmpdir);
	name = marker_in(mini, &sources, &off);
	assert_null(name);
	assert_false(sources & ELF_SYMS_DEBUGDATA);
	run("rm -rf %s", tmpdir);
}

/* The symbolizer on this process, with a made-up kallsyms. */
static void test_symbolizer(void **state)
{
	char ksyms[] = "/tmp/frec-test-kallsyms-XXXXXX";
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = ksyms };
	__u64 ip = (__u64)(uintptr_t)frec_test_marker_fn + 3, img, img2, off;
	const struct frec_symbolizer *iface;
	struct frecd_symbolizer_stats st;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	char exe[PATH_MAX];
	const char *name;
	FILE *f;
	int fd;

	fd = mkstemp(ksyms);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(kallsyms_text, f);
	fclose(f);
	self_exe(exe);

	s = started(&o, &iface);
	assert_int_equal(iface->kernel(iface->ctx, 0xffffffff81000105ull, &name, &off), 0);
	assert_string_equal(name, "do_nanosleep");
	assert_int_equal(off, 5);

	img = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_true(img > 0);
	/* the same image until an exec is seen */
	assert_int_equal(iface->image(iface->ctx, getpid(), NULL, 0), img);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	assert_string_equal(uf.path, exe);
	assert_non_null(uf.sym);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	assert_int_equal(uf.sym_offset, 3);
	assert_true(strlen(uf.build_id) == 0 || strlen(uf.build_id) >= 16);
	/* not mapped at all */
	assert_int_equal(iface->user(iface->ctx, getpid(), img, 8, &uf), -ENOENT);

	/* mapped after the image was learned (as dlopen() does): unknown at
	 * first, then read again once a second has passed since */
	{
		int efd = open(exe, O_RDONLY);
		void *p;

		assert_true(efd >= 0);
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, efd, 0);
		close(efd);
		assert_true(p != MAP_FAILED);
		assert_int_equal(iface->user(iface->ctx, getpid(), img, (__u64)(uintptr_t)p + 0x10, &uf),
				 -ENOENT);
		assert_int_equal(settle(s), 0);
		assert_int_equal(iface->user(iface->ctx, getpid(), img, (__u64)(uintptr_t)p + 0x10, &uf),
				 -ENOENT);	/* too soon: not read again */
		usleep(1100 * 1000);
		assert_int_equal(iface->user(iface->ctx, getpid(), img, (__u64)(uintptr_t)p + 0x10, &uf),
				 -ENOENT);	/* now queued */
		assert_int_equal(settle(s), 0);
		assert_int_equal(iface->user(iface->ctx, getpid(), img, (__u64)(uintptr_t)p + 0x10, &uf), 0);
		assert_string_equal(uf.path, exe);
		assert_int_equal(uf.file_offset, 0x10);
		/* the mappings learned first are still there */
		assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
		assert_string_equal(uf.sym, "frec_test_marker_fn");
		munmap(p, 4096);
	}
	/* an image never handed out */
	assert_int_equal(iface->user(iface->ctx, getpid(), img + 100, ip, &uf), -ENOENT);

	/* an exec: a new image; the old one still names its frames */
	frecd_symbolizer__new_image(s, getpid(), boot_ns(), NULL);
	img2 = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_true(img2 != img);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img2, ip, &uf), 0);

	/* a process that is gone: learned as failed, nothing named */
	img = iface->image(iface->ctx, 0x7ffffffe, NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, 0x7ffffffe, img, ip, &uf), -ENOENT);

	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.images, 3);
	assert_int_equal(st.images_learned, 2);
	assert_int_equal(st.images_failed, 1);
	assert_int_equal(st.kernel_symbols, 8);
	assert_true(st.files >= 1);
	frecd_symbolizer__free(s);
	unlink(ksyms);
}

/*
 * An exec whose record was lost: the stacks' program ids say it. A stack
 * of another program than the image's ends the image after that image's
 * own latest stack (maps read before then stay), and starts a new one,
 * counted, unless the exec record comes after all (a stack taken while
 * the exec was under way). A stack of an older program names nothing.
 */
static void test_symbolizer_lost_exec(void **state)
{
	char ksyms[] = "/tmp/frec-test-kallsyms-XXXXXX";
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = ksyms };
	__u64 ip = (__u64)(uintptr_t)frec_test_marker_fn + 3, img, img2, img3, img4, old;
	const struct frec_image_id a = { 1000, 7 }, b = { 1000, 8 }, c = { 2000, 8 },
				   d = { 3000, 1 };
	const struct frec_symbolizer *iface;
	struct frecd_symbolizer_stats st;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	int fd;

	(void)state;
	fd = mkstemp(ksyms);
	assert_true(fd >= 0);
	assert_true(write(fd, kallsyms_text, strlen(kallsyms_text)) > 0);
	close(fd);
	s = started(&o, &iface);

	img = iface->image(iface->ctx, getpid(), &a, boot_ns());
	assert_int_equal(settle(s), 0);
	/* the same program, or one not said: the same image */
	assert_int_equal(iface->image(iface->ctx, getpid(), &a, boot_ns()), img);
	assert_int_equal(iface->image(iface->ctx, getpid(), NULL, boot_ns()), img);
	/* an exec no record told of (yet) */
	img2 = iface->image(iface->ctx, getpid(), &b, boot_ns());
	assert_true(img2 != img);
	assert_int_equal(iface->image(iface->ctx, getpid(), &b, boot_ns()), img2);
	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.images_unannounced, 1);
	/* the old image read its maps before its last stack: they still name it */
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img2, ip, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	/* its record after all: the stack was taken while it was under way */
	frecd_symbolizer__new_image(s, getpid(), boot_ns(), &b);
	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.images_unannounced, 0);
	img3 = iface->image(iface->ctx, getpid(), &b, boot_ns());
	assert_true(img3 != img2);
	/* the program before: a number that names nothing, the image stays */
	old = iface->image(iface->ctx, getpid(), &a, boot_ns());
	assert_true(old != img && old != img3);
	assert_int_equal(iface->user(iface->ctx, getpid(), old, ip, &uf), -ENOENT);
	assert_int_equal(iface->image(iface->ctx, getpid(), &b, boot_ns()), img3);

	/* a new process under the pid (its fork lost) */
	img = iface->image(iface->ctx, getpid(), &c, 1);
	assert_true(img != img3);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	/* and another, with no stack of the first after 1: the maps it read
	 * since may be the newer one's, so the first names nothing */
	img4 = iface->image(iface->ctx, getpid(), &d, boot_ns());
	assert_true(img4 != img);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), -ENOENT);

	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.images_unannounced, 2);	/* b's came after all */
	assert_int_equal(st.images, 5);
	frecd_symbolizer__free(s);
	unlink(ksyms);
}

/* The tracing path's frames on top of a switch's kernel stack. */
static void test_kernel_skip(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T bpf_trace_run4\n"
		"ffffffff81000200 T __traceiter_sched_switch\n"
		"ffffffff81000300 t __schedule\n"
		"ffffffff81000400 T schedule\n"
		"ffffffff81001000 T _etext\n";
	char path[] = "/tmp/frec-test-kallsyms-XXXXXX";
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = path };
	const __u64 three[] = { 0xffffffffc0000010ull, 0xffffffff81000110ull, 0xffffffff81000210ull,
				0xffffffff81000310ull, 0xffffffff81000410ull };
	const __u64 none[] = { 0xffffffff81000310ull, 0xffffffff81000410ull };
	struct frecd_symbolizer *s;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	s = frecd_symbolizer__new(&o);
	assert_non_null(s);
	assert_int_equal(frecd_symbolizer__start(s), 0);
	assert_int_equal(frecd_symbolizer__kernel_skip(s, three, 5), 3);
	assert_int_equal(frecd_symbolizer__kernel_skip(s, three, 2), -ENOENT);
	assert_int_equal(frecd_symbolizer__kernel_skip(s, none, 2), -ENOENT);
	frecd_symbolizer__free(s);
	unlink(path);
}

/* At most max_images images: the least recently used one goes. */
static void test_symbolizer_bounded(void **state)
{
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .max_images = 2,
					   .kallsyms = "/nonexistent" };
	__u64 ip = (__u64)(uintptr_t)frec_test_marker_fn, a, b;
	const struct frec_symbolizer *iface;
	struct frecd_symbolizer_stats st;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	const char *name;
	__u64 off;

	s = started(&o, &iface);
	/* no kallsyms: no kernel names */
	assert_int_equal(iface->kernel(iface->ctx, 0xffffffff81000105ull, &name, &off), -ENOENT);
	a = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_int_equal(settle(s), 0);
	b = iface->image(iface->ctx, 0x7ffffff0, NULL, 0);
	iface->image(iface->ctx, getpid(), NULL, 0);	/* a is used again: b is the oldest */
	iface->image(iface->ctx, 0x7ffffff1, NULL, 0);
	assert_int_equal(settle(s), 0);
	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.images, 2);
	assert_int_equal(iface->user(iface->ctx, getpid(), a, ip, &uf), 0);
	assert_int_equal(iface->user(iface->ctx, 0x7ffffff0, b, ip, &uf), -ENOENT);
	frecd_symbolizer__free(s);
}

/* The marker function's address in this process and the file offset its
 * mapping gives (what frecd knows of a uprobe on it). */
static void marker_site(__u64 *ip, __u64 *file_off, struct find_ctx *f)
{
	f->addr = *ip = (__u64)(uintptr_t)frec_test_marker_fn;
	f->found = 0;
	assert_int_equal(frecd_maps__read(getpid(), find_addr, f), 1);
	*file_off = *ip - f->m.start + f->m.pgoff;
}

/* Where a probe hit at a known file offset puts the file: its bias and
 * its executable segments, as the kernel mapped this very binary. */
static void test_elf_load_bias(void **state)
{
	__u64 page = (__u64)sysconf(_SC_PAGESIZE), ip, file_off, addr, bias, start, end, pgoff;
	struct find_ctx f;
	struct elf_syms *s;
	struct elf_file *ef;
	size_t i;
	int hit = 0;

	marker_site(&ip, &file_off, &f);
	ef = elf_file__open("/proc/self/exe");
	assert_non_null(ef);
	s = elf_syms__read(ef);
	elf_file__close(ef);
	assert_non_null(s);
	assert_int_equal(elf_syms__offset_to_addr(s, file_off, &addr), 0);
	assert_int_equal(elf_syms__load_bias(s, file_off, ip, page, &bias), 0);
	assert_int_equal(bias, ip - addr);
	assert_int_equal(bias % page, 0);
	/* not an address that offset can be at: a bias of part of a page */
	assert_int_equal(elf_syms__load_bias(s, file_off, ip + 16, page, &bias), -EINVAL);
	assert_int_equal(elf_syms__load_bias(s, 1ull << 60, ip, page, &bias), -ERANGE);
	/* the segments at that bias: the text one is the mapping the kernel made */
	bias = ip - addr;
	for (i = 0; !elf_syms__exec_segment(s, i, bias, page, &start, &end, &pgoff); i++) {
		assert_true(start < end);
		assert_int_equal(start % page, 0);
		if (ip >= start && ip < end) {
			hit++;
			assert_int_equal(start, f.m.start);
			assert_int_equal(pgoff, f.m.pgoff);
			assert_true(end <= f.m.end);
		}
	}
	assert_int_equal(hit, 1);
	assert_int_equal(elf_syms__exec_segment(s, i, bias, page, &start, &end, &pgoff), -ENOENT);
	elf_syms__free(s);
}

int main(void);

/* A process gone before its maps are read: a probe hit names the frames
 * of the probed file, and only where the hit's address allows. */
static void test_symbolizer_probe_hit(void **state)
{
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = "/nonexistent" };
	const __u32 gone = 0x7ffffff0, gone2 = 0x7ffffff1, gone3 = 0x7ffffff2,
		    gone4 = 0x7ffffff3;
	const __u64 main_ip = (__u64)(uintptr_t)main + 1;
	const struct frec_symbolizer *iface;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	__u64 ip, file_off, img, img2;
	struct find_ctx f;
	char exe[PATH_MAX];

	self_exe(exe);
	marker_site(&ip, &file_off, &f);
	s = frecd_symbolizer__new(&o);
	assert_non_null(s);
	iface = frecd_symbolizer__iface(s);
	/* before start: nothing */
	frecd_symbolizer__probe_hit(s, gone, NULL, 0, exe, NULL, file_off, ip);
	assert_int_equal(frecd_symbolizer__start(s), 0);
	frecd_symbolizer__probe_file(s, exe, "");
	assert_int_equal(settle(s), 0);

	frecd_symbolizer__probe_hit(s, gone, NULL, 0, exe, NULL, file_off, ip);
	frecd_symbolizer__probe_hit(s, gone, NULL, 0, exe, NULL, file_off, ip);	/* again: nothing more */
	img = iface->image(iface->ctx, gone, NULL, 0);
	assert_int_equal(settle(s), 0);	/* its maps: not read */
	assert_int_equal(iface->user(iface->ctx, gone, img, ip + 3, &uf), 0);
	assert_string_equal(uf.path, exe);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	assert_int_equal(uf.sym_offset, 3);
	assert_int_equal(uf.file_offset, file_off + 3);
	/* a caller in the same file */
	assert_int_equal(iface->user(iface->ctx, gone, img, main_ip, &uf), 0);
	assert_string_equal(uf.sym, "main");
	assert_int_equal(uf.sym_offset, 1);
	/* outside the file */
	assert_int_equal(iface->user(iface->ctx, gone, img, 8, &uf), -ENOENT);

	/* an exec: the new image is another program, the old one still named */
	frecd_symbolizer__new_image(s, gone, boot_ns(), NULL);
	img2 = iface->image(iface->ctx, gone, NULL, 0);
	assert_true(img2 != img);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, gone, img2, ip, &uf), -ENOENT);
	assert_int_equal(iface->user(iface->ctx, gone, img, ip, &uf), 0);

	/* an address the probed offset cannot be at: no mappings made up */
	frecd_symbolizer__probe_hit(s, gone2, NULL, 0, exe, NULL, file_off, ip + 16);
	img = iface->image(iface->ctx, gone2, NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, gone2, img, ip + 16, &uf), -ENOENT);
	assert_int_equal(iface->user(iface->ctx, gone2, img, main_ip, &uf), -ENOENT);

	/* a file not read yet when the hit comes: named once it is */
	frecd_symbolizer__probe_hit(s, gone3, NULL, 0, "/proc/self/exe", NULL, file_off, ip);
	img = iface->image(iface->ctx, gone3, NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, gone3, img, ip + 3, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");

	/* the file at the path is not the one probed (another build-id) */
	frecd_symbolizer__probe_hit(s, gone4, NULL, 0, exe, "00deadbeef", file_off, ip);
	img = iface->image(iface->ctx, gone4, NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, gone4, img, ip + 3, &uf), -ENOENT);

	/* a live process: its maps, read, win and name the rest too */
	frecd_symbolizer__probe_hit(s, getpid(), NULL, 0, exe, NULL, file_off, ip);
	img = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip + 3, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	assert_int_equal(iface->user(iface->ctx, getpid(), img, (__u64)(uintptr_t)getpid, &uf), 0);
	assert_string_not_equal(uf.path, exe);
	frecd_symbolizer__free(s);
}

/* A copy of this test's binary at a temp path beside it (not /tmp, which
 * may be noexec), the page holding the marker function's code mapped from
 * it, then the copy unlinked: a mapping whose file is gone. *ip is the
 * marker function's address in that mapping. */
static void *map_deleted_copy(const char *exe, __u64 file_off, __u64 *ip)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char copy[PATH_MAX + 32], buf[65536];
	int in, out;
	ssize_t n;
	void *p;

	snprintf(copy, sizeof(copy), "%s.copy-XXXXXX", exe);
	out = mkstemp(copy);
	assert_true(out >= 0);
	in = open(exe, O_RDONLY);
	assert_true(in >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	p = mmap(NULL, 2 * page, PROT_READ | PROT_EXEC, MAP_PRIVATE, out, (off_t)(file_off & ~(page - 1)));
	assert_true(p != MAP_FAILED);
	close(out);
	assert_int_equal(unlink(copy), 0);
	*ip = (__u64)(uintptr_t)p + (file_off & (page - 1));
	return p;
}

/* This process, with a deleted copy of its binary mapped, learned by a
 * symbolizer started with o. */
struct copy_setup {
	char exe[PATH_MAX];
	__u64 ip, file_off;	/* the marker function, and its file offset */
	__u64 cip;		/* the marker in the copy */
	__u64 img;
	void *p;		/* the copy's mapping, 2 pages */
	struct find_ctx f;
};

static struct frecd_symbolizer *learned_with_copy(const struct frecd_symbolizer_opts *o,
						  const struct frec_symbolizer **iface,
						  struct copy_setup *c)
{
	struct frecd_symbolizer *s;

	self_exe(c->exe);
	marker_site(&c->ip, &c->file_off, &c->f);
	c->p = map_deleted_copy(c->exe, c->file_off, &c->cip);
	s = started(o, iface);
	c->img = (*iface)->image((*iface)->ctx, getpid(), NULL, 0);
	assert_int_equal(settle(s), 0);
	return s;
}

/*
 * A process that exits while the helper learns it: its maps were read, but
 * its /proc files are gone (here: a proc directory without them). A file
 * still at its path in frecd's mount namespace, the same device and inode,
 * names its frames. A file that is not (deleted, or replaced) names
 * nothing, but a probe hit's mapping of the probed file names the hit's
 * frames, whether the hit comes before the image is learned or after.
 */
static void test_symbolizer_maps_without_files(void **state)
{
	char proc[] = "/tmp/frec-test-proc-XXXXXX";
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = "/nonexistent",
					   .proc = proc };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const struct frec_symbolizer *iface;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	struct copy_setup c;
	const char *exe = c.exe;
	__u64 ip, file_off, img, cip;

	assert_non_null(mkdtemp(proc));
	s = learned_with_copy(&o, &iface, &c);
	ip = c.ip;
	file_off = c.file_off;
	cip = c.cip;
	img = c.img;
	/* the file at its path */
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip + 3, &uf), 0);
	assert_string_equal(uf.path, exe);
	assert_non_null(uf.sym);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	/* the deleted copy: its path as the maps show it, no name */
	assert_int_equal(iface->user(iface->ctx, getpid(), img, cip + 3, &uf), 0);
	assert_non_null(strstr(uf.path, ".copy-"));
	assert_null(uf.sym);

	/* a hit in the copy once the image is learned so: named by the
	 * probed file (the same bytes) */
	frecd_symbolizer__probe_file(s, exe, "");
	assert_int_equal(settle(s), 0);
	frecd_symbolizer__probe_hit(s, getpid(), NULL, 0, exe, NULL, file_off, cip);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, cip + 3, &uf), 0);
	assert_string_equal(uf.path, exe);
	assert_non_null(uf.sym);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	assert_int_equal(uf.file_offset, file_off + 3);

	/* a hit before the image is learned: the same */
	frecd_symbolizer__new_image(s, getpid(), boot_ns(), NULL);
	frecd_symbolizer__probe_hit(s, getpid(), NULL, 0, exe, NULL, file_off, cip);
	img = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, cip + 3, &uf), 0);
	assert_non_null(uf.sym);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	/* the real file's frames: still named from its path */
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip + 3, &uf), 0);
	assert_non_null(uf.sym);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	frecd_symbolizer__free(s);
	munmap(c.p, 2 * page);
	assert_int_equal(rmdir(proc), 0);
}

/*
 * An exec (or a new process under the pid) that the drain has not handed
 * over yet when the helper reads the maps: they are the new program's. A
 * read is used only once the drain has passed it, and an exec recorded
 * before the read ended drops it; a relearn's read, until it is trusted,
 * leaves the maps before it in use, and goes if such an exec comes.
 */
static void test_symbolizer_exec_race(void **state)
{
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = "/nonexistent" };
	__u64 ip = (__u64)(uintptr_t)frec_test_marker_fn + 3, img, before, between;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const struct frec_symbolizer *iface;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	char exe[PATH_MAX];
	__u64 lib;
	void *p;
	int fd;

	self_exe(exe);
	s = started(&o, &iface);

	/* read, not yet trusted: nothing named; trusted once drained past */
	before = boot_ns();
	img = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_int_equal(frecd_symbolizer__drain(s, 10000), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), -ENOENT);
	frecd_symbolizer__drained(s, boot_ns());
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");

	/* an exec before the read, drained only now: the maps go */
	frecd_symbolizer__new_image(s, getpid(), before, NULL);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), -ENOENT);

	/* a new image, trusted; then a relearn (a mapping added since) */
	img = iface->image(iface->ctx, getpid(), NULL, 0);
	assert_int_equal(settle(s), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	between = boot_ns();
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(p != MAP_FAILED);
	lib = (__u64)(uintptr_t)p + 0x10;
	usleep(1100 * 1000);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, lib, &uf), -ENOENT); /* queued */
	assert_int_equal(frecd_symbolizer__drain(s, 10000), 0);
	/* read again, not trusted yet: the first read still names its frames */
	assert_int_equal(iface->user(iface->ctx, getpid(), img, lib, &uf), -ENOENT);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	/* an exec between the two reads: the second goes, the first stays */
	frecd_symbolizer__new_image(s, getpid(), between, NULL);
	frecd_symbolizer__drained(s, boot_ns());
	assert_int_equal(iface->user(iface->ctx, getpid(), img, lib, &uf), -ENOENT);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, ip, &uf), 0);
	assert_string_equal(uf.sym, "frec_test_marker_fn");
	munmap(p, page);
	frecd_symbolizer__free(s);
}

/*
 * The helper lets go of a file (a relearn replaced the maps that held it)
 * while the recorder may still copy the names user() gave for it: the file
 * stays until the loop's thread trims the unmapped files (drained()). With
 * the trim on the helper's thread, ASan reports the path read below.
 */
static void test_symbolizer_file_outlives_helper(void **state)
{
	struct frecd_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = "/nonexistent",
					   .max_file_bytes = 1 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const struct frec_symbolizer *iface;
	struct frecd_symbolizer_stats st;
	struct frec_user_frame uf;
	struct frecd_symbolizer *s;
	struct copy_setup c;
	__u64 cip, img, files;
	const char *path;

	s = learned_with_copy(&o, &iface, &c);
	cip = c.cip;
	img = c.img;
	assert_int_equal(iface->user(iface->ctx, getpid(), img, cip + 3, &uf), 0);
	assert_non_null(strstr(uf.path, ".copy-"));
	frecd_symbolizer__stats(s, &st);
	files = st.files;
	assert_int_equal(munmap(c.p, 2 * page), 0);

	/* a frame outside the maps, a second on: read again (no drained():
	 * the first read still names frames, the copy too) */
	usleep(1100 * 1000);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, 0x10, &uf), -ENOENT);
	assert_int_equal(frecd_symbolizer__drain(s, 10000), 0);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, cip + 3, &uf), 0);
	path = uf.path;
	assert_non_null(strstr(path, ".copy-"));
	/* a second on, again: the helper drops the first read, the only
	 * one that mapped the copy; the name given above stays readable */
	usleep(1100 * 1000);
	assert_int_equal(iface->user(iface->ctx, getpid(), img, 0x10, &uf), -ENOENT);
	assert_int_equal(frecd_symbolizer__drain(s, 10000), 0);
	assert_non_null(strstr(path, ".copy-"));
	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.files, files);
	/* the loop's next drain trims it: over max_file_bytes */
	frecd_symbolizer__drained(s, boot_ns());
	frecd_symbolizer__stats(s, &st);
	assert_int_equal(st.files, files - 1);
	frecd_symbolizer__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_ksyms_hidden),
		cmocka_unit_test(test_ksyms_load),
		cmocka_unit_test(test_maps_lines),
		cmocka_unit_test(test_maps_self),
		cmocka_unit_test(test_elf_symtab),
		cmocka_unit_test(test_elf_stripped),
		cmocka_unit_test(test_elf_load_bias),
		cmocka_unit_test(test_symbolizer),
		cmocka_unit_test(test_symbolizer_bounded),
		cmocka_unit_test(test_symbolizer_probe_hit),
		cmocka_unit_test(test_symbolizer_maps_without_files),
		cmocka_unit_test(test_symbolizer_exec_race),
		cmocka_unit_test(test_symbolizer_file_outlives_helper),
		cmocka_unit_test(test_symbolizer_lost_exec),
		cmocka_unit_test(test_kernel_skip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
