/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From the --trigger texts to what the pieces need: the parsed specs (the
 * policy, triggers.h), the probes func: and probe: triggers need (added to
 * the probe set unless --probe names them as written), the programs' table
 * (bpf/trigger.h, by the probes' ids) and the recorder's trigger table.
 * Used at start (main.c) and on SIGHUP (reload.c).
 *
 * Threads: whoever builds the probe set: main's thread, then the loop's.
 */
#ifndef FRECD_TRIGGER_SETUP_H
#define FRECD_TRIGGER_SETUP_H

#include <stddef.h>
#include <frec/event.h>
#include "frecd/trigger_spec.h"
#include "../../bpf/trigger.h"

struct frec_probes;

/* The triggers as frecd runs them; ids 1..n in order. */
struct frecd_trigger_set {
	size_t n;
	struct trigger_spec specs[FREC_MAX_TRIGGERS];
	struct frec_trigger_bpf bpf[FREC_MAX_TRIGGERS];	/* index id - 1 */
	struct frec_trigger_info info[FREC_MAX_TRIGGERS];
};

/* Parse the texts (checked by the options already). 0, or -errno with the
 * cause in err. */
int frecd_trigger_set__parse(struct frecd_trigger_set *s, const char *const *texts, size_t n,
			     char *err, size_t errlen);
void frecd_trigger_set__free(struct frecd_trigger_set *s);

/* Add the probe of each func: and probe: trigger to p, unless one of the
 * nprobes --probe specs is the same text. 0, or -errno with the probe
 * validation's message in err (a usage error), prefixed with the trigger's
 * spec. */
int frecd_trigger_set__add_probes(const struct frecd_trigger_set *s, const char *const *probes,
				  size_t nprobes, struct frec_probes *p, char *err, size_t errlen);

/* Fill s->bpf and s->info, looking the probes up in p (NULL: none). 0, or
 * -ENOENT with the cause in err. */
int frecd_trigger_set__build(struct frecd_trigger_set *s, const struct frec_probes *p,
			     char *err, size_t errlen);

#endif /* FRECD_TRIGGER_SETUP_H */
