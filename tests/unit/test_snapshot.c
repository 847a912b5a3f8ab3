// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Snapshot files: a known recording read back field by field, the atomic
 * write (mode 0600, no temp file left, an existing name never replaced),
 * and a write from another thread while the recorder keeps recording and
 * evicting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <cmocka.h>
#include "synth.h"

#define SEC 1000000000ull

static unsigned count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

static void next_ok(struct frec_gen *g, struct frec_event *ev, __u32 type, __u64 ts, __u32 cpu,
		    __u32 tid, __u32 tgid)
{
	assert_int_equal(frec_gen__next_event(g, ev), 1);
	assert_int_equal(ev->type, type);
	assert_int_equal(ev->ts, ts);
	assert_int_equal(ev->cpu, cpu);
	assert_int_equal(ev->tid, tid);
	assert_int_equal(ev->tgid, tgid);
}

static void test_known_snapshot(void **state)
{
	const __u64 t1 = 1000000000, t2 = 1001000000;
	const struct frec_header *h;
	const struct frec_gen_info *in;
	const struct frec_probe_info *pr;
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	struct utsname u;
	struct stat st;
	char dir[64], path[128];

	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(synth_known_snapshot(dir, "known.frec"), 0);
	snprintf(path, sizeof(path), "%s/known.frec", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_entries(dir), 1);

	assert_int_equal(frec_reader__open(path, &r), 0);
	h = frec_reader__header(r);
	uname(&u);
	assert_int_equal(h->version, 6);	/* the writer says its version, 6 */
	assert_string_equal(h->hostname, u.nodename);
	assert_string_equal(h->kernel_release, u.release);
	assert_string_equal(h->frec_version, FREC_VERSION);
	assert_string_equal(h->reason, "synth");
	assert_int_equal(strlen(h->boot_id), 36);
	assert_int_equal(h->ncpus, sysconf(_SC_NPROCESSORS_CONF));
	assert_true(h->created_realtime_ns > 1600000000ull * SEC);

	/* Generation 1. */
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	in = frec_gen__info(g);
	assert_int_equal(in->seq, 1);
	assert_int_equal(in->start_ts, t1);
	assert_int_equal(in->end_ts, t1 + 10000);
	assert_int_equal(in->nevents, 8);
	assert_int_equal(in->nevents_by_type[FREC_EV_SCHED_SWITCH], 3);
	assert_int_equal(in->nevents_by_type[FREC_EV_SCHED_WAKING], 1);
	assert_int_equal(in->nevents_by_type[FREC_EV_UPROBE], 1);
	assert_int_equal(in->nevents_by_type[FREC_EV_URETPROBE], 1);
	assert_int_equal(in->nevents_by_type[FREC_EV_PROCESS_FORK], 1);
	assert_int_equal(in->nevents_by_type[FREC_EV_PROCESS_EXEC], 1);
	assert_int_equal(in->ncpus, 2);
	assert_int_equal(in->drops[0], 0);
	assert_int_equal(in->drops[1], 0);
	assert_int_equal(in->nthreads, 4);
	assert_int_equal(in->nprocesses, 1);
	assert_int_equal(in->nprobes, 2);
	assert_true(in->file_bytes > 28 && in->raw_bytes > 0);
	assert_string_equal(frec_gen__thread(g, 0)->comm, "swapper/0");
	assert_string_equal(frec_gen__thread(g, 101)->comm, "worker");
	assert_int_equal(frec_gen__thread(g, 101)->tgid, 100);
	assert_string_equal(frec_gen__thread(g, 102)->comm, "helper");
	assert_string_equal(frec_gen__thread(g, 103)->comm, "child");
	assert_null(frec_gen__thread(g, 104));
	assert_string_equal(frec_gen__process(g, 100)->cmdline, "app --serve");
	assert_int_equal(frec_gen__process_at(g, 0)->tgid, 100);
	assert_null(frec_gen__process(g, 103));
	pr = frec_gen__probe(g, 1);
	assert_non_null(pr);
	assert_string_equal(pr->name, "uprobe:/bin/app:handle");
	assert_string_equal(pr->path, "/bin/app");
	assert_string_equal(pr->func, "handle");
	assert_string_equal(pr->build_id, "");
	assert_int_equal(pr->kind, FREC_PROBE_UPROBE);
	assert_int_equal(pr->nargs, 2);
	assert_int_equal(frec_gen__probe(g, 2)->kind, FREC_PROBE_URETPROBE);
	assert_null(frec_gen__probe(g, 3));
	assert_null(frec_gen__probe_at(g, 2));

	next_ok(g, &ev, FREC_EV_SCHED_SWITCH, t1, 0, 0, 0);
	assert_int_equal(ev.sw.prev_pid, 0);
	assert_int_equal(ev.sw.next_pid, 101);
	assert_int_equal(ev.sw.prev_state, 0);
	assert_int_equal(ev.sw.prev_prio, 120);
	next_ok(g, &ev, FREC_EV_SCHED_WAKING, t1 + 1000, 0, 101, 100);
	assert_int_equal(ev.wake.pid, 102);
	assert_int_equal(ev.wake.target_cpu, 1);
	assert_int_equal(ev.wake.waker, 101);
	assert_int_equal(ev.wake.prio, 120);
	next_ok(g, &ev, FREC_EV_SCHED_SWITCH, t1 + 2000, 1, 0, 0);
	assert_int_equal(ev.sw.next_pid, 102);
	next_ok(g, &ev, FREC_EV_SCHED_SWITCH, t1 + 3000, 0, 101, 100);
	assert_int_equal(ev.sw.prev_pid, 101);
	assert_int_equal(ev.sw.next_pid, 0);
	assert_int_equal(ev.sw.prev_state, 1);
	next_ok(g, &ev, FREC_EV_UPROBE, t1 + 4000, 1, 102, 100);
	assert_int_equal(ev.probe.probe_id, 1);
	assert_int_equal(ev.probe.nargs, 2);
	assert_int_equal(ev.probe.args[0], 7);
	assert_int_equal(ev.probe.args[1], 8);
	next_ok(g, &ev, FREC_EV_URETPROBE, t1 + 5000, 1, 102, 100);
	assert_int_equal(ev.probe.probe_id, 2);
	assert_int_equal(ev.probe.ret, -5);
	next_ok(g, &ev, FREC_EV_PROCESS_FORK, t1 + 6000, 1, 102, 100);
	assert_int_equal(ev.fork.parent_pid, 102);
	assert_int_equal(ev.fork.child_pid, 103);
	next_ok(g, &ev, FREC_EV_PROCESS_EXEC, t1 + 7000, 1, 103, 103);
	assert_int_equal(ev.exec.pid, 103);
	assert_int_equal(ev.exec.old_pid, 103);
	assert_string_equal(ev.exec.filename, "/bin/true");
	assert_string_equal(ev.exec.comm, "true");
	/* The thread's name follows the exec. */
	assert_string_equal(frec_gen__thread(g, 103)->comm, "true");
	assert_int_equal(frec_gen__next_event(g, &ev), 0);

	/* Generation 2. */
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	in = frec_gen__info(g);
	assert_int_equal(in->seq, 2);
	assert_int_equal(in->start_ts, t2);
	assert_int_equal(in->end_ts, t2 + 10000);
	assert_int_equal(in->nevents, 4);
	assert_int_equal(in->drops[0], 0);
	assert_int_equal(in->drops[1], 3);
	assert_int_equal(in->nthreads, 2);
	assert_int_equal(in->nprocesses, 0);
	assert_int_equal(in->nprobes, 0);
	assert_string_equal(frec_gen__thread(g, 103)->comm, "true");
	next_ok(g, &ev, FREC_EV_SCHED_SWITCH, t2, 0, 0, 0);
	assert_int_equal(ev.sw.next_pid, 103);
	next_ok(g, &ev, FREC_EV_TASK_RENAME, t2 + 1000, 0, 103, 103);
	assert_int_equal(ev.rename.pid, 103);
	assert_string_equal(ev.rename.newcomm, "renamed");
	assert_string_equal(frec_gen__thread(g, 103)->comm, "renamed");
	next_ok(g, &ev, FREC_EV_PROCESS_EXIT, t2 + 2000, 0, 103, 103);
	assert_int_equal(ev.exit.pid, 103);
	assert_int_equal(ev.exit.tgid, 103);
	next_ok(g, &ev, FREC_EV_LOST, t2 + 3000, 1, 0, 0);
	assert_int_equal(ev.lost.count, 3);
	assert_int_equal(frec_gen__next_event(g, &ev), 0);

	assert_int_equal(frec_reader__next_gen(r, &g), 0);
	assert_int_equal(frec_reader__damaged(r), 0);
	frec_reader__free(r);
	synth_rmdir(dir);
}

/* Every header field survives the file, and the clock offset is sane. */
static void test_header_fields(void **state)
{
	struct frec_recorder *rec = synth_recorder(1);
	struct frec_header hdr, *h = &hdr;
	const struct frec_header *got;
	struct frec_reader *r;
	struct frec_pin *pin;
	struct timespec bt;
	char dir[64], path[128];
	__s64 now_rt;
	int dfd;

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_header__init(h);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	now_rt = (__s64)bt.tv_sec * (__s64)SEC + bt.tv_nsec + h->boottime_to_realtime_ns;
	/* boottime + offset is realtime: within a second of created. */
	assert_true(now_rt - (__s64)h->created_realtime_ns < (__s64)SEC);
	assert_true(now_rt - (__s64)h->created_realtime_ns > -(__s64)SEC);
	snprintf(h->reason, sizeof(h->reason), "socket: %s", "disk latency spike on sda");
	h->config.min_age_ns = 10 * SEC;
	h->config.max_bytes = 64 << 20;
	h->config.period_ns = SEC;
	h->config.ring_bytes = 16 << 20;
	h->config.npids = 20;
	for (unsigned i = 0; i < 16; i++)
		h->config.pids[i] = 1000 + i;
	h->config.flags = FREC_CFG_RAW_TP | FREC_CFG_WAKEUP;

	synth_switch(rec, SEC, 0, 1, 1, "x", 0, 2, 2, "y");
	frec_recorder__seal(rec, 2 * SEC);
	pin = frec_recorder__pin(rec);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(frec_snapshot__write(dfd, "h.frec", h, pin), 0);
	close(dfd);
	frec_recorder__unpin(rec, pin);
	snprintf(path, sizeof(path), "%s/h.frec", dir);
	assert_int_equal(frec_reader__open(path, &r), 0);
	got = frec_reader__header(r);
	assert_int_equal(got->version, 6);
	assert_int_equal(got->ncpus, h->ncpus);
	assert_int_equal(got->boottime_to_realtime_ns, h->boottime_to_realtime_ns);
	assert_int_equal(got->created_realtime_ns, h->created_realtime_ns);
	assert_string_equal(got->hostname, h->hostname);
	assert_string_equal(got->kernel_release, h->kernel_release);
	assert_string_equal(got->boot_id, h->boot_id);
	assert_string_equal(got->frec_version, h->frec_version);
	assert_string_equal(got->reason, "socket: disk latency spike on sda");
	assert_int_equal(got->config.min_age_ns, 10 * SEC);
	assert_int_equal(got->config.max_bytes, 64 << 20);
	assert_int_equal(got->config.period_ns, SEC);
	assert_int_equal(got->config.ring_bytes, 16 << 20);
	assert_int_equal(got->config.npids, 20);
	assert_int_equal(got->config.pids[0], 1000);
	assert_int_equal(got->config.pids[15], 1015);
	assert_int_equal(got->config.flags, FREC_CFG_RAW_TP | FREC_CFG_WAKEUP);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void test_never_overwrites(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_header hdr;
	struct frec_pin *pin;
	char dir[64], path[128], *before, *after;
	size_t n1, n2;
	int dfd, fd;

	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(synth_known_snapshot(dir, "a.frec"), 0);
	snprintf(path, sizeof(path), "%s/a.frec", dir);
	before = slurp(path, &n1);

	synth_switch(rec, SEC, 0, 1, 1, "x", 0, 2, 2, "y");
	frec_recorder__seal(rec, 2 * SEC);
	frec_header__init(&hdr);
	pin = frec_recorder__pin(rec);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(frec_snapshot__write(dfd, "a.frec", &hdr, pin), -EEXIST);
	/* A symlink under the name counts as taken, and is not followed. */
	assert_int_equal(symlinkat("a.frec", dfd, "link.frec"), 0);
	assert_int_equal(frec_snapshot__write(dfd, "link.frec", &hdr, pin), -EEXIST);
	/* A temp file in the way (another writer): refuse, leave it alone. */
	fd = openat(dfd, ".b.frec.tmp", O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(frec_snapshot__write(dfd, "b.frec", &hdr, pin), -EEXIST);
	assert_int_equal(faccessat(dfd, ".b.frec.tmp", F_OK, 0), 0);
	assert_int_equal(faccessat(dfd, "b.frec", F_OK, 0), -1);
	unlinkat(dfd, ".b.frec.tmp", 0);
	/* Names that are not a plain file name. */
	assert_int_equal(frec_snapshot__write(dfd, "", &hdr, pin), -EINVAL);
	assert_int_equal(frec_snapshot__write(dfd, "x/y.frec", &hdr, pin), -EINVAL);
	assert_int_equal(frec_snapshot__write(dfd, "..", &hdr, pin), -EINVAL);
	/* No directory: an error, and nothing is left behind anywhere. */
	assert_int_equal(frec_snapshot__write(-1, "c.frec", &hdr, pin), -EBADF);
	/* The same name twice through the API: the second one fails. */
	assert_int_equal(frec_snapshot__write(dfd, "c.frec", &hdr, pin), 0);
	assert_int_equal(frec_snapshot__write(dfd, "c.frec", &hdr, pin), -EEXIST);
	/* Written, its generations may be the recorder's again: never twice. */
	assert_int_equal(frec_snapshot__write(dfd, "d.frec", &hdr, pin), -EALREADY);
	close(dfd);
	frec_recorder__unpin(rec, pin);

	after = slurp(path, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	assert_int_equal(count_entries(dir), 3);	/* a.frec, link.frec, c.frec */
	free(before);
	free(after);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* --- a write in another thread while recording goes on -------------------- */

struct job {
	int dfd;
	struct frec_header hdr;
	struct frec_pin *pin;
	int ret;
};

static void *writer(void *arg)
{
	struct job *j = arg;

	j->ret = frec_snapshot__write(j->dfd, "bg.frec", &j->hdr, j->pin);
	return NULL;
}

#define NBG 60000

static void test_write_while_recording(void **state)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.min_age_ns = SEC / 10,
		/* Room for the pinned window and for everything recorded while
		 * it is written (max_bytes holds both). */
		.max_bytes = 1 << 20,
		.period_ns = SEC / 100,
		.chunk_bytes = 4096,
		.ncpus = 4,
		.max_threads = 1024,
		.max_processes = 64,
	};
	struct synth_rand s = { .x = 77, .ts = SEC, .ncpus = 4 };
	struct frec_event *want = calloc(NBG, sizeof(*want)), ev;
	struct frec_recorder *rec = frec_recorder__new(&o);
	struct frec_recorder_stats st;
	struct frec_reader *r;
	struct frec_gen *g;
	struct job j;
	pthread_t th;
	char dir[64], path[128];
	size_t n = 0, i = 0, pinned;
	__u64 pinned_events = 0;

	assert_non_null(rec);
	assert_int_equal(synth_tmpdir(dir), 0);
	synth_rand_threads(rec);
	/* Scheduler events only, so that want[] needs no string copies. */
	while (n < NBG / 2) {
		synth_rand_event(&s, &ev);
		if (ev.type > FREC_EV_SCHED_WAKEUP_NEW)
			continue;
		want[n++] = ev;
		assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
		frec_recorder__tick(rec, s.ts);
	}
	frec_recorder__seal(rec, s.ts);
	frec_recorder__stats(rec, &st);
	assert_true(st.window_generations > 3);

	j.dfd = open(dir, O_RDONLY | O_DIRECTORY);
	frec_header__init(&j.hdr);
	j.pin = frec_recorder__pin(rec);
	pinned = (size_t)frec_pin__events(j.pin);
	assert_int_equal(pthread_create(&th, NULL, writer, &j), 0);
	/* Keep recording: the pinned generations age out of the window and
	 * the pool reuses every chunk that is not pinned. */
	while (n < NBG) {
		synth_rand_event(&s, &ev);
		if (ev.type > FREC_EV_SCHED_WAKEUP_NEW)
			continue;
		n++;
		assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
		frec_recorder__tick(rec, s.ts);
	}
	pthread_join(th, NULL);
	assert_int_equal(j.ret, 0);
	frec_recorder__stats(rec, &st);
	assert_true(st.generations_evicted > 10);
	/* No loss and no early eviction: the window left the room. */
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.early_evictions, 0);
	assert_true(st.pool_bytes <= o.max_bytes);
	frec_recorder__unpin(rec, j.pin);
	close(j.dfd);

	/* The file holds exactly the pinned window: the last `pinned` events
	 * pushed before the pin. */
	snprintf(path, sizeof(path), "%s/bg.frec", dir);
	assert_int_equal(frec_reader__open(path, &r), 0);
	i = NBG / 2 - pinned;
	while (frec_reader__next_gen(r, &g) == 1) {
		while (frec_gen__next_event(g, &ev) == 1) {
			assert_true(synth_event_eq(&ev, &want[i]));
			i++;
			pinned_events++;
		}
	}
	assert_int_equal(i, NBG / 2);
	assert_int_equal(pinned_events, pinned);
	assert_int_equal(frec_reader__damaged(r), 0);
	frec_reader__free(r);
	frec_recorder__free(rec);
	free(want);
	synth_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_snapshot),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_never_overwrites),
		cmocka_unit_test(test_write_while_recording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
