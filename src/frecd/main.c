// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frecd: the flight recorder daemon. Parses options, checks what it needs,
 * loads and attaches the BPF programs and probes, then runs the event loop
 * (daemon.c) until SIGTERM. Usage errors exit 2, runtime failures 1.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <frec/recorder.h>
#include "frecd/cgroup_state.h"
#include "frecd/check.h"
#include "frecd/config.h"
#include "frecd/daemon.h"
#include "frecd/hostview.h"
#include "frecd/loader.h"
#include "frecd/log.h"
#include "frecd/options.h"
#include "frecd/outdir.h"
#include "frecd/pids.h"
#include "frecd/probes.h"
#include "frecd/proc.h"
#include "frecd/service.h"
#include "frecd/symbolizer.h"
#include "frecd/trigger_setup.h"

#define EXIT_USAGE	2

static struct frecd_options opts;
static struct frecd_config *cfg;	/* owns the strings of opts from the file */
static struct frecd_trigger_set *triggers;	/* --trigger, as running */
static struct frecd_hostview hv;	/* frecd seen from the host */

/*
 * A SIGTERM or SIGINT that arrived during start-up (blocked, so still
 * pending): log it and stop before the next step, cleanly, exit 0. Checked
 * between the slow steps; one that comes later is the loop's to handle.
 */
static bool stop_requested(const char *when)
{
	sigset_t pending;
	int sig;

	if (sigpending(&pending))
		return false;
	sig = sigismember(&pending, SIGTERM) ? SIGTERM : sigismember(&pending, SIGINT) ? SIGINT : 0;
	if (!sig)
		return false;
	log_info("%s during start-up: stopping %s", strsignal(sig), when);
	return true;
}

static void fill_config(struct frec_config_summary *c, const __u32 *tgids, size_t ntgids,
			bool raw_tp)
{
	memset(c, 0, sizeof(*c));
	c->min_age_ns = opts.window_ns;
	c->max_bytes = opts.max_bytes;
	c->period_ns = opts.period_ns;
	c->ring_bytes = opts.ring_bytes;
	frecd_pids__summarize(c, tgids, ntgids);
	frecd_cgroup_state__summary(c);
	c->flags |= (raw_tp ? FREC_CFG_RAW_TP : 0) | (opts.wakeup ? FREC_CFG_WAKEUP : 0) |
		   frecd_stacks__config_flags(opts.stacks);
}

/*
 * Who frecd is on the host (hostview.h), and one warning per limit that its
 * own namespaces set. Where BPF cannot be loaded at all the guesses of the
 * host stand: the preflight then says why.
 */
static void probe_hostview(void)
{
	char err[512], line[256];

	if (frecd_hostview__probe(&hv, err, sizeof(err))) {
		log_debug("self-probe: %s", err);
		memset(&hv, 0, sizeof(hv));
		hv.host_tgid = hv.host_tid = getpid();
		hv.pidns_host = hv.proc_host = hv.cgroupns_host = true;
		hv.v1_ssid = -1;
		return;
	}
	log_debug("self-probe: host pid %u (tid %u), cgroup id %llu at level %u (offset %d)",
		  hv.host_tgid, hv.host_tid, (unsigned long long)hv.cgroup_id, hv.cgroup_level,
		  hv.cgroup_level_offset);
	if (hv.pidns_host && hv.proc_host && hv.cgroupns_host)
		return;
	if (!frecd_hostview__describe(&hv, line, sizeof(line)))
		log_info("namespaces: %s", line);
	if (!hv.proc_host)
		log_warn("frecd runs in its own pid namespace (host pid %u): /proc shows that namespace only: threads are named from events, command lines are not recorded",
			 hv.host_tgid);
	else if (!hv.pidns_host)
		log_warn("frecd runs in its own pid namespace (host pid %u): -p and trigger pid= take host process ids",
			 hv.host_tgid);
	if (!hv.cgroupns_host)
		log_warn("frecd runs in its own cgroup namespace: cgroups outside its view are recorded by id only");
}

/* Names only, from /proc, when it shows the host's threads. */
static void seed_names(struct frec_recorder *rec)
{
	int ret;

	if (!hv.proc_host) {
		log_debug("not naming threads from /proc: it is another pid namespace's");
		return;
	}
	ret = frecd_proc__seed_names(rec);
	if (ret < 0)
		log_warn("cannot read /proc (%s): threads that predate frecd stay unnamed",
			 strerror(-ret));
	else
		log_debug("named %d threads from /proc", ret);
}

/* Probes attach per -p process where frecd's pids are the host's, which
 * perf_event_open takes; otherwise for every process, filtered in BPF. */
static bool probes_pids_in_bpf(size_t ntgids)
{
	return ntgids && !hv.pidns_host && !opts.debug_probes_only;
}

/* "N" or "N (host M)": frecd's pid as its own namespace and the host see it. */
static const char *pid_text(char *buf, size_t len)
{
	if (hv.host_tgid == (__u32)getpid())
		snprintf(buf, len, "%d", (int)getpid());
	else
		snprintf(buf, len, "%d (host %u)", (int)getpid(), hv.host_tgid);
	return buf;
}

int main(int argc, char **argv)
{
	static __u32 tgids[FRECD_MAX_PIDS];
	struct frec_recorder_opts ropts = { .sz = sizeof(ropts) };
	struct frecd_daemon_opts dopts = { .sz = sizeof(dopts) };
	struct frecd_bpf_opts bopts = { .sz = sizeof(bopts) };
	const struct frec_probe_info *table;
	struct frec_recorder *rec = NULL;
	struct frec_probes *probes = NULL;
	struct frecd_bpf *bpf = NULL;
	struct frecd_outdir *outdir = NULL;
	struct frecd_service *svc = NULL;
	struct frecd_symbolizer *sym = NULL;
	char err[512], sz1[32], sz2[32], sz3[32], where[512], pidbuf[48];
	__u64 ring_each = 0;
	size_t ntgids = 0, i, n;
	int ret, status = 1;
	sigset_t sigs;

	/* The very first thing: from here on SIGTERM, SIGUSR1, ... wait for the
	 * loop's signalfd instead of taking their default action (death), also
	 * while the BPF programs load, which takes a while. A SIGTERM that
	 * arrives during start-up stops frecd cleanly (stop_requested()), a
	 * SIGUSR1 is honoured once ready. Before any thread exists (the writer;
	 * libbpf starts none): every thread inherits the mask. */
	frecd_daemon__signals(&sigs);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Defaults, the configuration file, then the command line on top. */
	if (frecd_config__load_options(&opts, &cfg, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "frecd: %s\n", err);
		return EXIT_USAGE;
	}
	if (opts.help) {
		frecd_options__usage(stdout);
		return 0;
	}
	if (opts.version) {
		printf("frecd %s (libbpf %s)\n", FREC_VERSION, libbpf_version_string());
		return 0;
	}
	frecd_log__set_level(opts.verbose ? FRECD_LOG_DEBUG : FRECD_LOG_INFO);
	frecd_log__hook_libbpf();
	if (opts.check) {
		status = frecd_check__run(&opts, stdout);
		goto out;
	}

	/* Usage errors first, all of them before anything is loaded (but the
	 * self-probe: whether -p's pids can be checked depends on it). */
	probe_hostview();
	if (frecd_pids__resolve_host(&hv, opts.pids, opts.npids, cfg, "-p", tgids, &ntgids, err,
				     sizeof(err))) {
		fprintf(stderr, "frecd: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	probes = frec_probes__new();
	if (!probes) {
		log_error("cannot set up probes: %s", strerror(errno));
		goto out;
	}
	/* Library names as the -p processes map them, where /proc shows them. */
	if (hv.proc_host)
		frec_probes__set_pids(probes, tgids, ntgids);
	for (i = 0; i < opts.nprobes; i++)
		if (frec_probes__add_spec(probes, opts.probes[i], err, sizeof(err))) {
			fprintf(stderr, "frecd: %s%s\n",
				frecd_config__where(cfg, opts.probes[i], where, sizeof(where)), err);
			status = EXIT_USAGE;
			goto out;
		}
	if (frecd_cgroup_state__start(&opts, &hv, err, sizeof(err))) {
		fprintf(stderr, "frecd: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	/* The triggers' probes join the set (unless --probe has them), then
	 * the programs' table names them by their ids. */
	triggers = calloc(1, sizeof(*triggers));
	if (!triggers) {
		log_error("cannot set up triggers: %s", strerror(errno));
		goto out;
	}
	if (frecd_trigger_set__parse(triggers, opts.triggers, opts.ntriggers, err, sizeof(err)) ||
	    frecd_trigger_set__add_probes(triggers, opts.probes, opts.nprobes, probes, err,
					  sizeof(err)) ||
	    frecd_trigger_set__build(triggers, probes, err, sizeof(err))) {
		fprintf(stderr, "frecd: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (opts.on_snapshot && access(opts.on_snapshot, X_OK)) {
		fprintf(stderr, "frecd: %s--on-snapshot %s: %s; give an executable file\n",
			frecd_config__where(cfg, opts.on_snapshot, where, sizeof(where)),
			opts.on_snapshot, strerror(errno));
		status = EXIT_USAGE;
		goto out;
	}
	if (opts.btf_path && access(opts.btf_path, R_OK)) {
		fprintf(stderr, "frecd: --btf %s: %s; give the BTF of the running kernel (e.g. from btfhub)\n",
			opts.btf_path, strerror(errno));
		status = EXIT_USAGE;
		goto out;
	}

	bopts.ring_bytes = opts.ring_bytes;
	bopts.ring_min_bytes = opts.ring_min_bytes;
	bopts.self_tgid = hv.host_tgid;
	bopts.pids = tgids;
	bopts.npids = ntgids;
	if (opts.debug_probes_only) {
		/* No process has this tgid (PID_MAX_LIMIT is 2^22): the filter
		 * leaves out every scheduler event. The probes keep -p. */
		static const __u32 no_tgid = 0xffffffffu;

		bopts.pids = &no_tgid;
		bopts.npids = 1;
		log_warn("--debug-probes-only: the scheduler programs record nothing (a test option)");
	}
	bopts.wakeup = opts.wakeup;
	bopts.attach = opts.attach;
	bopts.btf_path = opts.btf_path;
	bopts.triggers = triggers->bpf;
	bopts.ntriggers = triggers->n;
	bopts.stack_offcpu = opts.stacks & FRECD_STACKS_OFFCPU;
	bopts.stack_depth = opts.stack_depth;
	frecd_cgroup_state__bpf_opts(&bopts);
	if (frecd_bpf__preflight(&bopts, err, sizeof(err))) {
		fprintf(stderr, "frecd: %s\n", err);
		goto out;
	}
	if (!opts.dry_run) {
		outdir = frecd_outdir__new(opts.output_dir, err, sizeof(err));
		if (!outdir) {
			fprintf(stderr, "frecd: %s\n", err);
			status = EXIT_USAGE;
			goto out;
		}
	}

	ropts.min_age_ns = opts.window_ns;
	ropts.max_bytes = opts.max_bytes;
	ropts.period_ns = opts.period_ns;
	ropts.max_threads = opts.max_threads;
	ropts.max_processes = opts.max_processes;
	ret = libbpf_num_possible_cpus();
	ropts.ncpus = ret > 0 ? ret : 1;
	rec = frec_recorder__new(&ropts);
	if (!rec) {
		log_error("cannot create the recorder (--max-size %s): %s",
			  frecd_format_size(opts.max_bytes, sz1, sizeof(sz1)), strerror(errno));
		goto out;
	}
	/* Always there, idle until --stacks (now or after a reload) starts
	 * it: kallsyms is read then, before the programs capture. */
	sym = frecd_symbolizer__new(NULL);
	if (!sym) {
		log_error("cannot create the stack symbolizer: %s", strerror(errno));
		goto out;
	}
	if (opts.stacks && (ret = frecd_symbolizer__start(sym))) {
		log_error("cannot start the stack symbolizer's thread: %s", strerror(-ret));
		goto out;
	}
	frec_recorder__set_symbolizer(rec, frecd_symbolizer__iface(sym));

	if (stop_requested("before loading the BPF programs")) {
		status = 0;
		goto out;
	}
	/* Names only, and before attaching, while there is nothing to drain:
	 * a thread's comm never blocks, unlike a command line. Once the
	 * programs are attached, the loop drains from its first moment, and
	 * its /proc reader (procinfo.h) names what was born in between and
	 * reads the command lines. */
	seed_names(rec);
	frecd_cgroup_state__log();
	frecd_cgroup_state__start_namer(rec);
	bpf = frecd_bpf__start(&bopts, err, sizeof(err));
	if (!bpf) {
		log_error("%s", err);
		goto out;
	}
	dopts.ring_fds = frecd_bpf__rings(bpf, &dopts.nrings, &ring_each);
	dopts.ring_bytes_each = ring_each;
	if (stop_requested("and detaching the scheduler programs")) {
		status = 0;
		goto out;
	}
	if (frec_probes__count(probes)) {
		struct frec_probes_attach_opts popts = {
			.sz = sizeof(popts),
			.rings_fd = frecd_bpf__rings_fd(bpf),
			.ring_bytes = ring_each,
			.counters_fd = frecd_bpf__counters_fd(bpf),
			.pids = tgids,
			.npids = ntgids,
			.self_pid = hv.host_tgid,
			.nargs = opts.probe_args,
			.verbose = opts.verbose,
			.triggers = triggers->bpf,
			.ntriggers = triggers->n,
			.triggers_fd = triggers->n ? frecd_bpf__triggers_fd(bpf) : -1,
			.trigger_state_fd = triggers->n ? frecd_bpf__trigger_state_fd(bpf) : -1,
			.stack_probes = opts.stacks & FRECD_STACKS_PROBES,
			.stack_depth = opts.stack_depth,
			.attach_delay_ms = opts.debug_attach_delay_ms,
			.pid_filter_fd = bpf ? frecd_bpf__pid_filter_fd(bpf) : -1,
			.pids_in_bpf = probes_pids_in_bpf(ntgids),
		};

		frecd_cgroup_state__probe_opts(&popts, bpf);
		if (frec_probes__attach(probes, &popts, err, sizeof(err))) {
			log_error("%s", err);
			goto out;
		}
		table = frec_probes__table(probes, &n);
		ret = frec_recorder__set_probes(rec, table, n);
		if (ret) {
			log_error("cannot register the probes: %s", strerror(-ret));
			goto out;
		}
	}

	if (triggers->n) {
		ret = frec_recorder__set_triggers(rec, triggers->info, triggers->n);
		if (ret) {
			log_error("cannot register the triggers: %s", strerror(-ret));
			goto out;
		}
	}

	if (opts.dry_run) {
		printf("frecd: dry run: %zu scheduler programs attached (%s)",
		       frecd_bpf__nattached(bpf), frecd_bpf__raw_tp(bpf) ? "raw_tp" : "tp_btf");
		printf(", %zu probes, %zu triggers\n", frec_probes__count(probes), triggers->n);
		frecd_bpf__print(bpf, stdout);
		frec_probes__print(probes, stdout);
		status = 0;
		goto out;
	}

	if (stop_requested("and detaching every program")) {
		status = 0;
		goto out;
	}
	frec_probes__log(probes);

	dopts.rec = rec;
	dopts.counters_fd = frecd_bpf__counters_fd(bpf);
	dopts.output_dir = opts.output_dir;
	dopts.outdir = outdir;
	dopts.running = &opts;
	dopts.bpf = bpf;
	dopts.triggers = triggers;
	dopts.symbolizer = sym;
	dopts.ring_bytes = opts.ring_bytes;
	dopts.debug_stall_ns = opts.debug_stall_ms * 1000000ull;
	dopts.debug_writer_delay_ns = opts.debug_writer_delay_ms * 1000000ull;
	dopts.hv = &hv;
	fill_config(&dopts.config, tgids, ntgids, frecd_bpf__raw_tp(bpf));
	{
		struct frecd_service_opts sopts = {
			.sz = sizeof(sopts),
			.argc = argc,
			.argv = argv,
			.opts = &opts,
			.cfg = &cfg,
			.probes = &probes,
			.triggers = &triggers,
			.bpf = bpf,
			.tgids = tgids,
			.ntgids = ntgids,
			.rec = rec,
			.dopts = &dopts,
		};

		/* The control socket exists before "ready": a client that
		 * waits for that line can connect. */
		svc = frecd_service__new(&sopts, err, sizeof(err));
		if (!svc) {
			log_error("%s", err);
			goto out;
		}
		dopts.svc = svc;
	}
	for (i = 0; i < triggers->n; i++)
		log_info("armed trigger %zu: %s%s%s%s", i + 1, triggers->specs[i].name,
			 strcmp(triggers->specs[i].name, triggers->specs[i].spec) ? " (" : "",
			 strcmp(triggers->specs[i].name, triggers->specs[i].spec) ?
			 triggers->specs[i].spec : "",
			 strcmp(triggers->specs[i].name, triggers->specs[i].spec) ? ")" : "");
	log_info("ready: pid %s, %zu programs (%s), %zu probes, window %.9g s / %s, period %llu ms, ring %s (%zu x %s), %s; SIGUSR1 writes a snapshot to %s",
		 pid_text(pidbuf, sizeof(pidbuf)), frecd_bpf__nattached(bpf), frecd_bpf__raw_tp(bpf) ? "raw_tp" : "tp_btf",
		 frec_probes__count(probes), opts.window_ns / 1e9,
		 frecd_format_size(opts.max_bytes, sz1, sizeof(sz1)),
		 (unsigned long long)(opts.period_ns / 1000000),
		 frecd_format_size(ring_each * dopts.nrings, sz2, sizeof(sz2)), dopts.nrings,
		 frecd_format_size(ring_each, sz3, sizeof(sz3)),
		 frecd_cgroup_state__filter_words(ntgids), opts.output_dir);

	ret = frecd_daemon__run(&dopts);
	status = ret ? 1 : 0;
	if (!ret)
		log_info("stopped");
out:
	frecd_service__free(svc);
	/* Detach before anything else goes away. */
	if (probes)
		frec_probes__detach(probes);
	frecd_bpf__destroy(bpf);
	frec_probes__free(probes);
	frec_recorder__free(rec);
	/* after the recorder, which calls it */
	frecd_symbolizer__free(sym);
	if (triggers) {
		frecd_trigger_set__free(triggers);
		free(triggers);
	}
	/* A reload may have replaced the one opened here. */
	frecd_outdir__free(dopts.outdir ? dopts.outdir : outdir);
	frecd_config__free(cfg);
	frecd_cgroup_state__stop();
	return status;
}
