// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec dump: every event, one per line, in time order, with the field names
 * of the kernel's tracepoints.
 *
 *   text:  TS CPU TYPE key=value ...   (TS in seconds.nanoseconds; values
 *          never contain whitespace: see json.h for the escaping)
 *   JSON:  {"ts":NS,"cpu":N,"type":"...",key:value,...}  one object a line,
 *          compact, keys always in the same order
 *
 * Scripts parse this output: the order of keys is part of the interface.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "debugsym.h"
#include "frames.h"
#include "json.h"
#include "out.h"
#include "tools.h"
#include "walk.h"

void frec_dump__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec dump [--json] [--debug-dir DIR] FILE\n"
		"\n"
		"Print every event of a snapshot, one a line, in time order, with the field\n"
		"names of the kernel's tracepoints and thread names from the snapshot:\n"
		"\n"
		"  TS CPU TYPE key=value ...\n"
		"\n"
		"  sched_switch        prev_comm prev_pid prev_prio prev_state next_comm next_pid next_prio\n"
		"  sched_waking, sched_wakeup, sched_wakeup_new\n"
		"                      comm pid prio target_cpu waker\n"
		"  sched_process_fork  parent_comm parent_pid child_comm child_pid\n"
		"  sched_process_exec  filename pid old_pid comm\n"
		"  sched_process_exit  comm pid tgid\n"
		"  task_rename         pid oldcomm newcomm\n"
		"  sched_migrate_task  comm pid prio orig_cpu dest_cpu\n"
		"  uprobe, uretprobe, usdt\n"
		"                      probe pid tid comm args (comma-separated) ret (uretprobe)\n"
		"  lost                cpu count [count_known=no] [first_ts last_ts]: records lost\n"
		"                      on cpu (4294967295: not known), between first_ts and last_ts\n"
		"                      (ns) when known\n"
		"  gap                 reason first_ts last_ts: nothing recorded then (reload:\n"
		"                      the programs were replaced)\n"
		"  trigger             name trigger_id tid pid comm value_ns suppressed count: a\n"
		"                      trigger's condition held for thread tid (value_ns: what\n"
		"                      was measured, ns for durations); suppressed=yes: count\n"
		"                      firings that took no snapshot, the first at TS, the\n"
		"                      worst (value_ns) on tid; cpu 4294967295 then\n"
		"  cgroup              pid comm cgroup cgroup_id [container]: thread pid is in\n"
		"                      that cgroup from TS on\n"
		"\n"
		"When the snapshot records cgroups (frec info: \"cgroups: v2\"), each type's\n"
		"keys are followed by the cgroup of the thread each names, as of that event:\n"
		"prev_cgroup prev_cgroup_id next_cgroup next_cgroup_id (sched_switch),\n"
		"cgroup cgroup_id of the woken (wakings), parent_cgroup parent_cgroup_id\n"
		"child_cgroup child_cgroup_id (fork), cgroup cgroup_id (exec, exit, rename,\n"
		"migrate, probes, trigger; none for lost and gap). A container=ID key\n"
		"(prev_container, ...) follows each *cgroup_id whose path names a container.\n"
		"A path not known is ? (JSON null); its id is 0 when the cgroup is not known.\n"
		"\n"
		"A blocking sched_switch (frecd --stacks offcpu: prev's stacks) and a probe hit\n"
		"(--stacks probes) end with stack=F1;F2;... : the kernel frames, then the user\n"
		"frames, innermost first, each sym+0xOFF, or module+0xOFFSET when not named\n"
		"(0xADDR when the mapping is not known, [kernel] for an unnamed kernel frame).\n"
		"\n"
		"TS is CLOCK_BOOTTIME in seconds.nanoseconds. prev_state is printed as the\n"
		"kernel prints it (R, S, D, R+, ...). Values hold no whitespace: spaces,\n"
		"control characters and backslashes in names are written as \\xHH and \\\\.\n"
		"\n"
		"  -j, --json   one compact JSON object a line instead: \"ts\" (ns), \"cpu\",\n"
		"               \"type\", then the same keys in the same order; prev_state is\n"
		"               an integer, args an array of integers, suppressed a boolean;\n"
		"               \"stack\" a list of frames {\"sym\",\"sym_offset\",\"module\",\n"
		"               \"file_offset\",\"build_id\"} (keys absent when they do not\n"
		"               apply; \"addr\" for a frame of no known mapping)\n"
		"      --debug-dir DIR\n"
		"               name user frames the snapshot could not from DIR's\n"
		"               .build-id/xx/yyyy.debug files (default /usr/lib/debug)\n"
		"  -h, --help   this help\n");
	frec_usage__exit_status(f);
}

struct dumper {
	struct frec_out *o;
	struct frec_walk *w;
	bool json;
	bool cgroups;		/* the header says events carry cgroups */
	struct frec_debugsym *ds;
	char sw0[FREC_COMM_LEN + 8], sw1[FREC_COMM_LEN + 8];
};

static inline void key(struct dumper *d, const char *k)
{
	if (d->json) {
		frec_out__write(d->o, ",\"", 2);
		frec_out__str(d->o, k);
		frec_out__write(d->o, "\":", 2);
	} else {
		frec_out__char(d->o, ' ');
		frec_out__str(d->o, k);
		frec_out__char(d->o, '=');
	}
}

static void kv_str(struct dumper *d, const char *k, const char *s, size_t max)
{
	key(d, k);
	if (d->json)
		frec_json__str(d->o, s, max);
	else
		frec_text__str(d->o, s, max);
}

static void kv_u64(struct dumper *d, const char *k, __u64 v)
{
	key(d, k);
	frec_out__u64(d->o, v);
}

static void kv_s64(struct dumper *d, const char *k, __s64 v)
{
	key(d, k);
	frec_out__s64(d->o, v);
}

static void kv_comm(struct dumper *d, const char *k, __u32 tid, __u32 cpu, char *buf)
{
	kv_str(d, k, frec_walk__comm(d->w, tid, cpu, buf), FREC_COMM_LEN + 8);
}

/*
 * PREFIXcgroup PREFIXcgroup_id [PREFIXcontainer] of id: the path, null in
 * JSON and "?" in text when not known (id 0, or a cgroup the generation
 * could not name); the container only when the path names one.
 */
static void cgroup_keys(struct dumper *d, const char *prefix, __u64 id)
{
	const struct frec_cgroup_info *c;
	char k[32];

	c = frec_walk__cgroup_info(d->w, id);
	snprintf(k, sizeof(k), "%scgroup", prefix);
	if (c && c->path && c->path[0]) {
		kv_str(d, k, c->path, 4096);
	} else {
		key(d, k);
		frec_out__str(d->o, d->json ? "null" : "?");
	}
	snprintf(k, sizeof(k), "%scgroup_id", prefix);
	kv_u64(d, k, id);
	if (c && c->container && c->container[0]) {
		snprintf(k, sizeof(k), "%scontainer", prefix);
		kv_str(d, k, c->container, 256);
	}
}

/* The cgroup keys of a thread as of the current event: only in files whose
 * header says events carry cgroups, so that older files dump as they
 * always did. */
static void thread_cgroup(struct dumper *d, const char *prefix, __u32 tid)
{
	if (d->cgroups)
		cgroup_keys(d, prefix, frec_walk__cgroup_id(d->w, tid));
}

static void probe_fields(struct dumper *d, const struct frec_event *ev)
{
	const struct frec_probe_info *p = frec_walk__probe(d->w, ev->probe.probe_id);
	__u32 i, n = ev->probe.nargs > FREC_MAX_PROBE_ARGS ? FREC_MAX_PROBE_ARGS : ev->probe.nargs;
	char unnamed[32];

	if (!p || !p->name || !p->name[0])
		snprintf(unnamed, sizeof(unnamed), "#%u", ev->probe.probe_id);
	kv_str(d, "probe", p && p->name && p->name[0] ? p->name : unnamed, 4096);
	kv_u64(d, "pid", ev->tgid);
	kv_u64(d, "tid", ev->tid);
	kv_comm(d, "comm", ev->tid, ev->cpu, d->sw0);
	key(d, "args");
	if (d->json)
		frec_out__char(d->o, '[');
	for (i = 0; i < n; i++) {
		if (i)
			frec_out__char(d->o, ',');
		frec_out__u64(d->o, ev->probe.args[i]);
	}
	if (d->json)
		frec_out__char(d->o, ']');
	if (ev->type == FREC_EV_URETPROBE)
		kv_s64(d, "ret", ev->probe.ret);
	thread_cgroup(d, "", ev->tid);
}

/* name trigger_id tid pid comm value_ns suppressed count: the thread is the
 * one the condition held for (none, tid 0 and comm "", for lost records
 * and the like). */
static void trigger_fields(struct dumper *d, const struct frec_event *ev)
{
	bool supp = ev->trigger.flags & FREC_TRIGGER_SUPPRESSED;
	char buf[16];

	kv_str(d, "name", frec_walk__trigger_name(d->w, ev->trigger.id, buf), 4096);
	kv_u64(d, "trigger_id", ev->trigger.id);
	kv_u64(d, "tid", ev->tid);
	kv_u64(d, "pid", ev->tgid);
	if (ev->tid || ev->tgid)
		kv_comm(d, "comm", ev->tid, ev->cpu, d->sw0);
	else
		kv_str(d, "comm", "", 1);
	kv_u64(d, "value_ns", ev->trigger.value);
	key(d, "suppressed");
	if (d->json)
		frec_out__str(d->o, supp ? "true" : "false");
	else
		frec_out__str(d->o, supp ? "yes" : "no");
	kv_u64(d, "count", ev->trigger.count);
	thread_cgroup(d, "", ev->tid);
}

static void text_frames(struct dumper *d, const struct frec_stack *s, bool *first)
{
	struct frec_frame f;
	char label[512];

	for (__u32 i = 0; s && i < s->nframes; i++) {
		if (!*first)
			frec_out__char(d->o, ';');
		*first = false;
		frec_frame__resolve(&s->frames[i], d->ds, &f);
		frec_text__str(d->o, frec_frame__label(&f, true, label, sizeof(label)), sizeof(label));
	}
}

/* The stacks the event's stack event gave it, last on its line. */
static void stack_field(struct dumper *d)
{
	const struct frec_stack *k, *u;
	bool first = true;

	if (!frec_walk__stacks(d->w, &k, &u))
		return;
	if (d->json) {
		frec_stack__json(d->o, k, u, d->ds);
		return;
	}
	key(d, "stack");
	text_frames(d, k, &first);
	text_frames(d, u, &first);
}

static void dump_event(struct dumper *d, const struct frec_event *ev)
{
	struct frec_out *o = d->o;
	const char *type = ev->type == FREC_EV_CGROUP ? "cgroup" : frec_type__name(ev->type);
	char state[32];

	if (d->json) {
		frec_out__str(o, "{\"ts\":");
		frec_out__u64(o, ev->ts);
		frec_out__str(o, ",\"cpu\":");
		frec_out__u64(o, ev->cpu);
		frec_out__str(o, ",\"type\":\"");
		frec_out__str(o, type ? type : "unknown");
		frec_out__char(o, '"');
	} else {
		frec_out__secs(o, ev->ts);
		frec_out__char(o, ' ');
		frec_out__u64(o, ev->cpu);
		frec_out__char(o, ' ');
		frec_out__str(o, type ? type : "unknown");
	}

	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		kv_comm(d, "prev_comm", ev->sw.prev_pid, ev->cpu, d->sw0);
		kv_u64(d, "prev_pid", ev->sw.prev_pid);
		kv_s64(d, "prev_prio", ev->sw.prev_prio);
		if (d->json) {
			kv_u64(d, "prev_state", ev->sw.prev_state);
		} else {
			frec_fmt__prev_state(ev->sw.prev_state, state, sizeof(state));
			kv_str(d, "prev_state", state, sizeof(state));
		}
		kv_comm(d, "next_comm", ev->sw.next_pid, ev->cpu, d->sw1);
		kv_u64(d, "next_pid", ev->sw.next_pid);
		kv_s64(d, "next_prio", ev->sw.next_prio);
		thread_cgroup(d, "prev_", ev->sw.prev_pid);
		thread_cgroup(d, "next_", ev->sw.next_pid);
		stack_field(d);
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		kv_comm(d, "comm", ev->wake.pid, ev->cpu, d->sw0);
		kv_u64(d, "pid", ev->wake.pid);
		kv_s64(d, "prio", ev->wake.prio);
		kv_u64(d, "target_cpu", ev->wake.target_cpu);
		kv_u64(d, "waker", ev->wake.waker);
		thread_cgroup(d, "", ev->wake.pid);
		break;
	case FREC_EV_PROCESS_FORK:
		kv_comm(d, "parent_comm", ev->fork.parent_pid, ev->cpu, d->sw0);
		kv_u64(d, "parent_pid", ev->fork.parent_pid);
		kv_comm(d, "child_comm", ev->fork.child_pid, ev->cpu, d->sw1);
		kv_u64(d, "child_pid", ev->fork.child_pid);
		thread_cgroup(d, "parent_", ev->fork.parent_pid);
		thread_cgroup(d, "child_", ev->fork.child_pid);
		break;
	case FREC_EV_PROCESS_EXEC:
		kv_str(d, "filename", ev->exec.filename, FREC_FILENAME_LEN);
		kv_u64(d, "pid", ev->exec.pid);
		kv_u64(d, "old_pid", ev->exec.old_pid);
		if (ev->exec.comm && ev->exec.comm[0])
			kv_str(d, "comm", ev->exec.comm, FREC_COMM_LEN);
		else
			kv_comm(d, "comm", ev->exec.pid, ev->cpu, d->sw0);
		thread_cgroup(d, "", ev->exec.pid);
		break;
	case FREC_EV_PROCESS_EXIT:
		kv_comm(d, "comm", ev->exit.pid, ev->cpu, d->sw0);
		kv_u64(d, "pid", ev->exit.pid);
		kv_u64(d, "tgid", ev->exit.tgid);
		thread_cgroup(d, "", ev->exit.pid);
		break;
	case FREC_EV_TASK_RENAME:
		kv_u64(d, "pid", ev->rename.pid);
		/* the walker applies the rename after this event: still the old name */
		kv_comm(d, "oldcomm", ev->rename.pid, ev->cpu, d->sw0);
		kv_str(d, "newcomm", ev->rename.newcomm, FREC_COMM_LEN);
		thread_cgroup(d, "", ev->rename.pid);
		break;
	case FREC_EV_MIGRATE_TASK:
		kv_comm(d, "comm", ev->migrate.pid, ev->cpu, d->sw0);
		kv_u64(d, "pid", ev->migrate.pid);
		kv_s64(d, "prio", ev->migrate.prio);
		kv_u64(d, "orig_cpu", ev->migrate.orig_cpu);
		kv_u64(d, "dest_cpu", ev->migrate.dest_cpu);
		thread_cgroup(d, "", ev->migrate.pid);
		break;
	case FREC_EV_CGROUP:
		/* the walker applies the move after this event: the new cgroup
		 * is the event's own */
		kv_u64(d, "pid", ev->tid);
		kv_comm(d, "comm", ev->tid, ev->cpu, d->sw0);
		cgroup_keys(d, "", ev->cgroup.id);
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		probe_fields(d, ev);
		stack_field(d);
		break;
	case FREC_EV_LOST:
		if (!d->json)
			kv_u64(d, "cpu", ev->cpu);
		kv_u64(d, "count", ev->lost.count);
		if (ev->lost.flags & FREC_LOST_UNKNOWN)
			kv_str(d, "count_known", "no", 3);
		if (ev->lost.flags & FREC_LOST_SPAN) {
			kv_u64(d, "first_ts", ev->lost.first_ts);
			kv_u64(d, "last_ts", ev->lost.last_ts);
		}
		break;
	case FREC_EV_GAP:
		kv_str(d, "reason", ev->gap.kind == FREC_GAP_RELOAD ? "reload" : "unknown", 8);
		kv_u64(d, "first_ts", ev->gap.first_ts);
		kv_u64(d, "last_ts", ev->gap.last_ts);
		break;
	case FREC_EV_TRIGGER:
		trigger_fields(d, ev);
		break;
	default:
		kv_u64(d, "type_id", ev->type);
		break;
	}
	if (d->json)
		frec_out__char(o, '}');
	frec_out__char(o, '\n');
}

int frec_dump__run(const char *path, const struct frec_dump_opts *opts, FILE *out, FILE *err)
{
	struct frec_walk_opts wo = { .sorted = true };
	struct dumper d = { .json = opts && opts->json };
	const struct frec_event *ev;
	int status, rc;

	d.w = frec_walk__open(path, &wo, err, &status);
	if (!d.w)
		return status;
	d.cgroups = frec_walk__header(d.w)->config.flags & FREC_CFG_CGROUPS;
	d.ds = frec_debugsym__new(opts ? opts->debug_dir : NULL);
	d.o = d.ds ? frec_out__new(out, false) : NULL;
	if (!d.o) {
		frec_debugsym__free(d.ds);
		fprintf(err, "frec: %s\n", strerror(errno));
		frec_walk__fail(d.w);
		return frec_walk__close(d.w);
	}
	while (frec_walk__next_gen(d.w) > 0) {
		while ((ev = frec_walk__next_event(d.w)))
			dump_event(&d, ev);
		if (frec_out__error(d.o))
			break;
	}
	rc = frec_out__close(d.o, NULL);
	if (rc) {
		/* a closed pipe (dump | head) is not worth a message */
		if (rc != -EPIPE)
			fprintf(err, "frec: writing the output: %s\n", strerror(-rc));
		frec_walk__fail(d.w);
	}
	frec_debugsym__free(d.ds);
	return frec_walk__close(d.w);
}

int cmd_dump(int argc, char **argv)
{
	enum { OPT_DEBUG_DIR = 0x100 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct frec_dump_opts o = { 0 };
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case OPT_DEBUG_DIR:
			if (frec_opt__debug_dir("dump", optarg))
				return FREC_EXIT_USAGE;
			o.debug_dir = optarg;
			break;
		case 'h':
			frec_dump__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec dump --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "frec dump: expected one FILE, got %d; try 'frec dump --help'\n",
			argc - optind);
		return FREC_EXIT_USAGE;
	}
	return frec_dump__run(argv[optind], &o, stdout, stderr);
}
