// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <frec/event.h>
#include "frecd/daemon.h"
#include "frecd/options.h"
#include "frecd/status.h"

#define LABEL	"%-13s "

static const char *probe_kind(__u32 kind)
{
	switch (kind) {
	case FREC_PROBE_UPROBE: return "uprobe";
	case FREC_PROBE_URETPROBE: return "uretprobe";
	case FREC_PROBE_USDT: return "usdt";
	}
	return "unknown";
}

static double window_span_s(const struct frecd_status *st)
{
	if (!st->rec.window_start_ts || st->rec.window_end_ts < st->rec.window_start_ts)
		return 0;
	return (st->rec.window_end_ts - st->rec.window_start_ts) / 1e9;
}

__u64 frecd_status__window_needed(const struct frecd_status *st)
{
	const struct frec_recorder_stats *r = &st->rec;
	double span = window_span_s(st), need;
	__u64 mib = 1ull << 20;

	if (!r->window_cut || span <= 0 || st->max_bytes < r->window_mem_max)
		return 0;
	need = (double)r->window_mem_max * (st->min_age_ns / 1e9) / span +
	       (double)(st->max_bytes - r->window_mem_max);
	if (need < (double)st->max_bytes)
		need = (double)st->max_bytes;
	return ((__u64)need + mib - 1) / mib * mib;
}

/* Events the recorder's memory holds now: the window's and the open
 * generation's (a snapshot in progress may hold chunks of a few more). */
static __u64 events_held(const struct frecd_status *st)
{
	return st->rec.window_events + st->rec.open_events;
}

/* A probe name is the user's text: keep the line one line. */
static void text_str(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static const char *own(bool o)
{
	return o ? "own" : "host";
}

/* Only where frecd runs in a namespace of its own. */
static void text_namespaces(const struct frecd_status *st, FILE *out)
{
	if (!st->pidns_own && !st->proc_own && !st->cgroupns_own)
		return;
	fprintf(out, LABEL "pid %s (host pid %u), /proc %s, cgroup %s\n", "namespaces",
		own(st->pidns_own), st->host_pid, own(st->proc_own), own(st->cgroupns_own));
}

/* The task and process tables: what they hold of their bound, what they
 * dropped, and the thread mentions a full table could not take (--max-threads
 * would have them). */
static void text_tasks(const struct frec_recorder_stats *r, FILE *out)
{
	fprintf(out, LABEL "%u threads of %u, %u processes of %u, %llu bytes; evicted %llu threads, "
		"%llu processes unseen for a window; %llu thread mentions found the table full",
		"tasks", r->threads, r->max_threads, r->processes, r->max_processes,
		(unsigned long long)r->tasks_bytes, (unsigned long long)r->threads_evicted,
		(unsigned long long)r->processes_evicted, (unsigned long long)r->threads_untracked);
	if (r->threads_untracked)
		fputs(": raise --max-threads", out);
	fputc('\n', out);
}

int frecd_status__text(const struct frecd_status *st, FILE *out)
{
	const struct frec_recorder_stats *r = &st->rec;
	bool rates = st->rate_ns != 0;
	unsigned int t, cpu, shown = 0;
	size_t i;

	fprintf(out, LABEL "pid %u, up %.1f s\n", "frecd", st->pid, st->uptime_ns / 1e9);
	text_namespaces(st, out);
	if (st->npids)
		fprintf(out, LABEL "%u process%s (-p), %s programs\n", "recording", st->npids,
			st->npids == 1 ? "" : "es", st->raw_tp ? "raw_tp" : "tp_btf");
	else
		fprintf(out, LABEL "all processes, %s programs\n", "recording",
			st->raw_tp ? "raw_tp" : "tp_btf");
	fprintf(out, LABEL "%llu", "events", (unsigned long long)r->events);
	if (rates)
		fprintf(out, ", %.0f/s over the last %.1f s", st->events_per_s, st->rate_ns / 1e9);
	fputc('\n', out);
	for (t = 1; t < FREC_EV__MAX; t++) {
		const char *name = frec_type__name(t);

		if (!r->events_by_type[t] || !name)
			continue;
		fprintf(out, "  %-18s %llu", name, (unsigned long long)r->events_by_type[t]);
		if (rates)
			fprintf(out, ", %.0f/s", st->events_per_s_by_type[t]);
		fputc('\n', out);
	}
	fprintf(out, LABEL "%llu", "lost", (unsigned long long)st->lost);
	if (rates)
		fprintf(out, ", %.0f/s", st->lost_per_s);
	for (cpu = 0; cpu < st->ncpus && st->lost_by_cpu; cpu++) {
		if (!st->lost_by_cpu[cpu])
			continue;
		fprintf(out, "%scpu%u %llu", shown++ ? ", " : " (", cpu,
			(unsigned long long)st->lost_by_cpu[cpu]);
	}
	fprintf(out, "%s\n", shown ? ")" : "");
	fprintf(out, LABEL "%llu events left out by -p\n", "filtered",
		(unsigned long long)st->filtered);
	if (st->recursion_counted > 0)
		fprintf(out, LABEL "%llu runs the kernel skipped (a program fired on a CPU where it "
			"was running), in the snapshot as lost\n", "recursion",
			(unsigned long long)st->recursion_misses);
	else if (!st->recursion_counted)
		fprintf(out, LABEL "not counted: this kernel's bpf_prog_info has no recursion_misses "
			"(Linux 5.12)\n", "recursion");
	else
		fprintf(out, LABEL "not known yet (no program attached)\n", "recursion");
	fprintf(out, LABEL "%s: %llu captured, %llu distinct, %llu unstored, %llu orphaned, %llu capture errors, "
		"%llu unannounced programs\n",
		"stacks", frecd_format_stacks(st->stacks), (unsigned long long)r->stacks,
		(unsigned long long)r->stacks_distinct, (unsigned long long)r->stacks_unstored,
		(unsigned long long)r->stacks_orphaned, (unsigned long long)st->stack_capture_errors,
		(unsigned long long)st->stack_programs_unannounced);
	fprintf(out, LABEL "every %u ms; longest wait %.1f ms, %llu waits over %u ms\n", "drain",
		st->drain_period_ms, st->drain_gap_max_ns / 1e6,
		(unsigned long long)st->drain_slow_gaps, FRECD_SLOW_GAP_MS);
	fprintf(out, LABEL "%.3f s, %llu bytes in %u generations (at least %.9g s, at most %llu bytes)\n",
		"window", window_span_s(st), (unsigned long long)r->window_bytes,
		r->window_generations, st->min_age_ns / 1e9, (unsigned long long)st->max_bytes);
	if (r->window_cut)
		fprintf(out, LABEL "%.3f s, not %.9g s: --max-size cuts it; about %llu bytes would hold it\n",
			"window cut", window_span_s(st), st->min_age_ns / 1e9,
			(unsigned long long)frecd_status__window_needed(st));
	fprintf(out, LABEL "%llu events, %llu bytes (the generation being recorded)\n", "open",
		(unsigned long long)r->open_events, (unsigned long long)r->open_bytes);
	fprintf(out, LABEL "%u of %u chunks in use, %llu bytes, %llu misses\n", "pool",
		r->chunks_in_use, r->chunks_total, (unsigned long long)r->pool_bytes,
		(unsigned long long)r->pool_misses);
	fprintf(out, LABEL "%llu bytes held for %llu events", "memory",
		(unsigned long long)r->mem_bytes, (unsigned long long)events_held(st));
	if (events_held(st))
		fprintf(out, ", %.2f bytes/event", (double)r->mem_bytes / events_held(st));
	fprintf(out, " (at most %llu bytes, the window %llu of them), %llu events found no room\n",
		(unsigned long long)r->pool_bytes, (unsigned long long)r->window_mem_max,
		(unsigned long long)r->events_discarded);
	fprintf(out, LABEL "%llu bytes allocated for threads, processes and names (mapped as they fill)\n",
		"tables", (unsigned long long)r->tables_bytes);
	text_tasks(r, out);
	if (st->rings.cpus) {
		fprintf(out, LABEL "%llu bytes: %u CPUs online of %u possible, %llu bytes each (--ring-size %llu",
			"rings", (unsigned long long)st->rings.total, st->rings.cpus,
			st->rings.possible, (unsigned long long)st->rings.each,
			(unsigned long long)st->rings.asked);
		if (st->rings.total > st->rings.asked)
			fprintf(out, ", raised for --ring-min %llu", (unsigned long long)st->rings.floor);
		fputc(')', out);
		if (st->rings.late_cpus)
			fprintf(out, "; %u CPUs came online later and are not recorded (restart frecd)",
				st->rings.late_cpus);
		fputc('\n', out);
	}
	fprintf(out, LABEL "%llu sealed, %llu evicted, %llu evicted early; %llu events came after "
		"theirs was sealed (in the snapshot as lost), %llu gaps marked\n", "generations",
		(unsigned long long)r->generations_sealed, (unsigned long long)r->generations_evicted,
		(unsigned long long)r->early_evictions, (unsigned long long)r->late,
		(unsigned long long)r->gaps);
	fprintf(out, LABEL "%llu written, %llu failed, %s\n", "snapshots",
		(unsigned long long)st->snapshots, (unsigned long long)st->snapshot_failures,
		st->snapshot_in_progress ? "one in progress" : "none in progress");
	if (st->last_snapshot) {
		fprintf(out, LABEL, "last");
		text_str(out, st->last_snapshot);
		fputc('\n', out);
	}
	fprintf(out, LABEL, "directory");
	text_str(out, st->output_dir ? st->output_dir : "");
	fputc('\n', out);
	fprintf(out, LABEL "%s\n", "compress", frecd_format_compress(st->compress));
	fprintf(out, LABEL "keep ", "retention");
	if (st->keep)
		fprintf(out, "%u snapshots", st->keep);
	else
		fprintf(out, "any number of snapshots");
	if (st->keep_bytes)
		fprintf(out, ", %llu bytes at most\n", (unsigned long long)st->keep_bytes);
	else
		fprintf(out, ", of any size\n");
	fprintf(out, LABEL "%zu\n", "probes", st->nprobes);
	for (i = 0; i < st->nprobes; i++) {
		const struct frecd_status_probe *p = &st->probes[i];
		char label[32];

		snprintf(label, sizeof(label), "  probe %u", p->id);
		fprintf(out, LABEL, label);
		text_str(out, p->name ? p->name : "");
		fprintf(out, " (%s), %llu hits\n", probe_kind(p->kind), (unsigned long long)p->hits);
	}
	fprintf(out, LABEL "%zu\n", "triggers", st->ntriggers);
	for (i = 0; i < st->ntriggers; i++) {
		const struct frecd_trigger_stats *g = &st->triggers[i];
		char label[32];

		snprintf(label, sizeof(label), "  trigger %u", g->id);
		fprintf(out, LABEL, label);
		text_str(out, g->name ? g->name : "");
		if (g->spec && g->name && strcmp(g->spec, g->name)) {
			fputs(" (", out);
			text_str(out, g->spec);
			fputc(')', out);
		}
		fprintf(out, ": %llu fired, %llu snapshots%s; suppressed %llu by delay, %llu by cooldown, %llu by rate\n",
			(unsigned long long)g->fired, (unsigned long long)g->snapshots,
			g->pending ? " (one pending)" : "",
			(unsigned long long)g->suppressed_delay,
			(unsigned long long)g->suppressed_cooldown,
			(unsigned long long)g->suppressed_rate);
	}
	if (st->on_snapshot) {
		const struct frecd_on_snapshot_stats *os = &st->on_snapshot_stats;

		fprintf(out, LABEL, "on-snapshot");
		text_str(out, st->on_snapshot);
		fprintf(out, ": %llu runs, %llu failed, %llu skipped, %u running\n",
			(unsigned long long)os->runs, (unsigned long long)os->failures,
			(unsigned long long)os->skipped, os->running);
	}
	return ferror(out) ? -EIO : 0;
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_rate(FILE *out, bool rates, double v)
{
	if (rates)
		fprintf(out, "%.1f", v);
	else
		fputs("null", out);
}

/* "cgroups":{"hierarchy","filters":[],"known","pending","unnamed","moves"} */
static void json_cgroups(FILE *out, const struct frecd_status_cgroups *c, __u64 moves)
{
	size_t i;

	fputs("\"cgroups\":{\"hierarchy\":", out);
	json_str(out, c->hierarchy ? c->hierarchy : "");
	fputs(",\"filters\":[", out);
	for (i = 0; i < c->nfilters && i < sizeof(c->filters) / sizeof(c->filters[0]); i++) {
		if (i)
			fputc(',', out);
		json_str(out, c->filters[i]);
	}
	fprintf(out, "],\"known\":%llu,\"pending\":%llu,\"unnamed\":%llu,\"moves\":%llu}",
		(unsigned long long)c->known, (unsigned long long)c->pending,
		(unsigned long long)c->unnamed, (unsigned long long)moves);
}

int frecd_status__json(const struct frecd_status *st, FILE *out)
{
	const struct frec_recorder_stats *r = &st->rec;
	bool rates = st->rate_ns != 0, first = true;
	unsigned int t, cpu;
	size_t i;

	fprintf(out, "{\"pid\":%u,\"host_pid\":%u,", st->pid, st->host_pid);
	fprintf(out, "\"namespaces\":{\"pid\":\"%s\",\"proc\":\"%s\",\"cgroup\":\"%s\",\"host_pid\":%u},",
		own(st->pidns_own), own(st->proc_own), own(st->cgroupns_own), st->host_pid);
	fprintf(out, "\"uptime_s\":%.3f,\"programs\":\"%s\",\"pid_filter\":%u,",
		st->uptime_ns / 1e9, st->raw_tp ? "raw_tp" : "tp_btf", st->npids);
	fprintf(out, "\"rate_interval_s\":%.3f,\"events\":%llu,\"events_per_s\":", st->rate_ns / 1e9,
		(unsigned long long)r->events);
	json_rate(out, rates, st->events_per_s);
	fputs(",\"events_by_type\":{", out);
	for (t = 1; t < FREC_EV__MAX; t++) {
		const char *name = frec_type__name(t);

		if (!r->events_by_type[t] || !name)
			continue;
		fprintf(out, "%s\"%s\":{\"count\":%llu,\"per_s\":", first ? "" : ",", name,
			(unsigned long long)r->events_by_type[t]);
		json_rate(out, rates, st->events_per_s_by_type[t]);
		fputc('}', out);
		first = false;
	}
	fprintf(out, "},\"lost\":%llu,\"lost_per_s\":", (unsigned long long)st->lost);
	json_rate(out, rates, st->lost_per_s);
	fputs(",\"lost_by_cpu\":[", out);
	for (cpu = 0; cpu < st->ncpus && st->lost_by_cpu; cpu++)
		fprintf(out, "%s%llu", cpu ? "," : "", (unsigned long long)st->lost_by_cpu[cpu]);
	fprintf(out, "],\"filtered\":%llu,\"recursion_misses\":", (unsigned long long)st->filtered);
	/* null: not counted by this kernel (or not known yet) */
	if (st->recursion_counted > 0)
		fprintf(out, "%llu,", (unsigned long long)st->recursion_misses);
	else
		fputs("null,", out);
	fprintf(out, "\"stacks\":{\"enabled\":\"%s\",\"captured\":%llu,\"distinct\":%llu,\"unstored\":%llu,"
		"\"orphaned\":%llu,\"capture_errors\":%llu,\"programs_unannounced\":%llu},",
		frecd_format_stacks(st->stacks),
		(unsigned long long)r->stacks, (unsigned long long)r->stacks_distinct,
		(unsigned long long)r->stacks_unstored, (unsigned long long)r->stacks_orphaned,
		(unsigned long long)st->stack_capture_errors,
		(unsigned long long)st->stack_programs_unannounced);
	fprintf(out, "\"drain\":{\"period_ms\":%u,\"max_wait_ns\":%llu,\"slow_waits\":%llu,\"slow_ms\":%u},",
		st->drain_period_ms, (unsigned long long)st->drain_gap_max_ns,
		(unsigned long long)st->drain_slow_gaps, FRECD_SLOW_GAP_MS);
	fprintf(out, "\"window\":{\"span_s\":%.3f,\"bytes\":%llu,\"generations\":%u,\"min_age_s\":%.3f,\"max_bytes\":%llu,"
		"\"cut\":%s,\"needed_bytes\":%llu},",
		window_span_s(st), (unsigned long long)r->window_bytes, r->window_generations,
		st->min_age_ns / 1e9, (unsigned long long)st->max_bytes,
		r->window_cut ? "true" : "false",
		(unsigned long long)frecd_status__window_needed(st));
	fprintf(out, "\"rings\":{\"cpus\":%u,\"possible\":%u,\"bytes_each\":%llu,\"bytes\":%llu,"
		"\"ring_size\":%llu,\"ring_min\":%llu,\"late_cpus\":%u},",
		st->rings.cpus, st->rings.possible, (unsigned long long)st->rings.each,
		(unsigned long long)st->rings.total, (unsigned long long)st->rings.asked,
		(unsigned long long)st->rings.floor, st->rings.late_cpus);
	fprintf(out, "\"open\":{\"events\":%llu,\"bytes\":%llu},", (unsigned long long)r->open_events,
		(unsigned long long)r->open_bytes);
	fprintf(out, "\"pool\":{\"chunks_total\":%u,\"chunks_in_use\":%u,\"bytes\":%llu,\"misses\":%llu},",
		r->chunks_total, r->chunks_in_use, (unsigned long long)r->pool_bytes,
		(unsigned long long)r->pool_misses);
	fprintf(out, "\"memory\":{\"bytes\":%llu,\"events\":%llu,\"bytes_per_event\":",
		(unsigned long long)r->mem_bytes, (unsigned long long)events_held(st));
	if (events_held(st))
		fprintf(out, "%.2f", (double)r->mem_bytes / events_held(st));
	else
		fputs("null", out);
	fprintf(out, ",\"max_bytes\":%llu,\"window_max_bytes\":%llu,\"tables_bytes\":%llu,"
		"\"rings_bytes\":%llu,\"events_discarded\":%llu},",
		(unsigned long long)r->pool_bytes, (unsigned long long)r->window_mem_max,
		(unsigned long long)r->tables_bytes, (unsigned long long)st->rings.total,
		(unsigned long long)r->events_discarded);
	fprintf(out, "\"tasks\":{\"threads\":%u,\"max_threads\":%u,\"processes\":%u,\"max_processes\":%u,"
		"\"bytes\":%llu,\"threads_evicted\":%llu,\"processes_evicted\":%llu,\"threads_untracked\":%llu},",
		r->threads, r->max_threads, r->processes, r->max_processes,
		(unsigned long long)r->tasks_bytes, (unsigned long long)r->threads_evicted,
		(unsigned long long)r->processes_evicted, (unsigned long long)r->threads_untracked);
	fprintf(out, "\"generations\":{\"sealed\":%llu,\"evicted\":%llu,\"early_evictions\":%llu,"
		"\"late_events\":%llu,\"gaps\":%llu},",
		(unsigned long long)r->generations_sealed, (unsigned long long)r->generations_evicted,
		(unsigned long long)r->early_evictions, (unsigned long long)r->late,
		(unsigned long long)r->gaps);
	fprintf(out, "\"snapshots\":{\"written\":%llu,\"failed\":%llu,\"in_progress\":%s,\"last\":",
		(unsigned long long)st->snapshots, (unsigned long long)st->snapshot_failures,
		st->snapshot_in_progress ? "true" : "false");
	if (st->last_snapshot)
		json_str(out, st->last_snapshot);
	else
		fputs("null", out);
	fputs(",\"directory\":", out);
	json_str(out, st->output_dir);
	fprintf(out, ",\"compress\":\"%s\"", frecd_format_compress(st->compress));
	fprintf(out, "},\"retention\":{\"keep\":%u,\"keep_bytes\":%llu},\"probes\":[", st->keep,
		(unsigned long long)st->keep_bytes);
	for (i = 0; i < st->nprobes; i++) {
		const struct frecd_status_probe *p = &st->probes[i];

		fprintf(out, "%s{\"id\":%u,\"name\":", i ? "," : "", p->id);
		json_str(out, p->name);
		fprintf(out, ",\"kind\":\"%s\",\"hits\":%llu}", probe_kind(p->kind),
			(unsigned long long)p->hits);
	}
	fputs("],\"triggers\":[", out);
	for (i = 0; i < st->ntriggers; i++) {
		const struct frecd_trigger_stats *g = &st->triggers[i];

		fprintf(out, "%s{\"id\":%u,\"name\":", i ? "," : "", g->id);
		json_str(out, g->name);
		fputs(",\"spec\":", out);
		json_str(out, g->spec);
		fprintf(out, ",\"kind\":\"%s\",\"fired\":%llu,\"snapshots\":%llu,\"pending\":%s,"
			"\"suppressed_delay\":%llu,\"suppressed_cooldown\":%llu,\"suppressed_rate\":%llu}",
			trigger_kind__name(g->kind), (unsigned long long)g->fired,
			(unsigned long long)g->snapshots, g->pending ? "true" : "false",
			(unsigned long long)g->suppressed_delay,
			(unsigned long long)g->suppressed_cooldown,
			(unsigned long long)g->suppressed_rate);
	}
	fputs("],", out);
	json_cgroups(out, &st->cgroups, r->cgroup_moves);
	fputs(",\"on_snapshot\":", out);
	if (st->on_snapshot) {
		const struct frecd_on_snapshot_stats *os = &st->on_snapshot_stats;

		fputs("{\"program\":", out);
		json_str(out, st->on_snapshot);
		fprintf(out, ",\"runs\":%llu,\"failures\":%llu,\"skipped\":%llu,\"running\":%u}",
			(unsigned long long)os->runs, (unsigned long long)os->failures,
			(unsigned long long)os->skipped, os->running);
	} else {
		fputs("null", out);
	}
	fputs("}\n", out);
	return ferror(out) ? -EIO : 0;
}

void frecd_status__summary(const struct frecd_status *st, char *buf, size_t len)
{
	char rate[32] = "", lost_rate[32] = "";

	if (st->rate_ns) {
		snprintf(rate, sizeof(rate), "%.0f events/s", st->events_per_s);
		snprintf(lost_rate, sizeof(lost_rate), " (%.0f/s)", st->lost_per_s);
	} else {
		snprintf(rate, sizeof(rate), "%llu events", (unsigned long long)st->rec.events);
	}
	snprintf(buf, len, "recording %s, %llu lost%s, window %.1f s %.1f MiB, %llu snapshots",
		 rate, (unsigned long long)st->lost, lost_rate, window_span_s(st),
		 st->rec.window_bytes / 1048576.0, (unsigned long long)st->snapshots);
}
