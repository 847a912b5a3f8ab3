// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The output file of the frec commands (tools/outfile.c), on real files in
 * a temporary directory: a regular output is replaced only on commit, an
 * existing one is byte-identical after an abort, no temporary file is ever
 * left, a device is written in place and never removed, and each refusal is
 * one line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "../../tools/outfile.h"

static char dir[64];
static char *errbuf;
static size_t errlen;
static FILE *err;

static int setup(void **state)
{
	strcpy(dir, "/tmp/frec-outfile.XXXXXX");
	assert_non_null(mkdtemp(dir));
	err = open_memstream(&errbuf, &errlen);
	assert_non_null(err);
	umask(022);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	fclose(err);
	free(errbuf);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static const char *errs(void)
{
	fflush(err);
	return errbuf ? errbuf : "";
}

static char *path(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *get(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries in the directory, "." and ".." aside: a temporary file left
 * behind shows here. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_new_file(void **state)
{
	struct frec_outfile *of;
	struct stat st;

	assert_int_equal(frec_outfile__open(path("trace"), err, &of), 0);
	assert_true(frec_outfile__is_regular(of));
	fputs("hello", frec_outfile__stream(of));
	/* not there under its name until the commit */
	assert_int_equal(stat(path("trace"), &st), -1);
	assert_int_equal(entries(), 1);
	assert_int_equal(frec_outfile__commit(of, err), 0);
	assert_string_equal(get(path("trace")), "hello");
	assert_int_equal(stat(path("trace"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);	/* 0666 less the umask */
	assert_int_equal(entries(), 1);
	assert_string_equal(errs(), "");
}

static void test_new_file_abort(void **state)
{
	struct frec_outfile *of;

	assert_int_equal(frec_outfile__open(path("trace"), err, &of), 0);
	fputs("half a trace", frec_outfile__stream(of));
	frec_outfile__abort(of);
	assert_int_equal(entries(), 0);
	assert_int_equal(access(path("trace"), F_OK), -1);
}

static void test_existing_file(void **state)
{
	struct frec_outfile *of;
	struct stat st;

	put(path("trace"), "the old trace");
	assert_int_equal(chmod(path("trace"), 0600), 0);

	/* a failure: the old one, byte for byte, and nothing else */
	assert_int_equal(frec_outfile__open(path("trace"), err, &of), 0);
	fputs("half a new one", frec_outfile__stream(of));
	frec_outfile__abort(of);
	assert_string_equal(get(path("trace")), "the old trace");
	assert_int_equal(entries(), 1);

	/* a success replaces it, with its permissions */
	assert_int_equal(frec_outfile__open(path("trace"), err, &of), 0);
	fputs("the new trace", frec_outfile__stream(of));
	assert_string_equal(get(path("trace")), "the old trace");
	assert_int_equal(frec_outfile__commit(of, err), 0);
	assert_string_equal(get(path("trace")), "the new trace");
	assert_int_equal(stat(path("trace"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(entries(), 1);
	assert_string_equal(errs(), "");
}

static void test_device(void **state)
{
	struct frec_outfile *of;
	struct stat st;

	assert_int_equal(frec_outfile__open("/dev/null", err, &of), 0);
	assert_false(frec_outfile__is_regular(of));
	fputs("gone", frec_outfile__stream(of));
	frec_outfile__abort(of);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	assert_int_equal(frec_outfile__open("/dev/null", err, &of), 0);
	fputs("gone", frec_outfile__stream(of));
	assert_int_equal(frec_outfile__commit(of, err), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_string_equal(errs(), "");
}

static void test_stdout(void **state)
{
	struct frec_outfile *of;

	assert_int_equal(frec_outfile__open("-", err, &of), 0);
	assert_ptr_equal(frec_outfile__stream(of), stdout);
	assert_false(frec_outfile__is_regular(of));
	assert_int_equal(frec_outfile__commit(of, err), 0);
	assert_int_equal(frec_outfile__open(NULL, err, &of), 0);
	assert_ptr_equal(frec_outfile__stream(of), stdout);
	frec_outfile__abort(of);
}

/* A link to a trace: the trace is replaced, the link stays a link. */
static void test_symlink(void **state)
{
	struct frec_outfile *of;
	struct stat st;

	put(path("real"), "old");
	assert_int_equal(symlink("real", path("link")), 0);
	assert_int_equal(frec_outfile__open(path("link"), err, &of), 0);
	fputs("new", frec_outfile__stream(of));
	assert_int_equal(frec_outfile__commit(of, err), 0);
	assert_int_equal(lstat(path("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(get(path("real")), "new");
	assert_int_equal(entries(), 2);

	assert_int_equal(symlink("nowhere", path("dangling")), 0);
	assert_int_equal(frec_outfile__open(path("dangling"), err, &of), -ENOENT);
	assert_non_null(strstr(errs(), "is a symbolic link to a missing file; remove the link or name another file\n"));
	assert_int_equal(entries(), 3);
}

static void test_refusals(void **state)
{
	struct frec_outfile *of = (void *)1;
	char want[256];

	assert_int_equal(frec_outfile__open(dir, err, &of), -EISDIR);
	assert_null(of);
	snprintf(want, sizeof(want),
		 "frec: cannot write %s: it is a directory; name a file in it, e.g. -o %s/trace\n",
		 dir, dir);
	assert_string_equal(errs(), want);

	rewind(err);
	errbuf[0] = '\0';
	assert_int_equal(frec_outfile__open(path("none/trace"), err, &of), -ENOENT);
	snprintf(want, sizeof(want),
		 "frec: cannot write %s/none/trace: directory %s/none does not exist; "
		 "create it or name a file in another directory\n", dir, dir);
	assert_string_equal(errs(), want);
	assert_int_equal(entries(), 0);
}

static void test_same_file(void **state)
{
	put(path("snap.frec"), "x");
	assert_int_equal(link(path("snap.frec"), path("hard")), 0);
	assert_true(frec_outfile__same_file(path("snap.frec"), path("snap.frec")));
	assert_true(frec_outfile__same_file(path("hard"), path("snap.frec")));
	assert_false(frec_outfile__same_file(path("other"), path("snap.frec")));
	assert_false(frec_outfile__same_file("-", path("snap.frec")));
	assert_false(frec_outfile__same_file(NULL, path("snap.frec")));
	assert_false(frec_outfile__same_file("/dev/null", "/dev/null"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_file_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
