// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Escaping untrusted strings for JSON and for whitespace-separated text. */
#include "json.h"

static const char hexdig[] = "0123456789abcdef";

size_t frec_utf8__seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;	/* continuation byte, overlong lead, or > U+10FFFF */
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong 3/4-byte forms, UTF-16 surrogates, beyond Unicode */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

void frec_json__str(struct frec_out *o, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = str ? bounded_len(str, max) : 0, i = 0, run = 0;

	frec_out__char(o, '"');
	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		char esc[6];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (c >= 0x80 && (k = frec_utf8__seq_len(s + i, n - i))) {
			i += k;
			run += k;
			continue;
		}
		/* flush the clean run before the byte that needs escaping */
		frec_out__write(o, s + i - run, run);
		run = 0;
		switch (c) {
		case '"':  frec_out__write(o, "\\\"", 2); break;
		case '\\': frec_out__write(o, "\\\\", 2); break;
		case '\n': frec_out__write(o, "\\n", 2); break;
		case '\t': frec_out__write(o, "\\t", 2); break;
		case '\r': frec_out__write(o, "\\r", 2); break;
		default:
			esc[0] = '\\'; esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
			esc[4] = hexdig[c >> 4];
			esc[5] = hexdig[c & 15];
			frec_out__write(o, esc, 6);
		}
		i++;
	}
	frec_out__write(o, s + i - run, run);
	frec_out__char(o, '"');
}

void frec_text__str(struct frec_out *o, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = str ? bounded_len(str, max) : 0, i = 0, run = 0;

	if (!n) {
		frec_out__write(o, "\"\"", 2);
		return;
	}
	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		char esc[4];

		if (c > 0x20 && c < 0x7f && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (c >= 0x80 && (k = frec_utf8__seq_len(s + i, n - i))) {
			i += k;
			run += k;
			continue;
		}
		frec_out__write(o, s + i - run, run);
		run = 0;
		if (c == '\\') {
			frec_out__write(o, "\\\\", 2);
		} else {
			esc[0] = '\\'; esc[1] = 'x';
			esc[2] = hexdig[c >> 4];
			esc[3] = hexdig[c & 15];
			frec_out__write(o, esc, 4);
		}
		i++;
	}
	frec_out__write(o, s + i - run, run);
}
