// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writes the generated part of the fuzzing seed corpus: small snapshots made
 * by the core library itself, so that every seed is a real .frec file that
 * the reader accepts, and each one reaches a different corner of the format
 * (deflated and zstd blocks, CPUs past the 4-bit tag, pid reuse, hostile strings,
 * probe tables, empty files, damaged blocks, counts that claim far more than
 * a block holds).
 *
 *   make fuzz-corpus            rebuilds them into tests/fuzz/corpus/seeds/
 *
 * The outputs are committed; run this again only when the format changes.
 * Everything is deterministic (fixed timestamps, xorshift streams) except the
 * header's host fields, which are overwritten with fixed values.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <frec/recorder.h>
#include <frec/snapshot.h>
#include <frec/cgroup.h>
#include "synth.h"
#include "core/format.h"
#include "core/varint.h"

#define MAX_SEED_BYTES	(64 * 1024)

static const char *outdir;
static unsigned written;
static unsigned seed_ncpus;	/* of the last recorder(), for the header */
static unsigned seed_level;	/* of the last recorder(): deflate its blocks */
/* A level that says: zstd blocks, as frecd --compress zstd writes them */
#define SEED_ZSTD	100u

/* A recorder for the seeds: 4 KiB chunks, small tables. Its seeds' blocks
 * are stored, or with level 1-9 deflated at that zlib level once written
 * (synth_deflate.h): the recorder stores its blocks. SEED_ZSTD: written
 * with zstd blocks (frec_snapshot__write_opts). */
static struct frec_recorder *recorder(unsigned ncpus, unsigned level)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.min_age_ns = 60ull * 1000000000,
		.max_bytes = 1 << 20,
		.period_ns = 1000000000,
		.chunk_bytes = 4096,
		.ncpus = ncpus,
		.max_threads = 4096,
		.max_processes = 1024,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	seed_ncpus = ncpus;
	seed_level = level;
	if (!rec) {
		fprintf(stderr, "gen_corpus: recorder: %s\n", strerror(errno));
		exit(1);
	}
	return rec;
}

/* Seal at now and write outdir/name with fixed host fields (the config of
 * tmpl when given), then check the size (a seed must stay small to keep the
 * fuzzers fast). */
static void write_seed_as(struct frec_recorder *rec, const char *name, __u64 now,
			  const struct frec_header *tmpl)
{
	struct frec_header hdr;
	struct frec_pin *pin;
	struct stat st;
	char path[512];
	int dfd, err;

	frec_recorder__seal(rec, now);
	frec_header__init(&hdr);
	hdr.ncpus = seed_ncpus;
	snprintf(hdr.hostname, sizeof(hdr.hostname), "fuzz-host");
	snprintf(hdr.kernel_release, sizeof(hdr.kernel_release), "6.1.0-fuzz");
	snprintf(hdr.boot_id, sizeof(hdr.boot_id), "00000000-0000-4000-8000-000000000000");
	snprintf(hdr.reason, sizeof(hdr.reason), "seed %s", name);
	hdr.boottime_to_realtime_ns = 1700000000000000000ll;
	hdr.created_realtime_ns = 1700000000000000000ull + now;
	hdr.config.min_age_ns = 10ull * 1000000000;
	hdr.config.max_bytes = 64 << 20;
	hdr.config.period_ns = 1000000000;
	hdr.config.ring_bytes = 16 << 20;
	if (tmpl) {
		hdr.ncpus = tmpl->ncpus;
		hdr.config = tmpl->config;
		snprintf(hdr.reason, sizeof(hdr.reason), "%s", tmpl->reason);
	}
	pin = frec_recorder__pin(rec);
	if (!pin) {
		fprintf(stderr, "gen_corpus: %s: pin: %s\n", name, strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	unlink(path);
	dfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	{
		struct frec_snapshot_opts o = {
			.sz = sizeof(o),
			.compress = seed_level == SEED_ZSTD ? FREC_COMPRESS_ZSTD : FREC_COMPRESS_NONE,
		};

		err = dfd < 0 ? -errno : frec_snapshot__write_opts(dfd, name, &hdr, pin, &o);
	}
	if (dfd >= 0)
		close(dfd);
	frec_recorder__unpin(rec, pin);
	if (!err && seed_level && seed_level != SEED_ZSTD)
		err = synth_deflate_file(path, (int)seed_level);
	if (err) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(-err));
		exit(1);
	}
	if (stat(path, &st) || st.st_size > MAX_SEED_BYTES) {
		fprintf(stderr, "gen_corpus: %s: %lld bytes, more than %d\n", path,
			(long long)st.st_size, MAX_SEED_BYTES);
		exit(1);
	}
	chmod(path, 0644);
	written++;
}

static void write_seed(struct frec_recorder *rec, const char *name, __u64 now)
{
	write_seed_as(rec, name, now, NULL);
}

/* The events of the snapshot the unit tests know by heart (tests/unit/synth.h,
 * synth_known_snapshot()), with this file's fixed header, stored and
 * deflated. */
static void seed_known(const char *name, unsigned level)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:handle",
		  .path = "/bin/app", .func = "handle", .build_id = "", .nargs = 2 },
		{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/bin/app:handle",
		  .path = "/bin/app", .func = "handle", .build_id = "" },
	};
	static const __u64 args[2] = { 7, 8 };
	struct frec_recorder *rec = recorder(2, level);
	__u64 t = 1000000000;

	frec_recorder__set_probes(rec, probes, 2);
	frec_recorder__set_cmdline(rec, 100, "app --serve");
	frec_recorder__tick(rec, t);
	synth_switch(rec, t + 0, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
	synth_wake(rec, FREC_EV_SCHED_WAKING, t + 1000, 0, 101, 100, 102, 100, "helper", 1);
	synth_switch(rec, t + 2000, 1, 0, 0, "swapper/1", 0, 102, 100, "helper");
	synth_switch(rec, t + 3000, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	synth_probe(rec, FREC_EV_UPROBE, t + 4000, 1, 102, 100, 1, 2, args, 0);
	synth_probe(rec, FREC_EV_URETPROBE, t + 5000, 1, 102, 100, 2, 0, NULL, -5);
	synth_fork(rec, t + 6000, 1, 102, 100, "helper", 103, 103, "child");
	synth_exec(rec, t + 7000, 1, 103, 103, "true", "/bin/true");
	frec_recorder__seal(rec, t + 10000);
	t = 1001000000;
	synth_switch(rec, t + 0, 0, 0, 0, "swapper/0", 0, 103, 103, "true");
	synth_rename(rec, t + 1000, 0, 103, 103, "true", "renamed");
	synth_exit(rec, t + 2000, 0, 103, 103, "renamed");
	frec_recorder__add_lost(rec, 1, 3, t + 3000);
	write_seed(rec, name, t + 10000);
	frec_recorder__free(rec);
}

/* Random events of every type over 40 threads, several generations. */
static void seed_random(const char *name, __u64 seed, unsigned ncpus, unsigned level,
			unsigned gens, unsigned per_gen)
{
	struct frec_recorder *rec = recorder(ncpus + 5, level);
	/* every type, version 2's too */
	struct synth_rand s = { .x = seed, .ts = 5000000000ull, .ncpus = ncpus, .all_types = true };
	struct frec_event ev;

	synth_rand_threads(rec);
	frec_recorder__tick(rec, s.ts);
	for (unsigned g = 0; g < gens; g++) {
		for (unsigned i = 0; i < per_gen; i++) {
			synth_rand_event(&s, &ev);
			frec_recorder__push_event(rec, &ev);
		}
		s.ts += 1000000;
		frec_recorder__seal(rec, s.ts);
	}
	write_seed(rec, name, s.ts + 1000);
	frec_recorder__free(rec);
}

/* A ping-pong between two threads on two CPUs, the shape of real scheduler
 * traffic: switch, waking, switch back, with idle in between. */
static void seed_pingpong(const char *name, unsigned level)
{
	struct frec_recorder *rec = recorder(2, level);
	__u64 t = 2000000000;

	frec_recorder__set_cmdline(rec, 500, "pingpong -n 100");
	frec_recorder__tick(rec, t);
	for (unsigned g = 0; g < 3; g++) {
		for (unsigned i = 0; i < 40; i++, t += 5000) {
			synth_wake(rec, FREC_EV_SCHED_WAKING, t, 0, 501, 500, 502, 500, "pong", 1);
			synth_switch(rec, t + 1000, 0, 501, 500, "ping", 1, 0, 0, "swapper/0");
			synth_switch(rec, t + 1500, 1, 0, 0, "swapper/1", 0, 502, 500, "pong");
			synth_wake(rec, FREC_EV_SCHED_WAKING, t + 3000, 1, 502, 500, 501, 500, "ping", 0);
			synth_switch(rec, t + 3500, 1, 502, 500, "pong", 1, 0, 0, "swapper/1");
			synth_switch(rec, t + 4000, 0, 0, 0, "swapper/0", 0, 501, 500, "ping");
		}
		frec_recorder__seal(rec, t);
		t += 100000;
	}
	write_seed(rec, name, t);
	frec_recorder__free(rec);
}

/* Probe calls: nested uprobe/uretprobe pairs, an unpaired return, USDT hits,
 * an id the table does not name, all six arguments. */
static void seed_probes(void)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "func:/usr/bin/app:handle",
		  .path = "/usr/bin/app", .func = "handle", .build_id = "0123456789abcdef",
		  .nargs = 6 },
		{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "func:/usr/bin/app:handle",
		  .path = "/usr/bin/app", .func = "handle", .build_id = "0123456789abcdef" },
		{ .id = 3, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/usr/lib/libx.so:parse+16",
		  .path = "/usr/lib/libx.so", .func = "parse", .build_id = "", .offset = 16,
		  .nargs = 1 },
		{ .id = 4, .kind = FREC_PROBE_USDT, .name = "usdt:/usr/bin/app:app:tick",
		  .path = "/usr/bin/app", .func = "app:tick", .build_id = "", .nargs = 2 },
		{ .id = 5, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/usr/bin/app:lonely",
		  .path = "/usr/bin/app", .func = "lonely", .build_id = "" },
	};
	static const __u64 args[6] = { 1, 0xffffffffffffffffull, 3, 1ull << 40, 5, 6 };
	struct frec_recorder *rec = recorder(2, 0);
	__u64 t = 3000000000;

	frec_recorder__set_probes(rec, probes, 5);
	frec_recorder__set_cmdline(rec, 700, "app --threads 2");
	frec_recorder__tick(rec, t);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 701, 700, "app");
	synth_switch(rec, t + 10, 1, 0, 0, "swapper/1", 0, 702, 700, "app-worker");
	for (unsigned i = 0; i < 20; i++) {
		t += 10000;
		synth_probe(rec, FREC_EV_UPROBE, t, 0, 701, 700, 1, 6, args, 0);
		synth_probe(rec, FREC_EV_UPROBE, t + 100, 0, 701, 700, 1, 6, args, 0);
		synth_probe(rec, FREC_EV_URETPROBE, t + 200 + i * 10, 0, 701, 700, 2, 0, NULL,
			    (__s64)i - 10);
		synth_probe(rec, FREC_EV_URETPROBE, t + 900, 0, 701, 700, 2, 0, NULL, 0);
		synth_probe(rec, FREC_EV_UPROBE, t + 1000, 1, 702, 700, 3, 1, args, 0);
		synth_probe(rec, FREC_EV_USDT, t + 1100, 1, 702, 700, 4, 2, args + 2, 0);
		synth_probe(rec, FREC_EV_URETPROBE, t + 1200, 1, 702, 700, 5, 0, NULL, -1);
		synth_probe(rec, FREC_EV_UPROBE, t + 1300, 1, 702, 700, 99, 0, NULL, 0);
		if (i == 9)
			frec_recorder__seal(rec, t + 5000);
	}
	synth_switch(rec, t + 20000, 0, 701, 700, "app", 1, 0, 0, "swapper/0");
	write_seed(rec, "probes.frec", t + 30000);
	frec_recorder__free(rec);
}

/* Strings a traced program controls: quotes, backslashes, control
 * characters, an escape sequence, invalid and valid UTF-8, a file name of
 * the maximum length. The tools must escape all of them. */
static void seed_strings(void)
{
	static const char *const comms[] = {
		"a\"b\\c", "tab\there", "nl\nx", "\x1b[31mred", "\xff\xfe\x80",
		"caf\xc3\xa9", "\xe2\x82\xac euro", "\xf0\x9f\x98\x80", "\xc3", "del\x7f",
		"sp ace", "", "%s%n%x", "</script>",
	};
	static const struct frec_probe_info probes[] = {
		{ .id = 7, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/tmp/we\"ird\\:f\n",
		  .path = "/tmp/we\"ird\\", .func = "f\n\x01", .build_id = "\xff", .nargs = 1 },
	};
	struct frec_recorder *rec = recorder(2, 0);
	char longname[FREC_FILENAME_LEN];
	__u64 t = 4000000000, one = 1;
	unsigned n = sizeof(comms) / sizeof(comms[0]);

	memset(longname, 'x', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	frec_recorder__set_probes(rec, probes, 1);
	frec_recorder__set_cmdline(rec, 900, "sh -c \"echo \\\"hi\\\"\"\t\x01\xff");
	frec_recorder__tick(rec, t);
	for (unsigned i = 0; i < n; i++, t += 1000) {
		synth_switch(rec, t, i & 1, 0, 0, "swapper", 0, 901 + i, 900, comms[i]);
		synth_wake(rec, FREC_EV_SCHED_WAKING, t + 100, i & 1, 901 + i, 900, 901 + (i + 1) % n,
			   900, comms[(i + 1) % n], (i + 1) & 1);
		synth_rename(rec, t + 200, i & 1, 901 + i, 900, comms[i], comms[(i + 3) % n]);
		synth_switch(rec, t + 300, i & 1, 901 + i, 900, comms[(i + 3) % n], 2, 0, 0, "swapper");
	}
	synth_probe(rec, FREC_EV_UPROBE, t, 0, 901, 900, 7, 1, &one, 0);
	synth_exec(rec, t + 100, 0, 902, 902, "\x1b]0;title\x07", longname);
	synth_exec(rec, t + 200, 1, 903, 903, "ok", "/bin/\xff\"\\\n");
	write_seed(rec, "strings.frec", t + 1000);
	frec_recorder__free(rec);
}

/* CPUs past the 4-bit CPU field of the event tag (since the wide
 * encoding, docs/FORMAT.md, the same content as v1/cpus.frec in another
 * layout), drops on many CPUs, a migration across them, lost records with
 * and without a thread and on no known CPU. */
static void seed_cpus(void)
{
	struct frec_recorder *rec = recorder(40, 0);
	__u64 t = 6000000000;

	frec_recorder__tick(rec, t);
	for (unsigned c = 0; c < 40; c++, t += 1000) {
		synth_switch(rec, t, c, 0, 0, "swapper", 0, 1100 + c, 1100, "spread");
		synth_migrate(rec, t + 100, c, 1100 + c, 1100, 1100 + c, 1100, "spread", c,
			      (c + 17) % 40);
		synth_switch(rec, t + 500, c, 1100 + c, 1100, "spread", 0, 0, 0, "swapper");
		if (c % 3 == 0)
			frec_recorder__add_lost(rec, c, c + 1, t + 600);
	}
	frec_recorder__seal(rec, t);
	t += 1000000;
	synth_switch(rec, t, 39, 0, 0, "swapper", 0, 1100, 1100, "spread");
	frec_recorder__add_lost(rec, 20, 1000000, t + 10);
	frec_recorder__push_event(rec, &(struct frec_event){ .ts = t + 20, .type = FREC_EV_LOST,
			.cpu = FREC_CPU_UNKNOWN, .lost.count = 3 });
	write_seed(rec, "cpus.frec", t + 1000);
	frec_recorder__free(rec);
}

/* The wide CPU encoding of a 256-CPU machine: events on CPUs of every
 * group, wakings that target each group and CPUs past the machine's
 * (escapes), and lost records on a CPU and on none (an escaped cpu). */
static void seed_wide(void)
{
	struct frec_recorder *rec = recorder(256, 0);
	__u64 t = 7000000000;

	frec_recorder__tick(rec, t);
	for (unsigned c = 0; c < 256; c += 17, t += 1000) {
		synth_switch(rec, t, c, 0, 0, "swapper", 0, 2000 + c, 2000, "wide");
		synth_wake(rec, FREC_EV_SCHED_WAKING, t + 200, c, 2000 + c, 2000, 2000 + (c + 1) % 256,
			   2000, "wide", (c * 37) % 270);
		synth_switch(rec, t + 500, c, 2000 + c, 2000, "wide", 1, 0, 0, "swapper");
	}
	frec_recorder__add_lost(rec, 255, 7, t);
	frec_recorder__push_event(rec, &(struct frec_event){ .ts = t + 20, .type = FREC_EV_LOST,
			.cpu = FREC_CPU_UNKNOWN, .lost.count = 3 });
	write_seed(rec, "wide.frec", t + 1000);
	frec_recorder__free(rec);
}

/* One tid named twice in a generation (a pid reused after exit), forks,
 * execs and exits across generations. */
static void seed_lifecycle(void)
{
	struct frec_recorder *rec = recorder(2, 0);
	__u64 t = 7000000000;

	frec_recorder__set_cmdline(rec, 1200, "make -j2");
	frec_recorder__tick(rec, t);
	for (unsigned g = 0; g < 3; g++) {
		for (unsigned i = 0; i < 6; i++, t += 10000) {
			__u32 child = 1300 + i;

			synth_fork(rec, t, 0, 1200, 1200, "make", child, child, "make");
			synth_wake(rec, FREC_EV_SCHED_WAKEUP_NEW, t + 100, 0, 1200, 1200, child, child,
				   "make", 1);
			synth_switch(rec, t + 200, 1, 0, 0, "swapper/1", 0, child, child, "make");
			synth_exec(rec, t + 300, 1, child, child, i & 1 ? "cc1" : "as",
				   i & 1 ? "/usr/lib/gcc/cc1" : "/usr/bin/as");
			synth_exit(rec, t + 5000, 1, child, child, i & 1 ? "cc1" : "as");
			synth_switch(rec, t + 5100, 1, child, child, i & 1 ? "cc1" : "as", 0x80, 0, 0,
				     "swapper/1");
		}
		/* the same pid again, under another name, in the same generation */
		synth_switch(rec, t, 1, 0, 0, "swapper/1", 0, 1300, 1300, "reused");
		synth_switch(rec, t + 100, 1, 1300, 1300, "reused", 0x402, 0, 0, "swapper/1");
		frec_recorder__seal(rec, t + 1000);
		t += 100000;
	}
	write_seed(rec, "lifecycle.frec", t);
	frec_recorder__free(rec);
}

/* Version 2's records: lost spans (the kernel's, a late record's), a gap,
 * triggers (a ring record's, a pushed one, suppressed aggregates, the
 * table of section 6), a stack, across two generations on 2 CPUs. */
static void seed_v2(void)
{
	static const struct frec_trigger_info triggers[] = {
		{ .id = 1, .kind = FREC_TRIG_RUNQ, .name = "slow-wake",
		  .spec = "runq>20ms,name=slow-wake" },
		{ .id = 2, .kind = FREC_TRIG_LOST, .name = "lost", .spec = "lost" },
		{ .id = 3, .kind = FREC_TRIG_MANUAL, .name = "manual:dump", .spec = "manual:dump" },
	};
	struct frec_recorder *rec = recorder(2, 0);
	struct frec_event ev = { .type = FREC_EV_TRIGGER, .cpu = 1, .tid = 10, .tgid = 10 };
	__u64 t = 7000000000ull;

	frec_recorder__set_triggers(rec, triggers, 3);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 10, 10, "app");
	synth_switch(rec, t + 100, 1, 0, 0, "swapper/1", 0, 11, 10, "worker");
	frec_recorder__add_lost_span(rec, 0, 5, t + 200, t + 400, t + 500);
	frec_recorder__add_gap(rec, FREC_GAP_RELOAD, t + 600, t + 900);
	/* runq: the subject (12, named here) is not the current thread */
	synth_trigger(rec, t + 950, 0, 10, 10, 1, 12, 10, "waiter", 52300000);
	frec_recorder__add_suppressed(rec, 1, 11, 10, t + 960, 30000000, 2);
	frec_recorder__add_suppressed(rec, 1, 12, 10, t + 970, 61000000, 1);
	ev.ts = t + 1000;
	ev.trigger.id = 3;
	ev.trigger.count = 1;
	frec_recorder__push_event(rec, &ev);
	/* a probe hit with its user stack (no symbolizer: addresses) */
	synth_probe(rec, FREC_EV_UPROBE, t + 1000, 1, 11, 10, 1, 0, NULL, 0);
	synth_stack(rec, t + 1000, 1, 11, 10, NULL, 0, (const __u64[]){ 0x401000, 0x402000 }, 2,
		    FREC_STACK_KERN_ERR);
	frec_recorder__seal(rec, t + 2000);
	/* late: before the seal */
	synth_switch(rec, t + 1500, 1, 11, 10, "worker", 1, 0, 0, "swapper/1");
	synth_switch(rec, t + 3000, 0, 10, 10, "app", 1, 0, 0, "swapper/0");
	/* lost: no thread; and one firing dated before this generation */
	frec_recorder__add_suppressed(rec, 2, 0, 0, t + 10, 7, 3);
	write_seed(rec, "v2-events.frec", t + 4000);
	frec_recorder__free(rec);
}

/*
 * Stacks (sections 4 and 5, type 14) through the unit tests' fake
 * symbolizer (tests/unit/synth.h), on 2 CPUs, three generations:
 *   1: blocking switches of one thread with kernel and user stacks, again
 *      and again (deduplicated), another process with the same addresses,
 *      probe hits with user stacks, frames unnamed, mapped but unnamed, in
 *      libc, and in no known mapping, a kernel thread's kernel-only stack,
 *      and an orphan (not written);
 *   2: the process exec'd (a new image: /bin/app.1), the same stacks in a
 *      table of its own;
 *   3: no symbolizer: kernel frames unnamed, user frames as addresses.
 */
static void seed_stacks(void)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:handle",
		  .path = "/bin/app", .func = "handle", .build_id = "b1ab", .nargs = 1 },
	};
	static const __u64 kips[4] = { SYNTH_KBASE + 0x1234, SYNTH_KBASE + 0x5010,
				       SYNTH_KBASE + 0x9abc, 0xffff0000 };
	static const __u64 uips[5] = { SYNTH_APP + 0x1040, SYNTH_APP + 0x2080, SYNTH_APP + 0x3010,
				       SYNTH_LIBC + 0x310, 0x1234 };
	struct frec_recorder *rec = recorder(2, 0);
	struct synth_sym ctx = { 0 };
	struct frec_symbolizer sym = synth_symbolizer(&ctx);
	struct frec_header tmpl = { 0 };
	__u64 t = 8000000000ull, arg = 42;

	frec_recorder__set_symbolizer(rec, &sym);
	frec_recorder__set_probes(rec, probes, 1);
	frec_recorder__set_cmdline(rec, 600, "app --stacks");
	frec_recorder__tick(rec, t);
	for (unsigned g = 0; g < 3; g++) {
		if (g == 1)
			ctx.images[600 % 8] = 1;	/* exec */
		if (g == 2)
			frec_recorder__set_symbolizer(rec, NULL);
		for (unsigned i = 0; i < 6; i++, t += 10000) {
			synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 601, 600, "app");
			synth_probe(rec, FREC_EV_UPROBE, t + 1000, 0, 601, 600, 1, 1, &arg, 0);
			synth_stack(rec, t + 1000, 0, 601, 600, NULL, 0, uips + (i & 1), 4 - (i & 1),
				    FREC_STACK_KERN_ERR);
			/* blocks in one of two places */
			synth_switch(rec, t + 2000, 0, 601, 600, "app", 1, 0, 0, "swapper/0");
			synth_stack(rec, t + 2000, 0, 601, 600, kips + (i % 2), 3, uips, 5, 0);
			/* another process, the same addresses */
			synth_switch(rec, t + 2500, 1, 0, 0, "swapper/1", 0, 701, 700, "other");
			synth_switch(rec, t + 3000, 1, 701, 700, "other", 2, 0, 0, "swapper/1");
			synth_stack(rec, t + 3000, 1, 701, 700, kips, 3, uips, 5, 0);
			/* a kernel thread: no user stack */
			synth_switch(rec, t + 4000, 1, 0, 0, "swapper/1", 0, 50, 50, "kworker/1:0");
			synth_switch(rec, t + 5000, 1, 50, 50, "kworker/1:0", 0x402, 0, 0, "swapper/1");
			synth_stack(rec, t + 5000, 1, 50, 50, kips + 1, 3, NULL, 0, 0);
			/* an orphan: its switch is another thread's */
			synth_stack(rec, t + 5000, 1, 51, 50, kips, 1, NULL, 0, 0);
		}
		t += 1000000;
		frec_recorder__seal(rec, t);
	}
	tmpl.ncpus = 2;
	tmpl.config.min_age_ns = 10ull * 1000000000;
	tmpl.config.max_bytes = 64 << 20;
	tmpl.config.period_ns = 1000000000;
	tmpl.config.ring_bytes = 16 << 20;
	tmpl.config.flags = FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES;
	snprintf(tmpl.reason, sizeof(tmpl.reason), "seed stacks.frec");
	write_seed_as(rec, "stacks.frec", t + 1000, &tmpl);
	frec_recorder__free(rec);
}

/* A snapshot with no generation at all: header only. */
static void seed_empty(void)
{
	struct frec_recorder *rec = recorder(1, 0);

	write_seed(rec, "empty.frec", 1000);
	frec_recorder__free(rec);
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(MAX_SEED_BYTES + 1);

	if (!f || !buf) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	*len = fread(buf, 1, MAX_SEED_BYTES + 1, f);
	fclose(f);
	return buf;
}

static void write_bytes(const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	written++;
}

/* Damaged copies of a good file: cut inside its last block, and one byte of
 * its first block's payload flipped (the reader must resynchronise and
 * still read the rest). */
static void seed_damaged(void)
{
	char path[512];
	size_t len;
	unsigned char *b;
	unsigned char *m;

	snprintf(path, sizeof(path), "%s/pingpong.frec", outdir);
	b = read_file(path, &len);
	write_bytes("damaged-truncated.frec", b, len - 7);
	m = memmem(b + 16, len - 16, "\xf7" "FRGEN\r\n", 8);
	if (!m || m + 40 > b + len) {
		fprintf(stderr, "gen_corpus: no block in %s\n", path);
		exit(1);
	}
	m[32 + 4] ^= 0x40;
	write_bytes("damaged-crc.frec", b, len);
	free(b);
}

/* --- hostile counts ---------------------------------------------------------
 * Well-formed blocks (CRCs right, DEFLATE stream exact) whose summaries claim
 * far more than they hold: a reader that sizes anything from those counts
 * asks for gigabytes. One block claims R/3 entries in each table; the next
 * claims R/3 events over an event stream of R zero bytes (undecodable from
 * its first event). Both compress about 1000 to 1, so R = raw_mib MiB costs
 * about raw_mib KiB of file each. A real block from known.frec follows them:
 * the walk must get to it.
 */
static size_t hostile_block(uint8_t **out, size_t raw_len, bool tables)
{
	size_t n = raw_len / 3, sum_len, events_len = tables ? 0 : raw_len, blk_len;
	uint8_t sum[64], *p = sum, *raw, *blk;

	p = put_varint(p, 1);			/* seq */
	p = put_varint(p, 1000);		/* start_ts */
	p = put_varint(p, 2000);		/* end_ts */
	p = put_varint(p, tables ? 0 : n);	/* nevents */
	p = put_varint(p, 0);			/* no counts by type */
	p = put_varint(p, 1);			/* one CPU, */
	p = put_varint(p, 0);			/* no drops */
	for (int i = 0; i < 4; i++)		/* threads, processes, probes, strings */
		p = put_varint(p, tables ? n : 0);
	sum_len = (size_t)(p - sum);
	/* Zeros after the summary parse as tid 0 threads: as many as fit. */
	raw = calloc(1, events_len + sum_len + (tables ? raw_len : 0));
	if (!raw) {
		fprintf(stderr, "gen_corpus: %s\n", strerror(ENOMEM));
		exit(1);
	}
	memcpy(raw + events_len, sum, sum_len);
	raw_len = events_len + sum_len + (tables ? raw_len : 0);
	blk = synth_deflate_block(raw, raw_len, events_len, raw_len, 9, 9, &blk_len);
	if (!blk)
		exit(1);
	free(raw);
	*out = blk;
	return blk_len;
}

static void seed_hostile(const char *name, size_t raw_mib)
{
	uint8_t *tab, *evs, *m;
	size_t len, ntab, nevs, hdr;
	char path[512];
	unsigned char *b, *f;

	snprintf(path, sizeof(path), "%s/known.frec", outdir);
	b = read_file(path, &len);
	m = memmem(b + FILE_PREFIX_LEN, len - FILE_PREFIX_LEN, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	if (!m) {
		fprintf(stderr, "gen_corpus: no block in %s\n", path);
		exit(1);
	}
	hdr = (size_t)(m - b);
	ntab = hostile_block(&tab, raw_mib << 20, true);
	nevs = hostile_block(&evs, raw_mib << 20, false);
	f = malloc(len + ntab + nevs);
	if (!f)
		exit(1);
	memcpy(f, b, hdr);
	memcpy(f + hdr, tab, ntab);
	memcpy(f + hdr + ntab, evs, nevs);
	memcpy(f + hdr + ntab + nevs, m, len - hdr);
	write_bytes(name, f, len + ntab + nevs);
	free(f);
	free(tab);
	free(evs);
	free(b);
}

/*
 * Sections 4 and 5 that claim more than they hold, in well-formed blocks
 * (one thread, no events) before known.frec's first block: k stacks over
 * R bytes of one-frame kernel stacks (k far past the bytes), and k
 * mappings past the bytes. (Kind 1, k = R/3 of them, each 3 bytes as
 * claimed but together past the frame limit, is left out of the corpus:
 * the reader stops at the limit, but only after some 70 MB, which under
 * ASan slowed every fuzzer tenfold; test_stacks covers it.)
 */
static size_t hostile_stacks_block(uint8_t **out, size_t raw_len, unsigned kind)
{
	size_t n = raw_len / 3, hdr_len, blk_len, len;
	uint8_t head[64], *p = head, *raw, *blk, *q;

	p = put_varint(p, 1);			/* seq */
	p = put_varint(p, 1000);		/* start_ts */
	p = put_varint(p, 2000);		/* end_ts */
	p = put_varint(p, 0);			/* nevents */
	p = put_varint(p, 0);			/* no counts by type */
	p = put_varint(p, 1);			/* one CPU, */
	p = put_varint(p, 0);			/* no drops */
	p = put_varint(p, 1);			/* a thread */
	p = put_varint(p, 0);
	p = put_varint(p, 0);
	p = put_varint(p, 0);
	p = put_varint(p, 7);			/* tid 7, tgid 7, "t" */
	p = put_varint(p, 0);			/* version 4: zigzag(tid - tgid) */
	*p++ = THREAD_NAME_BYTE(0, 1);		/* version 5: no byte shared, one */
	*p++ = 't';
	p = put_varint(p, kind == 2 ? 1 : 2);	/* sections */
	if (kind == 2) {
		p = put_varint(p, SECTION_MAPPINGS);
		len = varint_len(raw_len) + raw_len;
	} else {
		p = put_varint(p, SECTION_STACKS);
		len = varint_len(kind ? n : 100 * n) + 3 * n;
	}
	p = put_varint(p, len);
	hdr_len = (size_t)(p - head);
	raw = calloc(1, hdr_len + len + 8);
	if (!raw) {
		fprintf(stderr, "gen_corpus: %s\n", strerror(ENOMEM));
		exit(1);
	}
	memcpy(raw, head, hdr_len);
	q = raw + hdr_len;
	if (kind == 2) {
		q = put_varint(q, raw_len);	/* mappings: zeros are empty strs */
		q += raw_len;
	} else {
		q = put_varint(q, kind ? n : 100 * n);
		for (size_t i = 0; i < n; i++) {
			*q++ = FREC_STACK_KERNEL;
			*q++ = 1;
			*q++ = 0;
		}
		/* section 5, empty, so that only section 4's counts decide */
		q = put_varint(q, SECTION_MAPPINGS);
		q = put_varint(q, 1);
		q = put_varint(q, 0);
	}
	blk = synth_deflate_block(raw, (size_t)(q - raw), 0, (size_t)(q - raw), 9, 9, &blk_len);
	if (!blk)
		exit(1);
	free(raw);
	*out = blk;
	return blk_len;
}

static void seed_hostile_stacks(const char *name, size_t raw_mib)
{
	uint8_t *blk[3], *m;
	size_t len, nb[3], hdr, off;
	char path[512];
	unsigned char *b, *f;

	snprintf(path, sizeof(path), "%s/known.frec", outdir);
	b = read_file(path, &len);
	m = memmem(b + FILE_PREFIX_LEN, len - FILE_PREFIX_LEN, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	if (!m) {
		fprintf(stderr, "gen_corpus: no block in %s\n", path);
		exit(1);
	}
	hdr = (size_t)(m - b);
	for (unsigned k = 0; k < 3; k += 2)
		nb[k] = hostile_stacks_block(&blk[k], raw_mib << 20, k);
	f = malloc(len + nb[0] + nb[2]);
	if (!f)
		exit(1);
	memcpy(f, b, hdr);
	off = hdr;
	for (unsigned k = 0; k < 3; k += 2) {
		memcpy(f + off, blk[k], nb[k]);
		off += nb[k];
		free(blk[k]);
	}
	memcpy(f + off, m, len - hdr);
	write_bytes(name, f, off + len - hdr);
	free(f);
	free(b);
}

/* --- cgroups ------------------------------------------------------------------ */

/* Names for the cgroup seed: container layouts, the root, hostile strings;
 * ids from 40 on are unknown. */
static const char *const seed_cg_paths[] = {
	"/",
	"/system.slice/docker-3b1f0c2d4e5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0.scope",
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice/cri-containerd-aa00bb11cc22dd33ee44ff5566778899aa00bb11cc22dd33ee44ff5566778899.scope",
	"/machine.slice/libpod-conmon-3b1f0c2d4e5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0.scope",
	"/user.slice/user-1000.slice/session-2.scope",
	"/system.slice/\"quoted\" \\back\\slash\t\x01\x7f\xc3\x28.service",
	"/system.slice/nginx.service",
};

static int seed_cg_name(void *ctx, __u64 id, const char **path, const char **cont)
{
	static char c[FREC_CONTAINER_ID_LEN];
	size_t n = sizeof(seed_cg_paths) / sizeof(seed_cg_paths[0]);

	(void)ctx;
	if (id >= 40)
		return -ENOENT;
	*path = seed_cg_paths[id % n];
	*cont = frec_cgroup__container(*path, c, sizeof(c)) ? "" : c;
	return 0;
}

/* Three generations on 2 CPUs: threads switched in in cgroups (one of
 * them moving between two, back and forth), a fork into another, a
 * thread whose cgroup is first unknown, push_event()'s fill-in and move,
 * ids the namer cannot name, a generation without namer; the header says
 * v2 with two filters. */
static void seed_cgroups(void)
{
	struct frec_recorder *rec = recorder(2, 0);
	struct frec_cgroup_namer namer = { .name = seed_cg_name };
	struct frec_header tmpl;
	__u64 t = 3000000000ull;

	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.ncpus = 2;
	tmpl.config.min_age_ns = 10ull * 1000000000;
	tmpl.config.max_bytes = 64 << 20;
	tmpl.config.period_ns = 1000000000;
	tmpl.config.ring_bytes = 16 << 20;
	snprintf(tmpl.config.cgroup_hierarchy, sizeof(tmpl.config.cgroup_hierarchy), "v2");
	tmpl.config.ncgroups = 2;
	snprintf(tmpl.config.cgroups[0], sizeof(tmpl.config.cgroups[0]), "/system.slice");
	snprintf(tmpl.config.cgroups[1], sizeof(tmpl.config.cgroups[1]), "/kubepods.slice");
	snprintf(tmpl.reason, sizeof(tmpl.reason), "seed cgroups.frec");
	frec_recorder__set_cgroup_namer(rec, &namer);
	frec_recorder__set_cmdline(rec, 600, "svc --serve");
	frec_recorder__tick(rec, t);
	for (unsigned g = 0; g < 3; g++) {
		if (g == 2)
			frec_recorder__set_cgroup_namer(rec, NULL);
		for (unsigned i = 0; i < 30; i++, t += 5000) {
			__u64 mover = (i / 5) % 2 ? 2 : 3;

			synth_wake(rec, FREC_EV_SCHED_WAKING, t, 0, 601, 600, 602, 600, "worker", 1);
			synth_switch_cg(rec, t + 1000, 0, 601, 600, "svc", 1, 0, 0, "swapper/0", 0);
			synth_switch_cg(rec, t + 1500, 1, 0, 0, "swapper/1", 0, 602, 600, "worker",
					mover);
			synth_switch_cg(rec, t + 2500, 1, 602, 600, "worker", 1, 603, 603, "other",
					i < 3 ? 0 : 40 + g);
			synth_switch_cg(rec, t + 3500, 1, 603, 603, "other", 0, 0, 0, "swapper/1", 0);
			synth_switch_cg(rec, t + 4000, 0, 0, 0, "swapper/0", 0, 601, 600, "svc", 1);
		}
		synth_fork_cg(rec, t, 0, 601, 600, "svc", 610 + g, 610 + g, "child", 5);
		synth_cgroup(rec, t + 100, 0, 610 + g, 610 + g, 6);
		synth_cgroup(rec, t + 200, 1, 604, 604, 4);
		synth_switch_cg(rec, t + 300, 1, 0, 0, "swapper/1", 0, 604, 604, "late", 4);
		t += 1000000;
		frec_recorder__seal(rec, t);
	}
	write_seed_as(rec, "cgroups.frec", t + 1000, &tmpl);
	frec_recorder__free(rec);
}

/*
 * A deflated block whose section (2 or 3) claims 100 times the entries
 * its raw_len bytes hold: well-formed entries (ids 1, 2, ... with empty
 * strings, or thread 0 then nothing), so that only the claimed k is wrong.
 */
static size_t hostile_cgroups_block(uint8_t **out, size_t raw_len, unsigned sec)
{
	size_t n = sec == SECTION_CGROUPS ? raw_len / 9 : 1, hdr_len, len, blk_len;
	uint8_t head[64], *p = head, *raw, *blk, *q;

	p = put_varint(p, 1);			/* seq */
	p = put_varint(p, 1000);		/* start_ts */
	p = put_varint(p, 2000);		/* end_ts */
	p = put_varint(p, 0);			/* nevents */
	p = put_varint(p, 0);			/* no counts by type */
	p = put_varint(p, 1);			/* one CPU, */
	p = put_varint(p, 0);			/* no drops */
	p = put_varint(p, 1);			/* a thread */
	p = put_varint(p, 0);
	p = put_varint(p, 0);
	p = put_varint(p, 0);
	p = put_varint(p, 7);			/* tid 7, tgid 7, "t" */
	p = put_varint(p, 0);			/* version 4: zigzag(tid - tgid) */
	*p++ = THREAD_NAME_BYTE(0, 1);		/* version 5: no byte shared, one */
	*p++ = 't';
	p = put_varint(p, 1);			/* one section */
	p = put_varint(p, sec);
	raw = calloc(1, raw_len + 128);	/* k and the head besides the entries */
	if (!raw) {
		fprintf(stderr, "gen_corpus: %s\n", strerror(ENOMEM));
		exit(1);
	}
	q = put_varint(raw, 100 * n);		/* k */
	for (size_t i = 0; i < n; i++) {
		if (sec == SECTION_CGROUPS) {
			q = put_varint(q, 0x100000000ull + i + 1);
			*q++ = 0;
			*q++ = 0;
			*q++ = 0;
			*q++ = 0;
		} else {
			*q++ = 0;
			*q++ = 1;
		}
	}
	len = (size_t)(q - raw);
	p = put_varint(p, len);
	hdr_len = (size_t)(p - head);
	memmove(raw + hdr_len, raw, len);
	memcpy(raw, head, hdr_len);
	blk = synth_deflate_block(raw, hdr_len + len, 0, hdr_len + len, 9, 9, &blk_len);
	if (!blk)
		exit(1);
	free(raw);
	*out = blk;
	return blk_len;
}

/* known.frec with two hostile cgroup blocks before its own. */
static void seed_hostile_cgroups(const char *name, size_t raw_kib)
{
	uint8_t *blk[2], *m;
	size_t len, nb[2], hdr, off;
	char path[512];
	unsigned char *b, *f;

	snprintf(path, sizeof(path), "%s/known.frec", outdir);
	b = read_file(path, &len);
	m = memmem(b + FILE_PREFIX_LEN, len - FILE_PREFIX_LEN, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	if (!m) {
		fprintf(stderr, "gen_corpus: no block in %s\n", path);
		exit(1);
	}
	hdr = (size_t)(m - b);
	nb[0] = hostile_cgroups_block(&blk[0], raw_kib << 10, SECTION_CGROUPS);
	nb[1] = hostile_cgroups_block(&blk[1], raw_kib << 10, SECTION_THREAD_CGROUPS);
	f = malloc(len + nb[0] + nb[1]);
	if (!f)
		exit(1);
	memcpy(f, b, hdr);
	off = hdr;
	for (unsigned k = 0; k < 2; k++) {
		memcpy(f + off, blk[k], nb[k]);
		off += nb[k];
		free(blk[k]);
	}
	memcpy(f + off, m, len - hdr);
	write_bytes(name, f, off + len - hdr);
	free(f);
	free(b);
}

/* --- real recordings --------------------------------------------------------
 * A snapshot recorded by frecd names every task its events mention, with
 * command lines and exec'd file names from the machine it ran on. To commit
 * one as a seed, its generations are re-recorded through the core library
 * (the same writer frecd uses) with those strings neutralised: command lines
 * become the process's comm, comms other than the kernel's threads and a
 * few common tools become "task", file names outside /usr and /bin become
 * /usr/bin/COMM, probed binaries /usr/bin/BASENAME, host fields are
 * replaced. Event order, timestamps, CPUs,
 * tids, states and drops stay as recorded. At most max_events events are
 * kept, whole generations first.
 */
static const char *neutral_comm(const char *c)
{
	static const char *const keep[] = {
		"swapper", "kworker", "ksoftirqd", "rcu_", "migration", "kcompactd", "cpuhp",
		"idle_inject", "sh", "bash", "dash", "sleep", "frecd", "perf", "sched-", "cat",
		"true", "pingpong", "forkexec", "probe_target",
	};

	if (!c || !*c)
		return c;
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (!strncmp(c, keep[i], strlen(keep[i])))
			return c;
	return "task";
}

static const char *neutral_file(const char *f, const char *comm, char *buf, size_t len)
{
	if (!strncmp(f, "/usr/", 5) || !strncmp(f, "/bin/", 5) || !strncmp(f, "/sbin/", 6))
		return f;
	snprintf(buf, len, "/usr/bin/%s", comm && *comm ? comm : "prog");
	return buf;
}

/* The generation's probe table with each binary moved to /usr/bin. */
static void import_probes(struct frec_recorder *rec, struct frec_gen *g, __u32 n)
{
	static char names[64][256], paths[64][256];
	struct frec_probe_info probes[64];

	if (n > 64)
		n = 64;
	for (__u32 i = 0; i < n; i++) {
		const struct frec_probe_info *p = frec_gen__probe_at(g, i);
		const char *base = strrchr(p->path, '/');
		int kind = (int)strcspn(p->name, ":");	/* "func", "uprobe", ... */

		probes[i] = *p;
		snprintf(paths[i], sizeof(paths[i]), "/usr/bin/%.100s", base ? base + 1 : p->path);
		snprintf(names[i], sizeof(names[i]), "%.*s:%.100s:%.100s", kind < 16 ? kind : 16,
			 p->name, paths[i], p->func);
		probes[i].path = paths[i];
		probes[i].name = names[i];
		probes[i].build_id = "";
	}
	frec_recorder__set_probes(rec, probes, n);
}

/* The generation's trigger table, as it is (its specs name no host). */
static void import_triggers(struct frec_recorder *rec, struct frec_gen *g, __u32 n)
{
	struct frec_trigger_info t[FREC_MAX_TRIGGERS];

	if (n > FREC_MAX_TRIGGERS)
		n = FREC_MAX_TRIGGERS;
	for (__u32 i = 0; i < n; i++)
		t[i] = *frec_gen__trigger_at(g, i);
	frec_recorder__set_triggers(rec, t, n);
}

static void import_real(const char *in, const char *name, __u64 max_events)
{
	struct frec_recorder *rec = NULL;
	struct frec_reader *r;
	struct frec_header tmpl;
	struct frec_gen *g;
	__u64 kept = 0, last = 0;
	int rc;

	rc = frec_reader__open(in, &r);
	if (rc) {
		fprintf(stderr, "gen_corpus: %s: %s\n", in, frec_strerror(rc));
		exit(1);
	}
	tmpl = *frec_reader__header(r);
	rec = recorder(tmpl.ncpus ? tmpl.ncpus : 1, 0);
	while ((rc = frec_reader__next_gen(r, &g)) != 0 && kept < max_events) {
		const struct frec_gen_info *gi;
		struct frec_event ev;
		char file[FREC_FILENAME_LEN];

		if (rc < 0)
			continue;
		gi = frec_gen__info(g);
		for (__u32 i = 0; i < gi->nthreads; i++) {
			const struct frec_thread *t = frec_gen__thread_at(g, i);

			frec_recorder__set_thread(rec, t->tid, t->tgid, neutral_comm(t->comm));
		}
		for (__u32 i = 0; i < gi->nprocesses; i++) {
			const struct frec_process *p = frec_gen__process_at(g, i);
			const struct frec_thread *t = frec_gen__thread(g, p->tgid);

			frec_recorder__set_cmdline(rec, p->tgid, t ? neutral_comm(t->comm) : "");
		}
		import_probes(rec, g, gi->nprobes);
		import_triggers(rec, g, gi->ntriggers);
		if (!last)
			frec_recorder__tick(rec, gi->start_ts);
		while (kept < max_events && frec_gen__next_event(g, &ev) > 0) {
			if (ev.type == FREC_EV_PROCESS_EXEC) {
				ev.exec.comm = neutral_comm(ev.exec.comm);
				ev.exec.filename = neutral_file(ev.exec.filename, ev.exec.comm, file,
								sizeof(file));
			}
			if (ev.type == FREC_EV_TASK_RENAME)
				ev.rename.newcomm = neutral_comm(ev.rename.newcomm);
			/* Stacks come only as ring records, with their frames:
			 * an imported recording keeps none. */
			if (ev.type == FREC_EV_STACK)
				continue;
			frec_recorder__push_event(rec, &ev);
			last = ev.ts;
			kept++;
		}
		frec_recorder__seal(rec, kept < max_events ? gi->end_ts : last + 1);
	}
	frec_reader__free(r);
	snprintf(tmpl.reason, sizeof(tmpl.reason), "SIGUSR1");
	write_seed_as(rec, name, last + 1, &tmpl);
	frec_recorder__free(rec);
	printf("gen_corpus: %s: %llu events of %s\n", name, (unsigned long long)kept, in);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--hostile")) {
		/* gen_corpus --hostile DIR/NAME RAW_MIB: a bigger one, to measure;
		 * DIR must hold known.frec */
		char *slash = strrchr(argv[2], '/');

		if (!slash)
			return 2;
		*slash = '\0';
		outdir = argv[2];
		seed_hostile(slash + 1, strtoull(argv[3], NULL, 10));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "--import")) {
		/* gen_corpus --import FRECD_SNAPSHOT DIR/NAME MAX_EVENTS */
		char *slash = strrchr(argv[3], '/');

		if (!slash) {
			fprintf(stderr, "usage: gen_corpus --import IN DIR/NAME MAX_EVENTS\n");
			return 2;
		}
		*slash = '\0';
		outdir = argv[3];
		import_real(argv[2], slash + 1, strtoull(argv[4], NULL, 10));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--cgroups")) {
		/* gen_corpus --cgroups DIR: only the cgroup seeds; DIR must
		 * hold known.frec */
		outdir = argv[2];
		seed_cgroups();
		seed_hostile_cgroups("hostile-cgroups.frec", 64);
		printf("gen_corpus: %u seeds in %s\n", written, outdir);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR | --cgroups DIR | --import IN DIR/NAME MAX_EVENTS | --hostile DIR/NAME RAW_MIB\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "gen_corpus: %s: %s\n", outdir, strerror(errno));
		return 1;
	}
	seed_known("known.frec", 0);
	seed_known("known-deflate.frec", 6);
	seed_random("random-1.frec", 0x9e3779b97f4a7c15ull, 4, 0, 3, 120);
	seed_random("random-2.frec", 0x2545f4914f6cdd1dull, 16, 0, 2, 200);
	seed_random("random-deflate.frec", 0x1234567887654321ull, 4, 6, 3, 150);
	seed_pingpong("pingpong.frec", 0);
	seed_pingpong("pingpong-deflate.frec", 1);
	seed_known("known-zstd.frec", SEED_ZSTD);
	seed_random("random-zstd.frec", 0x0123456789abcdefull, 4, SEED_ZSTD, 3, 150);
	seed_pingpong("pingpong-zstd.frec", SEED_ZSTD);
	seed_probes();
	seed_strings();
	seed_cpus();
	seed_wide();
	seed_lifecycle();
	seed_empty();
	seed_v2();
	seed_damaged();
	seed_hostile("hostile-counts.frec", 16);
	seed_stacks();
	seed_hostile_stacks("hostile-stacks.frec", 4);
	seed_cgroups();
	seed_hostile_cgroups("hostile-cgroups.frec", 64);
	printf("gen_corpus: %u seeds in %s\n", written, outdir);
	return 0;
}
