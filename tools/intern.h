/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A set of string keys numbered 0, 1, ... in the order they were first
 * added: the exporters' string tables and their interned frames, mappings
 * and stacks (a tuple is given as one string). Open addressing at half
 * load. Zero-initialize; one thread.
 */
#ifndef FREC_TOOLS_INTERN_H
#define FREC_TOOLS_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frec_intern {
	char **keys;		/* by number */
	size_t n, cap;
	size_t *tab;		/* number + 1 */
	size_t tcap;
	__u64 *aux;		/* per key, for the caller; 0 when added */
};

/* The 64-bit FNV-1a hash of the string s, which the set's table uses. */
__u64 frec_intern__hash(const char *s);
/* The number of key, added when new (*added set); -ENOMEM. */
long frec_intern__get(struct frec_intern *t, const char *key, bool *added);
void frec_intern__free(struct frec_intern *t);

#endif /* FREC_TOOLS_INTERN_H */
