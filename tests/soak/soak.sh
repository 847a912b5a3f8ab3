#!/bin/sh
# Soak test (not part of `make test`): frecd recording everything under a
# constant context-switch load for a long time, a snapshot every few seconds.
# It reports what must stay flat or zero over hours: frecd's RSS, records
# dropped, errors, and how long each snapshot takes.
#
#   sudo sh tests/soak/soak.sh [-d SECONDS] [-i SECONDS] [-w DIR] [-- FRECD_ARGS...]
#
#   -d SECONDS  how long to run (default 1800, or $SOAK_DURATION)
#   -i SECONDS  snapshot interval (default 10, or $SOAK_INTERVAL)
#   -w DIR      keep the log, samples and last snapshots in DIR (default: a
#               new directory under $TMPDIR, printed at the end)
#   FRECD_ARGS  extra frecd options, e.g. --window 5 --max-size 32M
#
# Load: `perf bench sched pipe` in a loop (two processes ping-ponging through
# pipes, about as many context switches as this machine can make), or
# $SOAK_LOAD if set (a shell command run in a loop), or the pingpong test
# program when perf is missing. Every snapshot is checked with `frec info`.
#
# Output: samples.tsv (one line per snapshot: seconds since start, frecd RSS
# in KiB, frecd's own snapshot time in ms, events, records lost in the
# snapshot's window as frecd logs it, bytes, frec info's exit status and the
# drops it prints), frecd.log, and a summary
# on stdout, with the longest wait between two drains of the rings (frec
# status; each drop warning in the log names the longest wait before it).
# Exit status 0 when frecd ran and stopped cleanly, logged no error
# or warning, every snapshot was written and read back, and its RSS stayed
# under the design's bound (window bytes + ring bytes + 16 MiB); else 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/.output}
FRECD=${FRECD:-$OUTPUT/frecd}
FREC=${FREC:-$OUTPUT/frec}
PROGS=${PROGS:-$OUTPUT/tests}
DURATION=${SOAK_DURATION:-1800}
INTERVAL=${SOAK_INTERVAL:-10}
work=""

usage() {
	sed -n '6,14p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts d:i:w:h opt; do
	case $opt in
	d) DURATION=$OPTARG ;;
	i) INTERVAL=$OPTARG ;;
	w) work=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
case "$DURATION$INTERVAL" in *[!0-9]*) echo "soak: -d and -i take whole seconds" >&2; exit 2 ;; esac
[ "$INTERVAL" -ge 1 ] || { echo "soak: -i must be at least 1" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "soak: frecd loads BPF programs: run as root" >&2; exit 1; }
[ -x "$FRECD" ] && [ -x "$FREC" ] || { echo "soak: build first (make all progs)" >&2; exit 1; }

if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/frec-soak.XXXXXX") || exit 1
else
	mkdir -p "$work" || exit 1
fi
snaps=$work/snaps
rm -rf "$snaps"
mkdir -m 0700 "$snaps" || exit 1
log=$work/frecd.log
samples=$work/samples.tsv

FRECD_PID="" LOAD_PID=""
stop_load() {
	[ -n "$LOAD_PID" ] || return 0
	kill -TERM "-$LOAD_PID" 2>/dev/null || kill -TERM "$LOAD_PID" 2>/dev/null
	LOAD_PID=""
}
cleanup() {
	stop_load
	[ -n "$FRECD_PID" ] && kill -TERM "$FRECD_PID" 2>/dev/null
	FRECD_PID=""
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- frecd -------------------------------------------------------------------
: > "$log"	# before the loop below reads it, not when the background job gets to it
sock=$work/frecd.sock
"$FRECD" -o "$snaps" --socket "$sock" "$@" > "$log" 2>&1 &
FRECD_PID=$!
i=0
while ! grep -q ' ready' "$log"; do
	kill -0 "$FRECD_PID" 2>/dev/null || { cat "$log" >&2; echo "soak: frecd exited before ready" >&2; exit 1; }
	[ $i -lt 300 ] || { cat "$log" >&2; echo "soak: frecd not ready after 30 s" >&2; exit 1; }
	sleep 0.1; i=$((i + 1))
done

# --- load --------------------------------------------------------------------
if [ -n "${SOAK_LOAD:-}" ]; then
	load_desc=$SOAK_LOAD
elif command -v perf >/dev/null 2>&1 && perf bench sched pipe -l 10 >/dev/null 2>&1; then
	SOAK_LOAD="perf bench sched pipe -l 2000000"
	load_desc="perf bench sched pipe, in a loop"
elif [ -x "$PROGS/pingpong" ]; then
	SOAK_LOAD="$PROGS/pingpong -s 60 </dev/null"
	load_desc="pingpong -s 60, in a loop"
else
	echo "soak: no load: install perf, build the test programs (make progs) or set SOAK_LOAD" >&2
	exit 1
fi
# setsid: the loop and its children form one group, stopped together
setsid sh -c "while :; do $SOAK_LOAD >/dev/null 2>&1; done" &
LOAD_PID=$!

clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

echo "soak: $DURATION s, a snapshot every $INTERVAL s, load: $load_desc; frecd pid $FRECD_PID, work dir $work"
printf 't_s\trss_kb\tsnap_ms\tevents\tlost\tbytes\tinfo_rc\tdrops\n' > "$samples"
start=$(date +%s)
nsnap=0 nfail=0 ninfo_fail=0 bound_kb=""
next=$((start + INTERVAL))
while :; do
	now=$(date +%s)
	[ $((now - start)) -ge "$DURATION" ] && break
	if [ "$now" -lt "$next" ]; then
		sleep 1
		continue
	fi
	next=$((next + INTERVAL))
	kill -0 "$FRECD_PID" 2>/dev/null || { echo "soak: frecd died"; break; }
	rss=$(rss_kb "$FRECD_PID")
	done_before=$(grep -c 'frecd [a-z]*: snapshot ' "$log")
	kill -USR1 "$FRECD_PID"
	i=0
	while [ "$(grep -c 'frecd [a-z]*: snapshot ' "$log")" -le "$done_before" ]; do
		[ $i -lt 600 ] || break	# not a timing assertion: a stuck frecd must not hang the soak
		sleep 0.05; i=$((i + 1))
	done
	line=$(grep 'frecd [a-z]*: snapshot ' "$log" | tail -n 1)
	t=$(( $(date +%s) - start ))
	case $line in
	*" failed"*|"")
		nfail=$((nfail + 1))
		printf '%s\t%s\tfail\t0\t0\t0\t-\t0\n' "$t" "$rss" >> "$samples"
		continue ;;
	esac
	nsnap=$((nsnap + 1))
	# "... snapshot DIR/NAME: E events, L lost, B bytes, M ms"
	file=$(echo "$line" | sed 's/.*: snapshot \(.*\): [0-9]* events.*/\1/')
	set -- $(echo "$line" | sed 's/.*: \([0-9]*\) events, \([0-9]*\) lost, \([0-9]*\) bytes, \([0-9.]*\) ms.*/\1 \2 \3 \4/')
	events=${1:-0} lost=${2:-0} bytes=${3:-0} ms=${4:-0}
	"$FREC" info "$file" > "$work/info.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { ninfo_fail=$((ninfo_fail + 1)); sed 's/^/#   /' "$work/info.txt" | head -5; }
	drops=$(awk '/^drops:/ { print $2; exit }' "$work/info.txt")
	if [ -z "$bound_kb" ]; then
		# config: window 10.0 s, max-size 64 MiB, period ..., ring 16 MiB, ...
		bound_kb=$(awk '/^config:/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "max-size") mx = $(i + 1) * ($(i + 2) ~ /^GiB/ ? 1048576 : $(i + 2) ~ /^MiB/ ? 1024 : 1)
				if ($i == "ring") rg = $(i + 1) * ($(i + 2) ~ /^GiB/ ? 1048576 : $(i + 2) ~ /^MiB/ ? 1024 : 1)
			}
			if (mx && rg) print int(mx + rg + 16384) }' "$work/info.txt")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$rss" "$ms" "$events" "$lost" "$bytes" "$rc" \
		"${drops:-0}" >> "$samples"
	# keep the newest two snapshots only
	ls -t "$snaps"/*.frec 2>/dev/null | tail -n +3 | while read -r old; do rm -f "$old"; done
done

cpu=$(cpu_ticks "$FRECD_PID")
# how long the loop went without draining: a drop means a ring filled
# within one such wait
"$FREC" status --socket "$sock" > "$work/status.txt" 2>&1
stop_load
kill -TERM "$FRECD_PID" 2>/dev/null
wait "$FRECD_PID"
frecd_rc=$?
FRECD_PID=""
elapsed=$(( $(date +%s) - start ))

# --- summary -----------------------------------------------------------------
errors=$(grep -c 'frecd \(error\|warn\):' "$log")
recorded=$(sed -n 's/.*recorded \([0-9]*\) events, \([0-9]*\) lost.*/\1 \2/p' "$log" | tail -n 1)
echo
echo "soak summary ($elapsed s, load: $load_desc)"
echo "  frecd: exit $frecd_rc, CPU $(awk -v t="$cpu" -v h="$clk_tck" 'BEGIN { printf "%.1f", t / h }') s," \
	"recorded/lost: ${recorded:-unknown}, errors+warnings logged: $errors"
echo "  snapshots: $nsnap written, $nfail failed, $ninfo_fail unreadable by frec info"
echo "  drain (frec status at the end): $(awk '$1 == "drain" { $1 = ""; sub(/^ +/, ""); print }' "$work/status.txt")"
awk -F'\t' -v bound="${bound_kb:-0}" '
NR == 1 { next }
{
	n++; t[n] = $1; rss[n] = $2
	if ($3 != "fail") { m++; ms[m] = $3 + 0; if ($8 + 0 > maxdrops) maxdrops = $8 + 0
		ev += $4; by += $6 }
}
END {
	if (!n) { print "  no samples"; exit }
	min = max = rss[1]
	for (i = 1; i <= n; i++) { if (rss[i] < min) min = rss[i]; if (rss[i] > max) max = rss[i] }
	h = int(n / 2) + 1; hmin = hmax = rss[h]
	for (i = h; i <= n; i++) { if (rss[i] < hmin) hmin = rss[i]; if (rss[i] > hmax) hmax = rss[i] }
	printf "  RSS (KiB): first %d, min %d, max %d, last %d; second half %d..%d (spread %d)\n",
		rss[1], min, max, rss[n], hmin, hmax, hmax - hmin
	if (bound) printf "  RSS bound (window + ring + 16 MiB): %d KiB: %s\n", bound, max <= bound ? "kept" : "EXCEEDED"
	printf "  RSS over time (s:KiB):"
	step = n > 12 ? n / 12 : 1
	for (x = 1; x <= n; x += step) printf " %d:%d", t[int(x)], rss[int(x)]
	if (int(x - step) != n) printf " %d:%d", t[n], rss[n]
	printf "\n"
	if (m) {
		# sort the snapshot times (insertion sort: a few hundred at most)
		for (i = 2; i <= m; i++) { v = ms[i]; j = i - 1; while (j > 0 && ms[j] > v) { ms[j + 1] = ms[j]; j-- } ms[j + 1] = v }
		printf "  snapshot time (ms, frecd): min %.1f, median %.1f, p95 %.1f, max %.1f\n",
			ms[1], ms[int((m + 1) / 2)], ms[int(m * 0.95 + 0.999)], ms[m]
		printf "  per snapshot: %.0f events, %.0f bytes (mean); most drops in one snapshot (frec info): %d\n",
			ev / m, by / m, maxdrops
	}
}' "$samples"
echo "  samples: $samples, log: $log"

ok=0
[ "$frecd_rc" -eq 0 ] || ok=1
[ "$errors" -eq 0 ] || { ok=1; grep 'frecd \(error\|warn\):' "$log" | head -5 | sed 's/^/#   /'; }
[ "$nfail" -eq 0 ] && [ "$ninfo_fail" -eq 0 ] && [ "$nsnap" -gt 0 ] || ok=1
if [ -n "$bound_kb" ]; then
	max=$(awk -F'\t' 'NR > 1 && $2 > m { m = $2 } END { print m + 0 }' "$samples")
	[ "$max" -le "$bound_kb" ] || ok=1
fi
[ $ok -eq 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $ok
