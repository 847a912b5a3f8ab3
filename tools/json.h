/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Strings from a snapshot (comms, file names, probe specs, cmdlines) come
 * from the traced programs: any byte may appear, and none may break the
 * output. Two escapers:
 *  - JSON: a quoted string that every parser accepts. Control characters,
 *    quote, backslash and DEL are escaped; valid UTF-8 passes through; a byte
 *    that is not part of valid UTF-8 becomes \u00XX (its Latin-1 reading),
 *    so the output is always valid UTF-8.
 *  - text: one whitespace-free token for `frec dump`, so awk's fields stay
 *    put. Space, control characters, DEL, backslash and invalid UTF-8 bytes
 *    become \xHH; valid UTF-8 passes through.
 */
#ifndef FREC_TOOLS_JSON_H
#define FREC_TOOLS_JSON_H

#include <stddef.h>
#include "out.h"

/* Write s (at most max bytes, stopping at NUL) as a quoted JSON string. */
void frec_json__str(struct frec_out *o, const char *s, size_t max);
/* "key": the key is trusted (a literal), written as is. */
static inline void frec_json__key(struct frec_out *o, const char *key)
{
	frec_out__char(o, '"');
	frec_out__str(o, key);
	frec_out__write(o, "\":", 2);
}
/* Write s as a text token; an empty or NULL string prints as "" (two quotes). */
void frec_text__str(struct frec_out *o, const char *s, size_t max);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if s[0] does not
 * start one within n bytes. */
size_t frec_utf8__seq_len(const unsigned char *s, size_t n);

#endif /* FREC_TOOLS_JSON_H */
