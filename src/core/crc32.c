// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CRC-32 by folding (see crc32.h for the contract).
 *
 * A reflected CRC is linear: the CRC register after a message, started at
 * state s, is the register after the message with s XORed into its first
 * four bytes, started at 0. And a 128-bit piece of the message followed by
 * n more bits leaves the same remainder as that piece multiplied by x^n
 * modulo the polynomial P, followed by n zero bits. So the message can be
 * "folded": four 128-bit lanes, each multiplied forward by 512 bits and
 * XORed into the next 64 bytes, until less than 64 bytes are left; then
 * the lanes into one, 128 bits at a time. What remains is 16 bytes with
 * the same CRC (from state 0) as everything they replaced, which zlib's
 * tables finish, with the last bytes.
 *
 * Multiplying by x^n mod P splits into the two 64-bit halves of a lane,
 * each times a 33-bit constant, by PCLMULQDQ. The constants are those of
 * Intel's white paper "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ Instruction" (2009) for the reflected IEEE polynomial, as the
 * kernel also uses them (arch/x86/crypto): for the lane's low half
 * x^(n+32) mod P, for its high half x^(n-32) mod P, bit-reflected and
 * shifted by one for the reflected product.
 */
#include <limits.h>
#include <stdbool.h>
#include <zlib.h>
#include "crc32.h"

uint32_t frec_crc32_tables(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	/* zlib takes a uInt length */
	while (len) {
		uInt n = len > UINT_MAX / 2 ? UINT_MAX / 2 : (uInt)len;

		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FOLD_512_LO	0x154442bd4ull	/* x^(512+32) mod P */
#define FOLD_512_HI	0x1c6e41596ull	/* x^(512-32) mod P */
#define FOLD_128_LO	0x1751997d0ull	/* x^(128+32) mod P */
#define FOLD_128_HI	0x0ccaa009eull	/* x^(128-32) mod P */

#define CLMUL __attribute__((target("pclmul,sse2")))

/* x moved forward by the distance k holds, XORed into data. */
static inline CLMUL __m128i fold(__m128i x, __m128i k, __m128i data)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi), data);
}

static inline CLMUL __m128i load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* len >= 64 */
static CLMUL uint32_t crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k512 = _mm_set_epi64x((long long)FOLD_512_HI, (long long)FOLD_512_LO);
	const __m128i k128 = _mm_set_epi64x((long long)FOLD_128_HI, (long long)FOLD_128_LO);
	__m128i x0, x1, x2, x3;
	uint8_t rest[16];

	/* zlib's crc is the register inverted: the register goes into the
	 * first four bytes */
	x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)~crc));
	x1 = load(p + 16);
	x2 = load(p + 32);
	x3 = load(p + 48);
	p += 64;
	len -= 64;
	for (; len >= 64; p += 64, len -= 64) {
		x0 = fold(x0, k512, load(p));
		x1 = fold(x1, k512, load(p + 16));
		x2 = fold(x2, k512, load(p + 32));
		x3 = fold(x3, k512, load(p + 48));
	}
	x0 = fold(x0, k128, x1);
	x0 = fold(x0, k128, x2);
	x0 = fold(x0, k128, x3);
	for (; len >= 16; p += 16, len -= 16)
		x0 = fold(x0, k128, load(p));
	/* 16 bytes whose CRC from a zero register is that of all before:
	 * zlib's from ~0 (a zero register), then on with the tail */
	_mm_storeu_si128((__m128i *)(void *)rest, x0);
	crc = (uint32_t)crc32(0xffffffffu, rest, sizeof(rest));
	return (uint32_t)crc32(crc, p, (uInt)len);
}

static bool have_clmul(void)
{
	static int known = -1;	/* 0 or 1 once read; every thread reads the same */
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v;
}

uint32_t frec_crc32(uint32_t crc, const void *buf, size_t len)
{
	/* below 64 bytes the tables' few steps cost less than the set-up */
	if (len >= 64 && have_clmul())
		return crc32_clmul(crc, buf, len);
	return frec_crc32_tables(crc, buf, len);
}

#else	/* no carry-less multiply known here */

uint32_t frec_crc32(uint32_t crc, const void *buf, size_t len)
{
	return frec_crc32_tables(crc, buf, len);
}

#endif
