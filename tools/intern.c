// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Numbering distinct keys for the exporters' tables; see intern.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"

__u64 frec_intern__hash(const char *s)
{
	__u64 h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void frec_intern__free(struct frec_intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->tab);
	free(t->aux);
}

static int intern_rehash(struct frec_intern *t)
{
	size_t ncap = t->tcap ? t->tcap * 2 : 256, i;
	size_t *tab = calloc(ncap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t j = frec_intern__hash(t->keys[i]) & (ncap - 1);

		while (tab[j])
			j = (j + 1) & (ncap - 1);
		tab[j] = i + 1;
	}
	free(t->tab);
	t->tab = tab;
	t->tcap = ncap;
	return 0;
}

long frec_intern__get(struct frec_intern *t, const char *key, bool *added)
{
	size_t j;

	*added = false;
	if (2 * (t->n + 1) > t->tcap && intern_rehash(t))
		return -ENOMEM;
	for (j = frec_intern__hash(key) & (t->tcap - 1); t->tab[j]; j = (j + 1) & (t->tcap - 1))
		if (!strcmp(t->keys[t->tab[j] - 1], key))
			return (long)(t->tab[j] - 1);
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		char **k = realloc(t->keys, ncap * sizeof(*k));
		__u64 *a;

		if (!k)
			return -ENOMEM;
		t->keys = k;
		a = realloc(t->aux, ncap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		t->aux = a;
		t->cap = ncap;
	}
	if (!(t->keys[t->n] = strdup(key)))
		return -ENOMEM;
	t->aux[t->n] = 0;
	t->tab[j] = ++t->n;
	*added = true;
	return (long)(t->n - 1);
}

