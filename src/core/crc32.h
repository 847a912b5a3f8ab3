/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CRC-32 of the file format: zlib's crc32() (the IEEE 802.3
 * polynomial, bit-reflected, inverted on entry and on exit), the same
 * value for every input, computed by carry-less multiplication where the
 * CPU has it (x86-64 PCLMULQDQ) and by zlib's tables elsewhere.
 *
 * Why not zlib's alone: every generation is checksummed when it is sealed,
 * whether or not a snapshot ever writes it, and zlib's tables take about
 * 3.5 instructions a byte: 20-30 instructions of each recorded event's
 * 380-460 in `make bench-ir`. Folding 64 bytes at a time takes a tenth
 * of that.
 *
 * Chains like zlib's: frec_crc32(frec_crc32(0, a, n), b, m) is the CRC of
 * a then b. Any thread; no state beyond the CPU's features, read once.
 */
#ifndef FREC_CORE_CRC32_H
#define FREC_CORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t frec_crc32(uint32_t crc, const void *buf, size_t len);

/* zlib's tables only, whatever the CPU: for tests and benchmarks. */
uint32_t frec_crc32_tables(uint32_t crc, const void *buf, size_t len);

#endif /* FREC_CORE_CRC32_H */
