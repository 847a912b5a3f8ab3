#!/bin/sh
# valgrind memcheck over the frec command: every reading subcommand on every
# snapshot of the fuzzing corpus (real recordings, generated corner cases,
# damaged files, regression inputs found by the fuzzers). Fails on any
# memcheck error or leak, and on an exit status frec never gives for a file
# (only 0, 1 and 3 are; 2 is a usage error).
#
#   FREC=.output/frec sh tests/fuzz/valgrind.sh DIR...
#
# Called by `make test-valgrind` (part of `make test-fuzz`). Needs no root.
# The gcc-built .output/frec is checked, the binary users run; the fuzz
# targets cover the same code under clang's sanitizers.
set -u
FREC=${FREC:-.output/frec}
# 99, not 1: frec itself exits 1 for a file it cannot read
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed; run 'sudo make deps'" >&2
	exit 1
fi
[ $# -gt 0 ] || { echo "usage: valgrind.sh DIR..." >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/frec-vg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# valgrind's start-up (~0.4 s) dominates; two workers halve the wall time
JOBS=${VALGRIND_JOBS:-2}

# check WORKER FILE ARGS...: one frec run under memcheck
check() {
	w=$1 file=$2; shift 2
	runs=$((runs + 1))
	$VG "$FREC" "$@" "$file" > "$tmp/out.$w" 2> "$tmp/err.$w"
	rc=$?
	case $rc in
	0|1|3) return 0 ;;
	99) why="memcheck errors" ;;
	*) why="exit status $rc" ;;
	esac
	fails=$((fails + 1))
	echo "FAIL: frec $* $file: $why"
	grep -v '^frec: ' "$tmp/err.$w" | head -40 | sed 's/^/#   /'
}

# worker W: every JOBS-th file from the W-th
worker() {
	w=$1 n=0 runs=0 fails=0
	for dir in $dirs; do
		for f in "$dir"/*; do
			[ -f "$f" ] || continue
			n=$((n + 1))
			[ $((n % JOBS)) -eq "$w" ] || continue
			check "$w" "$f" info
			check "$w" "$f" info --json
			check "$w" "$f" dump
			check "$w" "$f" dump --json
			check "$w" "$f" report
			check "$w" "$f" report --json --top 3
			check "$w" "$f" export --format perfetto -o "$tmp/trace.$w"
			check "$w" "$f" export --format chrome --gzip -o "$tmp/trace.$w"
		done
	done
	echo "$runs $fails $n" > "$tmp/count.$w"
}

dirs="$*"
w=0
while [ $w -lt "$JOBS" ]; do
	worker $w > "$tmp/log.$w" 2>&1 &
	w=$((w + 1))
done
wait
runs=0 fails=0 files=0 w=0
while [ $w -lt "$JOBS" ]; do
	cat "$tmp/log.$w"
	read -r r f n < "$tmp/count.$w" || { echo "FAIL: valgrind worker $w died"; f=1; }
	runs=$((runs + ${r:-0})) fails=$((fails + ${f:-1})) files=${n:-0}
	w=$((w + 1))
done
echo "valgrind: $runs runs of frec over $files files, $fails failed"
[ $fails -eq 0 ]
