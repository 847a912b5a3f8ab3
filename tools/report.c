// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report: the usual questions answered without a UI. This file holds
 * the command line, the walk and the time range; the answers are the
 * analyses (analysis.h), each in a file of its own, fed from one walk:
 *  1. on-CPU time and switches per thread and per process (top N):
 *     analysis_cpu_time.c;
 *  2. run-queue latency, from sched_waking (or _wakeup, _wakeup_new) of a task
 *     to its sched_switch onto a CPU, overall and for the worst threads:
 *     analysis_runqlat.c;
 *  2b. with --by cgroup|container: the same per cgroup or container:
 *     analysis_cgroups.c (which also does --cgroup's narrowing);
 *  3. per probe: hits; per probed function: calls and entry -> return latency:
 *     analysis_calls.c;
 *  4. records lost, per CPU and per generation, gaps, and broken switch
 *     chains (cpu_chain.h): analysis_losses.c;
 *  5. triggers: each firing, and the firings suppressed per trigger:
 *     analysis_triggers.c;
 *  6. with --offcpu: off-CPU time by stack; --folded prints only that, as
 *     folded stacks: analysis_offcpu.c.
 *
 * Streams the snapshot a generation at a time in time order; what it carries
 * across generations is who is on each CPU (cpu_state.h), the threads it
 * lists (report_threads.h) and each analysis's own state. --pid/--tid narrow
 * to threads, --since/--until to a time range (intervals are clipped to it).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "cpu_chain.h"
#include "cpu_state.h"
#include "json.h"
#include "out.h"
#include "report_threads.h"
#include "tools.h"
#include "walk.h"

/* The analyses, in the order of their sections in the output. */
static const struct frec_analysis_ops *const analyses[] = {
	&frec_analysis_cpu_time,
	&frec_analysis_runqlat,
	&frec_analysis_cgroups,
	&frec_analysis_calls,
	&frec_analysis_losses,
	&frec_analysis_triggers,
	&frec_analysis_offcpu,
};
#define OFFCPU_ANALYSIS	6	/* its index, for --folded */
#define NANALYSES (sizeof(analyses) / sizeof(analyses[0]))

struct report {
	struct frec_report_ctx ctx;
	__u64 t0;		/* first covered ts */
	bool have_t0;
	__u64 gens;
	__u64 events, in_range;
	struct frec_chain *chain;
	void *state[NANALYSES];
};

void frec_report__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec report [OPTIONS] FILE\n"
		"\n"
		"Answer the usual questions about a snapshot without a UI:\n"
		"  - on-CPU time and switches per thread and per process (top N);\n"
		"  - run-queue latency (sched_waking or sched_wakeup_new until the task is\n"
		"    switched in on any CPU): log2 histogram, p50, p99, max, overall and for\n"
		"    the worst threads;\n"
		"  - hits per probe; calls per probed function with entry -> return latency\n"
		"    on the same thread (uprobe paired with the uretprobe of the same\n"
		"    function): log2 histogram, p50, p99, max;\n"
		"  - records lost, per CPU and per generation (\"cpu unknown\" for records\n"
		"    that named no CPU in range);\n"
		"  - broken switch chains: a sched_switch naming another prev than the\n"
		"    thread switched in before on that CPU (the kernel reported no switch\n"
		"    out of it). That thread's run ends at its last event seen on the CPU;\n"
		"    the time from there to the switch counts for no thread;\n"
		"  - triggers: each firing (time, trigger, thread, what was measured) and,\n"
		"    per trigger, the firings suppressed (during its delay or cooldown, or\n"
		"    past its rate limit): how many, the first, the worst and its thread;\n"
		"  - with --offcpu: off-CPU time by stack (the snapshot must have been taken\n"
		"    with frecd --stacks offcpu): from a thread's blocking switch-out (S or D)\n"
		"    until its next switch-in, per thread and stack: blocks, total, max.\n"
		"Times are in ms (on-CPU) and us (latencies) with ns precision; percentiles\n"
		"are the nearest-rank sample, rounded down by at most 0.8%%. Where records\n"
		"were lost (or a generation is damaged) nothing is guessed: a CPU's time\n"
		"counts again from its next switch, and waits that began before are dropped.\n"
		"\n"
		"  -j, --json       one JSON object instead of text (times in ns)\n"
		"  -p, --pid PID    only threads of process PID\n"
		"  -t, --tid TID    only thread TID\n"
		"  -s, --since S    start at S seconds: the boot-time clock as `frec dump`\n"
		"                   prints it, or +S for S seconds after the first event\n"
		"  -u, --until S    stop at S seconds (same forms as --since)\n"
		"  -n, --top N      rows in the per-thread and per-process tables (10; 0: all)\n"
		"      --offcpu     add off-CPU time by stack (JSON: \"offcpu\")\n"
		"      --folded     print only the off-CPU stacks, folded: \"comm;outer;...;inner\n"
		"                   total_us\" lines for flamegraph.pl or speedscope\n"
		"      --debug-dir DIR\n"
		"                   name user frames the snapshot could not from DIR's\n"
		"                   .build-id/xx/yyyy.debug files (default /usr/lib/debug);\n"
		"                   a frame that cannot be named is shown as module+0xOFFSET\n"
		"      --by cgroup|container\n"
		"                   add threads, on-CPU time, switches and run-queue latency\n"
		"                   per cgroup, or per container with its runtime (the threads\n"
		"                   in no container: one row, (host)); a run and the wait\n"
		"                   before it go to the cgroup the thread was in when switched\n"
		"                   in (JSON: \"by_cgroup\" or \"by_container\": [{\"cgroup\" or\n"
		"                   \"container\",\"cgroup_id\",\"runtime\",\"threads\",\"oncpu_ns\",\n"
		"                   \"switches\",\"runq\":{\"count\",\"p50_ns\",\"p99_ns\",\"max_ns\"}}])\n"
		"      --cgroup PATH\n"
		"                   only threads in cgroup PATH or below it, as frec dump\n"
		"                   shows the paths (/system.slice/x.service)\n"
		"  -h, --help       this help\n"
		"\n"
		"EXAMPLES\n"
		"  frec report snap.frec\n"
		"  frec report --pid 1234 --since +2.5 --until +3 snap.frec\n"
		"  frec report --offcpu --tid 1235 snap.frec\n"
		"  frec report --by container --cgroup /system.slice snap.frec\n"
		"  frec report --folded snap.frec | flamegraph.pl > offcpu.svg\n");
	frec_usage__exit_status(f);
}

static int begin_gen(struct report *r, __u64 damaged_before)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(r->ctx.walk);
	const struct frec_report_opts *o = r->ctx.opts;
	size_t i;
	int rc;

	r->gens++;
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = gi->start_ts;
		/* +S forms are relative to the first generation's first event */
		if (o->has_since)
			r->ctx.lo = o->since_rel ? r->t0 + o->since_ns : o->since_ns;
		if (o->has_until)
			r->ctx.hi = o->until_rel ? r->t0 + o->until_ns : o->until_ns;
	}
	r->ctx.damaged = frec_walk__damaged(r->ctx.walk) != damaged_before;
	for (i = 0; i < NANALYSES; i++)
		if (analyses[i]->gen && (rc = analyses[i]->gen(r->state[i], &r->ctx)))
			return rc;
	/* the analyses saw the CPUs as the last generation left them */
	frec_cpu_state__gen(r->ctx.cpus, gi->start_ts, r->ctx.damaged);
	frec_report_threads__refresh(r->ctx.threads);
	return 0;
}

static int walk(struct report *r)
{
	struct frec_report_ctx *ctx = &r->ctx;
	const struct frec_gen_info *gi;
	const struct frec_event *ev;
	__u64 damaged = 0;
	size_t i;
	int rc;

	while (frec_walk__next_gen(ctx->walk) > 0) {
		if ((rc = begin_gen(r, damaged)))
			return rc;
		gi = frec_walk__gen_info(ctx->walk);
		damaged = frec_walk__damaged(ctx->walk);
		frec_chain__gen(r->chain, ctx->walk);
		while ((ev = frec_walk__next_event(ctx->walk))) {
			ctx->chain = frec_chain__event(r->chain, ev, &ctx->run);
			r->events++;
			if (frec_report__in_range(ctx, ev->ts))
				r->in_range++;
			if (ev->ts > ctx->tend)
				ctx->tend = ev->ts;
			for (i = 0; i < NANALYSES; i++)
				if ((rc = analyses[i]->feed(r->state[i], ctx, ev)))
					return rc;
			/* only now: the analyses saw the CPUs as before the event */
			frec_cpu_state__event(ctx->cpus, ctx->walk, ev, ctx->chain, &ctx->run);
			if ((rc = frec_cpu_state__error(ctx->cpus)) || (rc = frec_chain__error(r->chain)))
				return rc;
		}
		/* update the end only now: a gap found at the next generation
		 * closes the intervals at this one's end */
		if (gi->end_ts > ctx->tend)
			ctx->tend = gi->end_ts;
		ctx->last_gen_end = ctx->tend;
		/* nothing after --until can change the report */
		if (r->have_t0 && frec_walk__gen_info(ctx->walk) &&
		    frec_walk__gen_info(ctx->walk)->end_ts > ctx->hi && ctx->opts->has_until)
			break;
	}
	return 0;
}

/* The end of the data: clip the range to what was covered, let each
 * analysis finish. */
static int finish(struct report *r)
{
	struct frec_report_ctx *ctx = &r->ctx;
	size_t i;
	int rc;

	if (!r->have_t0)
		r->t0 = ctx->tend = 0;
	/* the range actually covered, for the headline and the clipping */
	if (ctx->lo < r->t0)
		ctx->lo = r->t0;
	if (ctx->hi > ctx->tend)
		ctx->hi = ctx->tend;
	if (ctx->hi < ctx->lo)
		ctx->hi = ctx->lo;
	for (i = 0; i < NANALYSES; i++)
		if ((rc = analyses[i]->finish(r->state[i], ctx)))
			return rc;
	return 0;
}

static void print_text(struct report *r, struct frec_out *o)
{
	const struct frec_report_ctx *ctx = &r->ctx;
	size_t i;

	frec_out__str(o, "snapshot ");
	frec_text__str(o, frec_walk__path(ctx->walk), 4096);
	frec_out__str(o, ": ");
	frec_out__secs(o, ctx->lo);
	frec_out__str(o, " .. ");
	frec_out__secs(o, ctx->hi);
	frec_out__str(o, " (");
	frec_out__secs(o, ctx->hi - ctx->lo);
	frec_out__printf(o, " s), %llu generations, %llu events (%llu in range)",
			 (unsigned long long)r->gens, (unsigned long long)r->events,
			 (unsigned long long)r->in_range);
	if (ctx->opts->has_pid)
		frec_out__printf(o, ", pid %u", ctx->opts->pid);
	if (ctx->opts->has_tid)
		frec_out__printf(o, ", tid %u", ctx->opts->tid);
	if (ctx->opts->cgroup) {
		frec_out__str(o, ", cgroup ");
		frec_text__str(o, ctx->opts->cgroup, 4096);
	}
	frec_out__str(o, "\n");
	for (i = 0; i < NANALYSES; i++)
		analyses[i]->text(r->state[i], ctx, o);
}

static void print_json(struct report *r, struct frec_out *o)
{
	const struct frec_report_ctx *ctx = &r->ctx;
	size_t i;

	frec_out__str(o, "{\"file\":");
	frec_json__str(o, frec_walk__path(ctx->walk), 4096);
	frec_out__printf(o, ",\"start_ns\":%llu,\"end_ns\":%llu,\"generations\":%llu,"
			 "\"events\":%llu,\"events_in_range\":%llu",
			 (unsigned long long)ctx->lo, (unsigned long long)ctx->hi,
			 (unsigned long long)r->gens, (unsigned long long)r->events,
			 (unsigned long long)r->in_range);
	for (i = 0; i < NANALYSES; i++)
		analyses[i]->json(r->state[i], ctx, o);
	frec_out__str(o, "}\n");
}

static void report_free(struct report *r)
{
	for (size_t i = 0; i < NANALYSES; i++)
		analyses[i]->free(r->state[i]);
	frec_report_threads__free(r->ctx.threads);
	frec_cpu_state__free(r->ctx.cpus);
	frec_chain__free(r->chain);
}

int frec_report__run(const char *path, const struct frec_report_opts *opts, FILE *out, FILE *err)
{
	/* stack events too: the headline counts every event of the file */
	struct frec_walk_opts wo = { .sorted = true, .stack_events = true };
	struct frec_out *o = NULL;
	struct report r;
	bool oom = false;
	size_t i;
	int status, rc;

	memset(&r, 0, sizeof(r));
	r.ctx.opts = opts;
	r.ctx.lo = 0;
	r.ctx.hi = UINT64_MAX;
	r.ctx.walk = frec_walk__open(path, &wo, err, &status);
	if (!r.ctx.walk)
		return status;
	r.ctx.cpus = frec_cpu_state__new();
	r.ctx.threads = frec_report_threads__new(r.ctx.walk);
	r.chain = frec_chain__new();
	oom = !r.ctx.cpus || !r.ctx.threads || !r.chain;
	for (i = 0; i < NANALYSES; i++)
		oom |= !(r.state[i] = analyses[i]->new());
	rc = oom ? -ENOMEM : walk(&r);
	if (!rc)
		rc = finish(&r);
	if (rc) {
		fprintf(err, "frec: %s: %s\n", path, strerror(-rc));
		frec_walk__fail(r.ctx.walk);
		goto out;
	}

	o = frec_out__new(out, false);
	if (!o) {
		fprintf(err, "frec: %s\n", strerror(errno));
		frec_walk__fail(r.ctx.walk);
		goto out;
	}
	if (opts->folded)
		rc = frec_analysis_offcpu__folded(r.state[OFFCPU_ANALYSIS], &r.ctx, o);
	else if (opts->json)
		print_json(&r, o);
	else
		print_text(&r, o);
	if (rc) {
		fprintf(err, "frec: %s: %s\n", path, strerror(-rc));
		frec_walk__fail(r.ctx.walk);
	}
	rc = frec_out__close(o, NULL);
	if (rc) {
		fprintf(err, "frec: writing the output: %s\n", strerror(-rc));
		frec_walk__fail(r.ctx.walk);
	}
out:
	status = frec_walk__close(r.ctx.walk);
	report_free(&r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_OFFCPU = 0x100, OPT_FOLDED, OPT_DEBUG_DIR, OPT_BY, OPT_CGROUP };
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, OPT_BY },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "offcpu", no_argument, NULL, OPT_OFFCPU },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "since", required_argument, NULL, 's' },
		{ "until", required_argument, NULL, 'u' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct frec_report_opts o = { .top = 10 };
	static char cgroup[4096];
	const char *arg;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jp:t:s:u:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 'p':
			if (frec_opt__parse_u32(optarg, &o.pid))
				goto bad;
			o.has_pid = true;
			break;
		case 't':
			if (frec_opt__parse_u32(optarg, &o.tid))
				goto bad;
			o.has_tid = true;
			break;
		case 's':
		case 'u':
			arg = optarg[0] == '+' ? optarg + 1 : optarg;
			if (frec_opt__parse_secs(arg, c == 's' ? &o.since_ns : &o.until_ns))
				goto bad;
			if (c == 's') {
				o.has_since = true;
				o.since_rel = optarg[0] == '+';
			} else {
				o.has_until = true;
				o.until_rel = optarg[0] == '+';
			}
			break;
		case 'n':
			if (frec_opt__parse_u32(optarg, &o.top))
				goto bad;
			break;
		case OPT_OFFCPU:
			o.offcpu = true;
			break;
		case OPT_FOLDED:
			o.folded = true;
			break;
		case OPT_BY:
			if (!strcmp(optarg, "cgroup")) {
				o.by = FREC_REPORT_BY_CGROUP;
			} else if (!strcmp(optarg, "container")) {
				o.by = FREC_REPORT_BY_CONTAINER;
			} else {
				fprintf(stderr, "frec report: --by '%s': want cgroup or container\n",
					optarg);
				return FREC_EXIT_USAGE;
			}
			break;
		case OPT_CGROUP:
			if (frec_opt__cgroup_path("report", optarg, cgroup, sizeof(cgroup)))
				return FREC_EXIT_USAGE;
			o.cgroup = cgroup;
			break;
		case OPT_DEBUG_DIR:
			if (frec_opt__debug_dir("report", optarg))
				return FREC_EXIT_USAGE;
			o.debug_dir = optarg;
			break;
		case 'h':
			frec_report__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec report --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (o.folded && o.json) {
		fprintf(stderr, "frec report: --folded and --json are two outputs; pick one\n");
		return FREC_EXIT_USAGE;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "frec report: expected one FILE, got %d; try 'frec report --help'\n",
			argc - optind);
		return FREC_EXIT_USAGE;
	}
	return frec_report__run(argv[optind], &o, stdout, stderr);
bad:
	fprintf(stderr, "frec report: bad value '%s' for -%c: %s; try 'frec report --help'\n",
		optarg, c, c == 's' || c == 'u' ? "want seconds like 12.5 or +0.25" :
		"want a non-negative integer");
	return FREC_EXIT_USAGE;
}
