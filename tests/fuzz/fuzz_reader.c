// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: the snapshot reader (include/frec/snapshot.h) on its own.
 *
 * Each input is read twice: as it is, which exercises the checksum checks
 * and the resynchronisation on the next block magic, and with its CRCs
 * recomputed (harness.h), which lets mutations reach the block and event
 * decoders. Besides memory safety it checks what the API promises:
 *  - next_gen terminates: every call consumes input or ends the file;
 *  - every negative return is counted by frec_reader__damaged();
 *  - next_event stops at exactly nevents events when nothing is damaged;
 *  - every string the reader hands out is NUL-terminated (comms within
 *    FREC_COMM_LEN), every table lookup agrees with the table, and every
 *    event's type has a name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <frec/snapshot.h>
#include "harness.h"

static volatile size_t sink;	/* keeps the string reads */
static size_t fuzz_input_size;

static void touch(const char *s)
{
	if (!s)
		fuzz_fail("reader: NULL string");
	sink += strlen(s);
}

static void check_header(const struct frec_header *h)
{
	if (strnlen(h->hostname, sizeof(h->hostname)) == sizeof(h->hostname) ||
	    strnlen(h->kernel_release, sizeof(h->kernel_release)) == sizeof(h->kernel_release) ||
	    strnlen(h->boot_id, sizeof(h->boot_id)) == sizeof(h->boot_id) ||
	    strnlen(h->frec_version, sizeof(h->frec_version)) == sizeof(h->frec_version) ||
	    strnlen(h->reason, sizeof(h->reason)) == sizeof(h->reason))
		fuzz_fail("reader: a header string is not terminated");
	if (h->version == 0 || h->version > FREC_FORMAT_VERSION)
		fuzz_fail("reader: opened a file of version %u", h->version);
}

static void check_tables(struct frec_gen *g, const struct frec_gen_info *gi)
{
	for (__u32 c = 0; c < gi->ncpus; c++)
		sink += gi->drops[c];
	for (__u32 i = 0; i < gi->nthreads; i++) {
		const struct frec_thread *t = frec_gen__thread_at(g, i), *byid;

		if (!t)
			fuzz_fail("reader: thread %u of %u is NULL", i, gi->nthreads);
		if (strnlen(t->comm, FREC_COMM_LEN) >= FREC_COMM_LEN)
			fuzz_fail("reader: comm of thread %u not terminated", t->tid);
		byid = frec_gen__thread(g, t->tid);
		if (!byid || byid->tid != t->tid)
			fuzz_fail("reader: thread %u is in the table but not found by tid", t->tid);
	}
	if (frec_gen__thread_at(g, gi->nthreads))
		fuzz_fail("reader: a thread past the end of the table");
	for (__u32 i = 0; i < gi->nprocesses; i++) {
		const struct frec_process *p = frec_gen__process_at(g, i), *byid;

		if (!p)
			fuzz_fail("reader: process %u of %u is NULL", i, gi->nprocesses);
		touch(p->cmdline);
		byid = frec_gen__process(g, p->tgid);
		if (!byid || byid->tgid != p->tgid)
			fuzz_fail("reader: process %u is in the table but not found", p->tgid);
	}
	if (frec_gen__process_at(g, gi->nprocesses))
		fuzz_fail("reader: a process past the end of the table");
	for (__u32 i = 0; i < gi->nprobes; i++) {
		const struct frec_probe_info *p = frec_gen__probe_at(g, i), *byid;

		if (!p)
			fuzz_fail("reader: probe %u of %u is NULL", i, gi->nprobes);
		touch(p->name);
		touch(p->path);
		touch(p->func);
		touch(p->build_id);
		byid = frec_gen__probe(g, p->id);
		if (!byid || byid->id != p->id)
			fuzz_fail("reader: probe %u is in the table but not found", p->id);
	}
	if (frec_gen__probe_at(g, gi->nprobes))
		fuzz_fail("reader: a probe past the end of the table");
	/* section 2: sorted by id, found by id, never 0 */
	for (__u32 i = 0; i < gi->ncgroups; i++) {
		const struct frec_cgroup_info *c = frec_gen__cgroup_at(g, i);

		if (!c)
			fuzz_fail("reader: cgroup %u of %u is NULL", i, gi->ncgroups);
		touch(c->path);
		touch(c->container);
		if (!c->id || (i && c->id <= frec_gen__cgroup_at(g, i - 1)->id))
			fuzz_fail("reader: cgroup %u has id %llu, out of order", i,
				  (unsigned long long)c->id);
		if (frec_gen__cgroup(g, c->id) != c)
			fuzz_fail("reader: cgroup %llu is in the table but not found",
				  (unsigned long long)c->id);
	}
	if (frec_gen__cgroup_at(g, gi->ncgroups) || frec_gen__cgroup(g, 0))
		fuzz_fail("reader: a cgroup past the end of the table, or id 0");
}

static void check_event(struct frec_gen *g, const struct frec_event *ev)
{
	const struct frec_thread *t;

	/* the tools name cgroup events themselves (decode.c) */
	if (!frec_type__name(ev->type) && ev->type != FREC_EV_CGROUP)
		fuzz_fail("reader: event of unknown type %u", ev->type);
	switch (ev->type) {
	case FREC_EV_CGROUP:
		t = frec_gen__thread(g, ev->tid);
		if (!ev->cgroup.id || !t || t->cgroup != ev->cgroup.id)
			fuzz_fail("reader: cgroup event %llu of thread %u not applied",
				  (unsigned long long)ev->cgroup.id, ev->tid);
		frec_gen__cgroup(g, ev->cgroup.id);
		break;
	case FREC_EV_PROCESS_EXEC:
		touch(ev->exec.filename);
		touch(ev->exec.comm);
		break;
	case FREC_EV_TASK_RENAME:
		touch(ev->rename.newcomm);
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		if (ev->probe.nargs > FREC_MAX_PROBE_ARGS)
			fuzz_fail("reader: %u probe arguments", ev->probe.nargs);
		frec_gen__probe(g, ev->probe.probe_id);
		break;
	default:
		break;
	}
	t = frec_gen__thread(g, ev->tid);
	if (t && strnlen(t->comm, FREC_COMM_LEN) >= FREC_COMM_LEN)
		fuzz_fail("reader: comm of thread %u not terminated after an event", t->tid);
}

static void read_all(void)
{
	struct frec_reader *r;
	struct frec_gen *g;
	__u64 errors = 0, calls = 0;
	int rc;

	rc = frec_reader__open_fd(fuzz_input__fd(), &r);
	if (rc < 0) {
		if (r)
			fuzz_fail("reader: open failed (%d) but returned a reader", rc);
		touch(frec_strerror(rc));
		return;
	}
	check_header(frec_reader__header(r));
	for (;;) {
		const struct frec_gen_info *gi;
		struct frec_event ev;
		__u64 n = 0;

		/* each call consumes at least one byte or ends: a bound that any
		 * endless loop in the reader breaks */
		if (++calls > (__u64)fuzz_input_size + 2)
			fuzz_fail("reader: next_gen called %llu times on %zu bytes without an end",
				  (unsigned long long)calls, fuzz_input_size);
		rc = frec_reader__next_gen(r, &g);
		if (rc == 0)
			break;
		if (rc < 0) {
			if (g)
				fuzz_fail("reader: next_gen failed (%d) but returned a generation", rc);
			if (rc != -EBADMSG && rc != -ENODATA)
				fuzz_fail("reader: next_gen returned %d on a memory file", rc);
			errors++;
			continue;
		}
		gi = frec_gen__info(g);
		if (gi->ncpus > FREC_MAX_CPUS)
			fuzz_fail("reader: %u CPUs in a generation", gi->ncpus);
		check_tables(g, gi);
		while ((rc = frec_gen__next_event(g, &ev)) > 0) {
			n++;
			check_event(g, &ev);
		}
		/* events of an extended type the reader does not know are
		 * skipped, and counted (format version 2) */
		if (rc == 0 && n + gi->nevents_skipped != gi->nevents)
			fuzz_fail("reader: %llu events read and %llu skipped of %llu announced",
				  (unsigned long long)n, (unsigned long long)gi->nevents_skipped,
				  (unsigned long long)gi->nevents);
		if (rc < 0 && frec_gen__next_event(g, &ev) >= 0)
			fuzz_fail("reader: events go on after a damaged one");
		/* the tables are still consistent after the events updated them */
		check_tables(g, gi);
	}
	if (frec_reader__damaged(r) != errors)
		fuzz_fail("reader: %llu damaged blocks counted, %llu errors returned",
			  (unsigned long long)frec_reader__damaged(r), (unsigned long long)errors);
	if (frec_reader__next_gen(r, &g) != 0 || g)
		fuzz_fail("reader: next_gen after the end did not return 0");
	frec_reader__free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *fixed;
	bool changed;

	fixed = fuzz_input__fix_crcs(data, size, &changed);
	fuzz_input_size = size;
	fuzz_input__set(data, size);
	read_all();
	if (changed) {
		fuzz_input__set(fixed, size);
		read_all();
	}
	return 0;
}
