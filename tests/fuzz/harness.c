// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The fuzz targets' input file, output sinks and output checks; see harness.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "core/format.h"
#include "core/varint.h"
#include "harness.h"

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==fuzz check failed: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* --- input ---------------------------------------------------------------- */

static int input_fd = -1;
static char input_path[64];
static uint8_t *fixed;
static size_t fixed_cap;

void fuzz_input__init(void)
{
	if (input_fd >= 0)
		return;
	input_fd = memfd_create("frec-fuzz-input", MFD_CLOEXEC);
	if (input_fd < 0)
		fuzz_fail("memfd_create: %s", strerror(errno));
	snprintf(input_path, sizeof(input_path), "/proc/self/fd/%d", input_fd);
}

void fuzz_input__set(const uint8_t *data, size_t size)
{
	size_t done = 0;

	fuzz_input__init();
	if (ftruncate(input_fd, 0) || lseek(input_fd, 0, SEEK_SET))
		fuzz_fail("resetting the input file: %s", strerror(errno));
	while (done < size) {
		ssize_t n = pwrite(input_fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			fuzz_fail("writing the input file: %s", strerror(errno));
		done += (size_t)n;
	}
}

int fuzz_input__fd(void)
{
	int fd = dup(input_fd);

	/* a dup shares the offset: rewind it for the new reader */
	if (fd < 0 || lseek(fd, 0, SEEK_SET))
		fuzz_fail("dup of the input file: %s", strerror(errno));
	return fd;
}

const char *fuzz_input__path(void)
{
	return input_path;
}

static void put_crc(uint8_t *at, const uint8_t *p, size_t n)
{
	put_le32(at, (uint32_t)crc32(0, p, (uInt)n));
}

const uint8_t *fuzz_input__fix_crcs(const uint8_t *data, size_t size, bool *changed)
{
	size_t pos = 0;

	if (size > fixed_cap) {
		free(fixed);
		fixed = malloc(size);
		if (!fixed)
			fuzz_fail("out of memory for a %zu byte input", size);
		fixed_cap = size;
	}
	if (size)
		memcpy(fixed, data, size);
	/* The file header: CRC of version, length and body, after the body. */
	if (size >= FILE_PREFIX_LEN && !memcmp(fixed, FILE_MAGIC, FILE_MAGIC_LEN)) {
		uint32_t body = get_le32(fixed + 12);

		if (body <= FILE_BODY_MAX && FILE_PREFIX_LEN + (size_t)body + 4 <= size) {
			put_crc(fixed + FILE_PREFIX_LEN + body, fixed + FILE_MAGIC_LEN, 8 + body);
			pos = FILE_PREFIX_LEN + body + 4;
		}
	}
	/* Every block: the payload CRC first, since the header CRC covers it. */
	while (pos + BLOCK_HDR_LEN <= size) {
		uint8_t *b = memmem(fixed + pos, size - pos, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
		uint32_t plen;

		if (!b || (size_t)(b - fixed) + BLOCK_HDR_LEN > size)
			break;
		pos = (size_t)(b - fixed);
		plen = get_le32(b + BLOCK_OFF_PAYLOAD);
		if (plen <= size - pos - BLOCK_HDR_LEN)
			put_crc(b + BLOCK_OFF_PCRC, b + BLOCK_HDR_LEN, plen);
		else
			plen = 0;
		put_crc(b + BLOCK_OFF_HCRC, b, BLOCK_OFF_HCRC);
		pos += plen ? BLOCK_HDR_LEN + plen : BLOCK_MAGIC_LEN;
	}
	*changed = size && memcmp(fixed, data, size);
	return fixed;
}

/* --- output sinks --------------------------------------------------------- */

static ssize_t sink_write(void *cookie, const char *p, size_t n)
{
	struct fuzz_sink *s = cookie;

	if (s->overflow || s->len + n > FUZZ_SINK_CAP) {
		s->overflow = true;
		return (ssize_t)n;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return (ssize_t)n;
}

void fuzz_sink__init(struct fuzz_sink *s)
{
	static const cookie_io_functions_t io = { .write = sink_write };

	memset(s, 0, sizeof(*s));
	/* one allocation for the process: the checks then see the exact bytes
	 * and ASan sees any read past them */
	s->buf = malloc(FUZZ_SINK_CAP);
	s->f = fopencookie(s, "w", io);
	if (!s->buf || !s->f)
		fuzz_fail("sink: %s", strerror(errno));
}

void fuzz_sink__flush(struct fuzz_sink *s)
{
	fflush(s->f);
}

void fuzz_sink__reset(struct fuzz_sink *s)
{
	fflush(s->f);
	clearerr(s->f);
	s->len = 0;
	s->overflow = false;
}

void fuzz_check__sink(const char *what, struct fuzz_sink *s,
		      void (*check)(const char *, const char *, size_t))
{
	fuzz_sink__flush(s);
	if (!s->overflow)
		check(what, s->buf, s->len);
}

/* --- checks --------------------------------------------------------------- */

void fuzz_check__status(const char *what, int status)
{
	/* 2 is a usage error, which no file can cause */
	if (status != 0 && status != 1 && status != 3)
		fuzz_fail("%s: exit status %d, expected 0, 1 or 3", what, status);
}

/* Length of the valid UTF-8 sequence at p (1-4; RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), 0 if there is none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void context_fail(const char *what, const char *why, const char *p, size_t n, size_t at)
{
	size_t from = at > 40 ? at - 40 : 0, to = at + 40 < n ? at + 40 : n, i;
	char ctx[400];
	size_t k = 0;

	for (i = from; i < to && k + 5 < sizeof(ctx); i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			ctx[k++] = (char)c;
		else
			k += (size_t)snprintf(ctx + k, sizeof(ctx) - k, "\\x%02x", c);
	}
	ctx[k] = '\0';
	fuzz_fail("%s: %s at byte %zu of %zu: ...%s...", what, why, at, n, ctx);
}

void fuzz_check__text(const char *what, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, len;

	while (i < n) {
		if (u[i] < 0x20 && u[i] != '\n')
			context_fail(what, "control character in text output", p, n, i);
		if (u[i] == 0x7f)
			context_fail(what, "DEL in text output", p, n, i);
		len = utf8_len(u + i, n - i);
		if (!len)
			context_fail(what, "invalid UTF-8 in text output", p, n, i);
		i += len;
	}
	if (n && p[n - 1] != '\n')
		context_fail(what, "text output does not end with a newline", p, n, n - 1);
}

/* A strict RFC 8259 parser that only says yes or no. */
struct json {
	const char *what;
	const unsigned char *p;
	size_t n, i;
};

#define JSON_MAX_DEPTH	64

static void json_fail(struct json *j, const char *why)
{
	context_fail(j->what, why, (const char *)j->p, j->n, j->i);
}

static void json_ws(struct json *j)
{
	while (j->i < j->n && (j->p[j->i] == ' ' || j->p[j->i] == '\t' || j->p[j->i] == '\n' ||
			       j->p[j->i] == '\r'))
		j->i++;
}

static bool json_lit(struct json *j, const char *lit)
{
	size_t l = strlen(lit);

	if (j->n - j->i < l || memcmp(j->p + j->i, lit, l))
		return false;
	j->i += l;
	return true;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static void json_number(struct json *j)
{
	if (j->i < j->n && j->p[j->i] == '-')
		j->i++;
	if (j->i >= j->n || !is_digit(j->p[j->i]))
		json_fail(j, "bad JSON number");
	if (j->p[j->i] == '0')
		j->i++;
	else
		while (j->i < j->n && is_digit(j->p[j->i]))
			j->i++;
	if (j->i < j->n && j->p[j->i] == '.') {
		j->i++;
		if (j->i >= j->n || !is_digit(j->p[j->i]))
			json_fail(j, "bad JSON fraction");
		while (j->i < j->n && is_digit(j->p[j->i]))
			j->i++;
	}
	if (j->i < j->n && (j->p[j->i] == 'e' || j->p[j->i] == 'E')) {
		j->i++;
		if (j->i < j->n && (j->p[j->i] == '+' || j->p[j->i] == '-'))
			j->i++;
		if (j->i >= j->n || !is_digit(j->p[j->i]))
			json_fail(j, "bad JSON exponent");
		while (j->i < j->n && is_digit(j->p[j->i]))
			j->i++;
	}
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void json_string(struct json *j)
{
	size_t len;

	j->i++;	/* the opening quote */
	for (;;) {
		unsigned char c;

		if (j->i >= j->n)
			json_fail(j, "unterminated JSON string");
		c = j->p[j->i];
		if (c == '"') {
			j->i++;
			return;
		}
		if (c < 0x20)
			json_fail(j, "raw control character in a JSON string");
		if (c == '\\') {
			if (j->i + 1 >= j->n)
				json_fail(j, "unterminated JSON escape");
			c = j->p[j->i + 1];
			if (c == 'u') {
				if (j->i + 6 > j->n || !is_hex(j->p[j->i + 2]) || !is_hex(j->p[j->i + 3]) ||
				    !is_hex(j->p[j->i + 4]) || !is_hex(j->p[j->i + 5]))
					json_fail(j, "bad \\u escape in a JSON string");
				j->i += 6;
			} else if (strchr("\"\\/bfnrt", c) && c) {
				j->i += 2;
			} else {
				json_fail(j, "bad escape in a JSON string");
			}
			continue;
		}
		len = utf8_len(j->p + j->i, j->n - j->i);
		if (!len)
			json_fail(j, "invalid UTF-8 in a JSON string");
		j->i += len;
	}
}

static void json_value(struct json *j, unsigned depth)
{
	unsigned char c;

	if (depth > JSON_MAX_DEPTH)
		json_fail(j, "JSON nested too deep");
	json_ws(j);
	if (j->i >= j->n)
		json_fail(j, "JSON ends where a value should be");
	c = j->p[j->i];
	if (c == '{' || c == '[') {
		unsigned char close = c == '{' ? '}' : ']';

		j->i++;
		json_ws(j);
		if (j->i < j->n && j->p[j->i] == close) {
			j->i++;
			return;
		}
		for (;;) {
			if (c == '{') {
				json_ws(j);
				if (j->i >= j->n || j->p[j->i] != '"')
					json_fail(j, "JSON object key is not a string");
				json_string(j);
				json_ws(j);
				if (j->i >= j->n || j->p[j->i] != ':')
					json_fail(j, "no ':' after a JSON object key");
				j->i++;
			}
			json_value(j, depth + 1);
			json_ws(j);
			if (j->i < j->n && j->p[j->i] == ',') {
				j->i++;
				continue;
			}
			if (j->i < j->n && j->p[j->i] == close) {
				j->i++;
				return;
			}
			json_fail(j, c == '{' ? "expected ',' or '}' in a JSON object" :
						"expected ',' or ']' in a JSON array");
		}
	}
	if (c == '"') {
		json_string(j);
		return;
	}
	if (c == '-' || is_digit(c)) {
		json_number(j);
		return;
	}
	if (json_lit(j, "true") || json_lit(j, "false") || json_lit(j, "null"))
		return;
	json_fail(j, "not a JSON value");
}

void fuzz_check__json(const char *what, const char *p, size_t n)
{
	struct json j = { .what = what, .p = (const unsigned char *)p, .n = n };

	json_value(&j, 0);
	json_ws(&j);
	if (j.i != n)
		json_fail(&j, "bytes after the JSON document");
}

void fuzz_check__json_lines(const char *what, const char *p, size_t n)
{
	size_t start = 0;

	while (start < n) {
		const char *nl = memchr(p + start, '\n', n - start);
		struct json j = { .what = what, .p = (const unsigned char *)p + start };

		if (!nl)
			context_fail(what, "JSON line without a newline", p, n, start);
		j.n = (size_t)(nl - (p + start));
		json_value(&j, 0);
		json_ws(&j);
		if (j.i != j.n)
			json_fail(&j, "bytes after the JSON value on its line");
		start += j.n + 1;
	}
}

/* --- protobuf (Perfetto) -------------------------------------------------- */

struct pb {
	const char *what;
	const uint8_t *base;	/* the whole trace, for offsets in messages */
	size_t total;
};

static void pb_fail(const struct pb *pb, const uint8_t *at, const char *why)
{
	context_fail(pb->what, why, (const char *)pb->base, pb->total, (size_t)(at - pb->base));
}

struct pb_field {
	uint32_t num;
	uint32_t wire;
	uint64_t v;		/* varint, fixed64, fixed32 */
	const uint8_t *p;	/* length-delimited */
	size_t len;
};

/* Next field of [*pp, end): 1, 0 at the end; a malformed field fails. */
static int pb_next(const struct pb *pb, const uint8_t **pp, const uint8_t *end,
		   struct pb_field *f)
{
	uint64_t key, len;

	if (*pp == end)
		return 0;
	if (get_varint(pp, end, &key))
		pb_fail(pb, *pp, "bad protobuf field key");
	f->num = (uint32_t)(key >> 3);
	f->wire = key & 7;
	if (!f->num || key >> 3 > 536870911)
		pb_fail(pb, *pp, "bad protobuf field number");
	switch (f->wire) {
	case 0:
		if (get_varint(pp, end, &f->v))
			pb_fail(pb, *pp, "bad protobuf varint");
		break;
	case 1:
		if (end - *pp < 8)
			pb_fail(pb, *pp, "protobuf fixed64 past the end");
		f->v = get_le64(*pp);
		*pp += 8;
		break;
	case 2:
		if (get_varint(pp, end, &len) || len > (uint64_t)(end - *pp))
			pb_fail(pb, *pp, "protobuf length past the end of its message");
		f->p = *pp;
		f->len = (size_t)len;
		*pp += len;
		break;
	case 5:
		if (end - *pp < 4)
			pb_fail(pb, *pp, "protobuf fixed32 past the end");
		f->v = get_le32(*pp);
		*pp += 4;
		break;
	default:
		pb_fail(pb, *pp, "protobuf wire type frec never writes");
	}
	return 1;
}

/* Every field of a message is well-formed; nested messages are checked by
 * the callers that know which fields are messages. */
static void pb_message(const struct pb *pb, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	struct pb_field f;

	while (pb_next(pb, &p, end, &f))
		;
}

static uint64_t pb_packed_count(const struct pb *pb, const struct pb_field *f)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	uint64_t n = 0, v;

	if (f->wire != 2)
		pb_fail(pb, f->p, "compact_sched array is not packed");
	while (p < end) {
		if (get_varint(&p, end, &v))
			pb_fail(pb, p, "bad varint in a packed array");
		n++;
	}
	return n;
}

/* CompactSched: the five switch arrays have one entry per switch, the five
 * waking arrays one per waking, and comm indices point into the intern
 * table; Perfetto's importer drops the bundle otherwise. */
static void pb_compact_sched(const struct pb *pb, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len, *start = p;
	uint64_t count[16] = { 0 }, ninterned = 0, max_sw_comm = 0, max_wk_comm = 0, v;
	struct pb_field f;

	while (pb_next(pb, &p, end, &f)) {
		if (f.num == 5) {
			if (f.wire != 2)
				pb_fail(pb, p, "intern_table entry is not a string");
			ninterned++;
			continue;
		}
		if (f.num >= 16)
			continue;
		count[f.num] += pb_packed_count(pb, &f);
		if (f.num == 6 || f.num == 11) {
			const uint8_t *q = f.p, *qe = f.p + f.len;

			while (q < qe && !get_varint(&q, qe, &v)) {
				if (f.num == 6 && v + 1 > max_sw_comm)
					max_sw_comm = v + 1;
				if (f.num == 11 && v + 1 > max_wk_comm)
					max_wk_comm = v + 1;
			}
		}
	}
	for (unsigned i = 2; i <= 6; i++)
		if (i != 5 && count[i] != count[1])
			pb_fail(pb, start, "compact_sched switch arrays of different lengths");
	for (unsigned i = 8; i <= 11; i++)
		if (count[i] != count[7])
			pb_fail(pb, start, "compact_sched waking arrays of different lengths");
	if (max_sw_comm > ninterned || max_wk_comm > ninterned)
		pb_fail(pb, start, "compact_sched comm index past the intern table");
}

static void pb_bundle(const struct pb *pb, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	struct pb_field f;

	while (pb_next(pb, &p, end, &f)) {
		if (f.num == 2 && f.wire == 2) {
			/* FtraceEvent: its one len-delimited field is the event */
			const uint8_t *q = f.p, *qe = f.p + f.len;
			struct pb_field e;

			while (pb_next(pb, &q, qe, &e))
				if (e.wire == 2)
					pb_message(pb, e.p, e.len);
		} else if (f.num == 4) {
			if (f.wire != 2)
				pb_fail(pb, p, "compact_sched is not a message");
			pb_compact_sched(pb, f.p, f.len);
		}
	}
}

void fuzz_check__pprof(const char *what, const uint8_t *p, size_t n)
{
	struct pb pb = { .what = what, .base = p, .total = n };
	const uint8_t *end = p + n;
	struct pb_field f;
	bool first_string = true;

	/* Profile: its messages (sample 2, mapping 3, location 4, function 5)
	 * parse, and the string table (6) starts with "", as pprof requires */
	while (pb_next(&pb, &p, end, &f)) {
		if (f.num >= 2 && f.num <= 6 && f.wire != 2)
			pb_fail(&pb, p, "a Profile message or string is not length-delimited");
		if (f.num >= 2 && f.num <= 5)
			pb_message(&pb, f.p, f.len);
		if (f.num == 6) {
			if (first_string && f.len)
				pb_fail(&pb, p, "string_table[0] is not empty");
			first_string = false;
		}
	}
}

void fuzz_check__perfetto(const char *what, const uint8_t *p, size_t n)
{
	struct pb pb = { .what = what, .base = p, .total = n };
	const uint8_t *end = p + n;
	struct pb_field f;

	/* Trace: nothing but packets, field 1 */
	while (pb_next(&pb, &p, end, &f)) {
		const uint8_t *q, *qe;
		struct pb_field t;

		if (f.num != 1 || f.wire != 2)
			pb_fail(&pb, p, "top-level field is not Trace.packet");
		q = f.p;
		qe = f.p + f.len;
		while (pb_next(&pb, &q, qe, &t)) {
			switch (t.num) {
			case 1:		/* ftrace_events */
				if (t.wire != 2)
					pb_fail(&pb, q, "ftrace_events is not a message");
				pb_bundle(&pb, t.p, t.len);
				break;
			case 2:		/* process_tree */
			case 11:	/* track_event */
			case 60:	/* track_descriptor */
				if (t.wire != 2)
					pb_fail(&pb, q, "TracePacket message field is not a message");
				pb_message(&pb, t.p, t.len);
				break;
			default:
				break;
			}
		}
	}
}

/* --- gzip ----------------------------------------------------------------- */

static char *gz_buf;

const char *fuzz_check__gunzip(const char *what, const char *p, size_t n, size_t *outlen)
{
	z_stream zs;
	int rc;

	if (!gz_buf && !(gz_buf = malloc(FUZZ_SINK_CAP)))
		fuzz_fail("out of memory for gunzip");
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		fuzz_fail("inflateInit2 failed");
	zs.next_in = (Bytef *)p;
	zs.avail_in = (uInt)n;
	zs.next_out = (Bytef *)gz_buf;
	zs.avail_out = FUZZ_SINK_CAP;
	rc = inflate(&zs, Z_FINISH);
	*outlen = zs.total_out;
	inflateEnd(&zs);
	if (rc == Z_BUF_ERROR && !zs.avail_out)
		return NULL;
	if (rc != Z_STREAM_END)
		fuzz_fail("%s: gzip output does not inflate (zlib %d, %zu bytes)", what, rc, n);
	if (zs.avail_in)
		fuzz_fail("%s: %u bytes after the gzip stream", what, zs.avail_in);
	return gz_buf;
}
