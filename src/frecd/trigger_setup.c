// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "frecd/probes.h"
#include "frecd/bpf_triggers.h"
#include "frecd/trigger_setup.h"

int frecd_trigger_set__parse(struct frecd_trigger_set *s, const char *const *texts, size_t n,
			     char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	if (n > FREC_MAX_TRIGGERS) {
		snprintf(err, errlen, "more than %d triggers; remove some --trigger options",
			 FREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		ret = trigger_spec__parse(texts[i], &s->specs[i], err, errlen);
		if (ret) {
			s->n = i;
			frecd_trigger_set__free(s);
			return ret;
		}
	}
	s->n = n;
	return 0;
}

void frecd_trigger_set__free(struct frecd_trigger_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		trigger_spec__free(&s->specs[i]);
	s->n = 0;
}

int frecd_trigger_set__add_probes(const struct frecd_trigger_set *s, const char *const *probes,
				  size_t nprobes, struct frec_probes *p, char *err, size_t errlen)
{
	char msg[768];
	size_t i, j;
	int ret;

	for (i = 0; i < s->n; i++) {
		const struct trigger_spec *ts = &s->specs[i];

		if (!ts->probe)
			continue;
		for (j = 0; j < nprobes; j++)
			if (!strcmp(probes[j], ts->probe))
				break;
		if (j < nprobes)
			continue;
		/* Two triggers on one probe: added once. */
		for (j = 0; j < i; j++)
			if (s->specs[j].probe && !strcmp(s->specs[j].probe, ts->probe))
				break;
		if (j < i)
			continue;
		ret = frec_probes__add_spec(p, ts->probe, msg, sizeof(msg));
		if (ret) {
			snprintf(err, errlen, "trigger '%s': %s", ts->spec, msg);
			return ret;
		}
	}
	return 0;
}

int frecd_trigger_set__build(struct frecd_trigger_set *s, const struct frec_probes *p,
			     char *err, size_t errlen)
{
	size_t i;

	memset(s->bpf, 0, sizeof(s->bpf));
	memset(s->info, 0, sizeof(s->info));
	for (i = 0; i < s->n; i++) {
		const struct trigger_spec *ts = &s->specs[i];
		struct frec_trigger_bpf *b = &s->bpf[i];
		__u32 entry = 0, ret_id = 0;

		s->info[i].id = i + 1;
		s->info[i].kind = ts->kind;
		s->info[i].name = ts->name;
		s->info[i].spec = ts->spec;
		/* lost and manual are frecd's own: the programs see kind 0 */
		if (ts->kind == FREC_TRIG_LOST || ts->kind == FREC_TRIG_MANUAL)
			continue;
		b->kind = ts->kind;
		b->tgid = ts->pid;
		b->threshold_ns = ts->threshold_ns;
		b->cooldown_ns = ts->cooldown_ns;
		memcpy(b->comm, ts->comm, sizeof(b->comm));
		frecd_bpf_triggers__comm_mask(b);
		if (frecd_bpf_triggers__set_cgroup(b, ts->spec, ts->cgroup, err, errlen))
			return -ENOENT;
		if (!ts->probe)
			continue;
		if (!p || frec_probes__find(p, ts->probe, &entry, &ret_id)) {
			snprintf(err, errlen, "trigger '%s': its probe %s is not in the probe set",
				 ts->spec, ts->probe);
			return -ENOENT;
		}
		/* func: the entry, where the time starts; probe: the one that
		 * fires (a uretprobe has only a return) */
		b->probe_id = entry ? entry : ret_id;
	}
	return 0;
}
