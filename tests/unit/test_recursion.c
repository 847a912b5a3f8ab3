// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The accounting of the kernel's recursion_misses (src/frecd/recursion.c):
 * baselines per program id, a reload's swap, untracked programs' last
 * increase, a kernel without the field. The kernel is replaced by a table of
 * fake programs: each is a memfd (so that the module's duplicate of the fd
 * still names it, by inode) with an id and a count the test sets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <frec/event.h>
#include <frec/recorder.h>
#include "frecd/recursion.h"

struct fake_prog {
	int fd;
	ino_t ino;
	__u32 id;
	__u64 misses;
};

static struct fake_prog progs[8];
static unsigned int nprogs;
static bool no_field;		/* a kernel whose bpf_prog_info ends before it */

static int fake_read(int fd, __u32 *id, __u64 *misses)
{
	struct stat st;
	unsigned int i;

	if (fstat(fd, &st))
		return -errno;
	for (i = 0; i < nprogs; i++) {
		if (progs[i].ino != st.st_ino)
			continue;
		*id = progs[i].id;
		if (no_field)
			return -EOPNOTSUPP;
		*misses = progs[i].misses;
		return 0;
	}
	return -EBADF;
}

static struct fake_prog *fake_load(__u32 id, __u64 misses)
{
	struct fake_prog *p = &progs[nprogs++];
	struct stat st;

	p->fd = memfd_create("fake_prog", MFD_CLOEXEC);
	assert_true(p->fd >= 0);
	assert_int_equal(fstat(p->fd, &st), 0);
	p->ino = st.st_ino;
	p->id = id;
	p->misses = misses;
	return p;
}

static struct frec_recorder *new_recorder(void)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.ncpus = 2,
		.max_bytes = 1 << 20,
		.min_age_ns = 1000000000ull,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

static __u64 rec_lost(struct frec_recorder *rec)
{
	struct frec_recorder_stats st;

	frec_recorder__stats(rec, &st);
	return st.lost;
}

static int setup(void **state)
{
	nprogs = 0;
	no_field = false;
	frecd_recursion__reset();
	frecd_recursion__set_reader(fake_read);
	return 0;
}

static int teardown(void **state)
{
	unsigned int i;

	frecd_recursion__reset();
	frecd_recursion__set_reader(NULL);
	for (i = 0; i < nprogs; i++)
		close(progs[i].fd);
	return 0;
}

/* Counts before tracking are not ours; each increase is reported once. */
static void test_baseline(void **state)
{
	struct frec_recorder *rec = new_recorder();
	struct fake_prog *a = fake_load(10, 5), *b = fake_load(11, 0);

	assert_int_equal(frecd_recursion__counted(), -1);
	assert_int_equal(frecd_recursion__track(a->fd), 0);
	assert_int_equal(frecd_recursion__track(b->fd), 0);
	assert_int_equal(frecd_recursion__counted(), 1);
	assert_int_equal(frecd_recursion__ntracked(), 2);
	assert_int_equal(frecd_recursion__poll(rec, 100), 0);
	assert_int_equal(rec_lost(rec), 0);

	a->misses = 8;
	b->misses = 4;
	assert_int_equal(frecd_recursion__poll(rec, 200), 7);
	assert_int_equal(frecd_recursion__poll(rec, 300), 0);
	a->misses = 9;
	assert_int_equal(frecd_recursion__poll(rec, 400), 1);
	assert_int_equal(frecd_recursion__total(), 8);
	assert_int_equal(rec_lost(rec), 8);
	frec_recorder__free(rec);
}

/* A reload: the old program's misses up to its detach count, the new one's
 * from its own zero; neither twice, never negative. */
static void test_swap(void **state)
{
	struct frec_recorder *rec = new_recorder();
	struct fake_prog *old = fake_load(20, 0), *new;

	assert_int_equal(frecd_recursion__track(old->fd), 0);
	old->misses = 100;
	assert_int_equal(frecd_recursion__poll(rec, 100), 100);

	/* the swap: load the new set, detach the old (3 more), attach */
	new = fake_load(21, 0);
	assert_int_equal(frecd_recursion__track(new->fd), 0);
	old->misses = 103;
	frecd_recursion__untrack(old->fd);
	assert_int_equal(frecd_recursion__ntracked(), 1);
	/* the old program is gone: whatever its fd says now is not read */
	old->misses = 1000;
	new->misses = 2;
	assert_int_equal(frecd_recursion__poll(rec, 200), 5);
	assert_int_equal(frecd_recursion__poll(rec, 300), 0);
	assert_int_equal(frecd_recursion__total(), 105);
	assert_int_equal(rec_lost(rec), 105);
	frec_recorder__free(rec);
}

/* The same program tracked twice (probes attach one program many times)
 * counts once and stays until its last untrack. */
static void test_refs(void **state)
{
	struct fake_prog *p = fake_load(30, 0);

	assert_int_equal(frecd_recursion__track(p->fd), 0);
	assert_int_equal(frecd_recursion__track(p->fd), 0);
	assert_int_equal(frecd_recursion__ntracked(), 1);
	p->misses = 4;
	assert_int_equal(frecd_recursion__poll(NULL, 100), 4);
	frecd_recursion__untrack(p->fd);
	assert_int_equal(frecd_recursion__ntracked(), 1);
	p->misses = 6;
	assert_int_equal(frecd_recursion__poll(NULL, 200), 2);
	frecd_recursion__untrack(p->fd);
	assert_int_equal(frecd_recursion__ntracked(), 0);
	assert_int_equal(frecd_recursion__poll(NULL, 300), 0);
	/* an fd never tracked is ignored */
	frecd_recursion__untrack(p->fd);
	assert_int_equal(frecd_recursion__total(), 6);
}

/* A count that goes down (it cannot for one id) gives no negative delta. */
static void test_count_down(void **state)
{
	struct fake_prog *p = fake_load(40, 50);

	assert_int_equal(frecd_recursion__track(p->fd), 0);
	p->misses = 10;
	assert_int_equal(frecd_recursion__poll(NULL, 100), 0);
	p->misses = 12;
	assert_int_equal(frecd_recursion__poll(NULL, 200), 2);
	frecd_recursion__untrack(p->fd);
	assert_int_equal(frecd_recursion__poll(NULL, 300), 0);
}

/* A kernel whose bpf_prog_info is too short: nothing tracked, said so. */
static void test_no_field(void **state)
{
	struct frec_recorder *rec = new_recorder();
	struct fake_prog *p = fake_load(50, 7);

	no_field = true;
	assert_int_equal(frecd_recursion__track(p->fd), -EOPNOTSUPP);
	assert_int_equal(frecd_recursion__counted(), 0);
	assert_int_equal(frecd_recursion__ntracked(), 0);
	assert_int_equal(frecd_recursion__poll(rec, 100), 0);
	frecd_recursion__untrack(p->fd);
	assert_int_equal(rec_lost(rec), 0);
	frec_recorder__free(rec);
}

/* The real reader on something that is not a program: an error, not a
 * count. */
static void test_kernel_reader_bad_fd(void **state)
{
	struct fake_prog *p = fake_load(60, 0);
	__u64 misses = 0;
	__u32 id = 0;

	assert_true(frecd_recursion__read(p->fd, &id, &misses) < 0);
	assert_true(frecd_recursion__read(-1, &id, &misses) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_reader_bad_fd, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
