// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Escaping untrusted names: JSON strings that every parser accepts (always
 * valid UTF-8), and whitespace-free text tokens for frec dump; both bounded
 * by the field's size even without a NUL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "../../tools/json.h"

static char *render(void (*fn)(struct frec_out *, const char *, size_t), const char *s, size_t max)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct frec_out *o = frec_out__new(f, false);

	fn(o, s, max);
	assert_int_equal(frec_out__close(o, NULL), 0);
	fclose(f);
	return buf;
}

static void expect(void (*fn)(struct frec_out *, const char *, size_t), const char *s, size_t max,
		   const char *want)
{
	char *got = render(fn, s, max);

	assert_string_equal(got, want);
	free(got);
}

static void test_json(void **state)
{
	(void)state;
	expect(frec_json__str, "plain", 100, "\"plain\"");
	expect(frec_json__str, "", 100, "\"\"");
	expect(frec_json__str, NULL, 100, "\"\"");
	expect(frec_json__str, "q\"b\\", 100, "\"q\\\"b\\\\\"");
	expect(frec_json__str, "\n\t\r\x01\x1f\x7f", 100, "\"\\n\\t\\r\\u0001\\u001f\\u007f\"");
	/* valid UTF-8 passes: é, €, U+1F600 */
	expect(frec_json__str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 100,
	       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* invalid: lone continuation, overlong, surrogate, beyond U+10FFFF, cut */
	expect(frec_json__str, "\x80", 100, "\"\\u0080\"");
	expect(frec_json__str, "\xc0\xaf", 100, "\"\\u00c0\\u00af\"");
	expect(frec_json__str, "\xed\xa0\x80", 100, "\"\\u00ed\\u00a0\\u0080\"");
	expect(frec_json__str, "\xf4\x90\x80\x80", 100, "\"\\u00f4\\u0090\\u0080\\u0080\"");
	expect(frec_json__str, "\xe2\x82", 100, "\"\\u00e2\\u0082\"");
	/* a multi-byte sequence cut by the field's size is not valid either */
	expect(frec_json__str, "ab\xc3\xa9", 3, "\"ab\\u00c3\"");
	/* bounded without NUL */
	expect(frec_json__str, "0123456789abcdefXXXX", 16, "\"0123456789abcdef\"");
}

static void test_text(void **state)
{
	(void)state;
	expect(frec_text__str, "worker", 16, "worker");
	expect(frec_text__str, "", 16, "\"\"");
	expect(frec_text__str, NULL, 16, "\"\"");
	expect(frec_text__str, "a b", 16, "a\\x20b");
	expect(frec_text__str, "tab\there", 16, "tab\\x09here");
	expect(frec_text__str, "back\\slash", 16, "back\\\\slash");
	expect(frec_text__str, "\x7f\xff", 16, "\\x7f\\xff");
	expect(frec_text__str, "k=v\"q\"", 16, "k=v\"q\"");
	expect(frec_text__str, "caf\xc3\xa9", 16, "caf\xc3\xa9");
	expect(frec_text__str, "0123456789abcdefXXXX", 16, "0123456789abcdef");
}

static void test_out_numbers(void **state)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct frec_out *o = frec_out__new(f, false);

	(void)state;
	frec_out__u64(o, 0);
	frec_out__char(o, ' ');
	frec_out__u64(o, UINT64_MAX);
	frec_out__char(o, ' ');
	frec_out__s64(o, INT64_MIN);
	frec_out__char(o, ' ');
	frec_out__secs(o, 1000000001ull);
	frec_out__char(o, ' ');
	frec_out__secs(o, 999);
	frec_out__char(o, ' ');
	frec_out__usecs(o, 1234567);
	frec_out__char(o, ' ');
	frec_out__usecs(o, 5);
	assert_int_equal(frec_out__close(o, NULL), 0);
	fclose(f);
	assert_string_equal(buf, "0 18446744073709551615 -9223372036854775808 1.000000001 "
				 "0.000000999 1234.567 0.005");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_out_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
