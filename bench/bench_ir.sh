#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench-ir: the recorder's instructions per event, counted by callgrind.
#
# Time per event swings by half on a shared VM from one minute to the next,
# so two builds of the encoder can only be ranked by many alternating
# runs. The number of instructions the push path executes is the same in
# every run of the same build: a figure to compare builds by, beside the
# timed one (bench-core), not in place of it (a cache miss costs no
# instruction).
#
# Counted: every instruction under frec_recorder__push() (decode, task
# table, encode, and the seals and evictions a push sets off),
# frec_recorder__prefetch() and frec_recorder__tick(), over all the
# records bench_core --once pushes (warm-ups included), divided by their
# number. Not counted: making the records, and the snapshot written at
# the end.
#
#   bench_ir.sh BENCH_CORE OUTDIR [small|large ...]
set -eu

bench=$1
out=$2
shift 2
[ $# -gt 0 ] || set -- small large

if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench-ir: valgrind not found: run scripts/deps.sh (it installs valgrind)" >&2
	exit 1
fi

for mix in "$@"; do
	cg=$out/bench-ir-$mix.callgrind
	log=$out/bench-ir-$mix.txt
	if ! valgrind --tool=callgrind --callgrind-out-file="$cg" \
		--toggle-collect='frec_recorder__push*' \
		--toggle-collect='frec_recorder__prefetch*' \
		--toggle-collect='frec_recorder__tick*' \
		"$bench" --once --only "$mix" "$out/bench-ir-$mix.json" >"$log" 2>&1; then
		echo "bench-ir: bench_core --once --only $mix failed under valgrind; see $log" >&2
		exit 1
	fi
	ir=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$cg" | tail -n 1)
	n=$(sed -n 's/^bench-core: \([0-9][0-9]*\) records pushed in all$/\1/p' "$log")
	if [ -z "$ir" ] || [ -z "$n" ] || [ "$n" -eq 0 ]; then
		echo "bench-ir: no instruction count or no records in $cg, $log" >&2
		exit 1
	fi
	awk -v mix="$mix" -v ir="$ir" -v n="$n" 'BEGIN {
		printf "bench-ir: %s mix: %.1f instructions per event (%d records, %.0f instructions)\n",
		       mix, ir / n, n, ir
	}'
done
