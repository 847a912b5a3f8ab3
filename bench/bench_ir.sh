#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench-ir: the recorder's and the drain's instructions per event, counted
# by callgrind.
#
# Time per event swings by half on a shared VM from one minute to the next,
# so two builds of the encoder can only be ranked by many alternating
# runs. The number of instructions the push path executes is the same in
# every run of the same build: a figure to compare builds by, beside the
# timed one (bench-core, bench-drain), not in place of it (a cache miss
# costs no instruction).
#
# small, large: every instruction under frec_recorder__push() (decode,
# task table, encode, and the seals and evictions a push sets off),
# frec_recorder__prefetch() and frec_recorder__tick(), over all the
# records bench_core --once pushes (warm-ups included), divided by their
# number. Not counted: making the records, and the snapshot written at
# the end.
#
# drain: every instruction of bench_drain's drains (frecd's ring reader,
# src/frecd/ring.c: the merge of 2 CPUs' rings, the look-ahead, and the
# recorder behind it, with its ticks), over the 1,000,000 records they
# take. Not counted: the producer, and the floor run of the same records
# pushed straight.
#
#   bench_ir.sh BENCH_CORE BENCH_DRAIN OUTDIR [small|large|drain ...]
set -eu

core=$1
drain=$2
out=$3
shift 3
[ $# -gt 0 ] || set -- small large drain

if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench-ir: valgrind not found: run scripts/deps.sh (it installs valgrind)" >&2
	exit 1
fi

DRAIN_EVENTS=1000000

for mix in "$@"; do
	cg=$out/bench-ir-$mix.callgrind
	log=$out/bench-ir-$mix.txt
	case $mix in
	small|large)
		set -- --toggle-collect='frec_recorder__push*' \
			--toggle-collect='frec_recorder__prefetch*' \
			--toggle-collect='frec_recorder__tick*' \
			"$core" --once --only "$mix" "$out/bench-ir-$mix.json"
		what="bench_core --once --only $mix"
		;;
	drain)
		set -- --toggle-collect='drain' \
			"$drain" --cpus 2 --events $DRAIN_EVENTS "$out/bench-ir-drain.json"
		what="bench_drain --cpus 2 --events $DRAIN_EVENTS"
		;;
	*)
		echo "bench-ir: '$mix' is not a mix; use small, large or drain" >&2
		exit 1
		;;
	esac
	if ! valgrind --tool=callgrind --callgrind-out-file="$cg" "$@" >"$log" 2>&1; then
		echo "bench-ir: $what failed under valgrind; see $log" >&2
		exit 1
	fi
	ir=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$cg" | tail -n 1)
	if [ "$mix" = drain ]; then
		n=$(sed -n 's/^bench-drain: \([0-9][0-9]*\) events,.*/\1/p' "$log")
		label="drain (2 CPUs' rings)"
	else
		n=$(sed -n 's/^bench-core: \([0-9][0-9]*\) records pushed in all$/\1/p' "$log")
		label="$mix mix"
	fi
	if [ -z "$ir" ] || [ -z "$n" ] || [ "$n" -eq 0 ] || [ "$ir" -eq 0 ]; then
		echo "bench-ir: no instruction count or no records in $cg, $log" >&2
		exit 1
	fi
	awk -v label="$label" -v ir="$ir" -v n="$n" 'BEGIN {
		printf "bench-ir: %s: %.1f instructions per event (%d records, %.0f instructions)\n",
		       label, ir / n, n, ir
	}'
done
