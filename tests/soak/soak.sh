#!/bin/sh
# Soak test (not part of `make test`): frecd recording everything under a
# constant context-switch load for a long time, a snapshot every few seconds.
# It reports what must stay flat or zero over hours: frecd's RSS, records
# dropped, errors, and how long each snapshot takes.
#
#   sudo sh tests/soak/soak.sh [-P] [-d SECONDS] [-i SECONDS] [-w DIR] [-- FRECD_ARGS...]
#
#   -d SECONDS  how long to run (default 1800, or $SOAK_DURATION)
#   -i SECONDS  snapshot interval (default 10, or $SOAK_INTERVAL)
#   -w DIR      keep the log, samples and last snapshots in DIR (default: a
#               new directory under $TMPDIR, printed at the end)
#   -P, --pid-wrap  churn pids through a lowered kernel.pid_max and check
#               every thread name (below); for a VM: it changes the machine
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
#
# --pid-wrap (-P): the load is tests/progs/pidchurn instead, forking
# short-lived children as fast as it can, each naming itself after its
# sequence number (some exec first), and logging which child had which pid
# when. kernel.pid_max is lowered to $SOAK_PID_MAX (default 4096) for the
# run, so that pids wrap every second or so, and set back on every exit
# (the script says so); $SOAK_CHURN_ARGS adds pidchurn options (-j
# forkers, -c children each, -x how often one execs). That is the whole
# machine's pid_max: run it in a VM, not on a shared host (`make test-vm`
# runs 40 s of it in the first VM of each kernel: FREC_VM_SOAK_SECONDS).
# A run in which no pid wrapped fails: it checked nothing about reuse.
# Every snapshot is kept, and at the end each is
# decoded with `frec dump` and checked by check_names.awk: every event that
# names a churned thread must name it as the child that had its pid then
# (or its parent, before its first rename); any wrong or stale name fails
# the run. The checker holds the churn log in memory (about 100 bytes per
# child). The summary adds how often pids wrapped, the events and names
# checked, mismatches, and the table bytes `frec status` reports.
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

PID_WRAP=0
PID_MAX=${SOAK_PID_MAX:-4096}

usage() {
	sed -n '6,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# --pid-wrap is -P (getopts knows no long options); FRECD_ARGS stay as given
n=$#
while [ $n -gt 0 ]; do
	a=$1; shift; n=$((n - 1))
	case $a in
	--pid-wrap) a=-P ;;
	--) set -- "$@" "$a"; while [ $n -gt 0 ]; do set -- "$@" "$1"; shift; n=$((n - 1)); done; break ;;
	esac
	set -- "$@" "$a"
done

while getopts d:i:w:Ph opt; do
	case $opt in
	d) DURATION=$OPTARG ;;
	i) INTERVAL=$OPTARG ;;
	w) work=$OPTARG ;;
	P) PID_WRAP=1 ;;
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

FRECD_PID="" LOAD_PID="" OLD_PID_MAX=""
stop_load() {
	[ -n "$LOAD_PID" ] || return 0
	kill -TERM "-$LOAD_PID" 2>/dev/null || kill -TERM "$LOAD_PID" 2>/dev/null
	[ "$PID_WRAP" -eq 1 ] && wait "$LOAD_PID" 2>/dev/null	# pidchurn flushes its log
	LOAD_PID=""
}
restore_pid_max() {
	[ -n "$OLD_PID_MAX" ] || return 0
	if echo "$OLD_PID_MAX" > /proc/sys/kernel/pid_max; then
		echo "soak: kernel.pid_max restored to $OLD_PID_MAX"
	else
		echo "soak: could not restore kernel.pid_max: set it back with sysctl kernel.pid_max=$OLD_PID_MAX" >&2
	fi
	OLD_PID_MAX=""
}
cleanup() {
	stop_load
	restore_pid_max
	[ -n "$FRECD_PID" ] && kill -TERM "$FRECD_PID" 2>/dev/null
	FRECD_PID=""
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- pid_max (--pid-wrap) ----------------------------------------------------
if [ "$PID_WRAP" -eq 1 ]; then
	[ -x "$PROGS/pidchurn" ] || { echo "soak: --pid-wrap needs tests/progs/pidchurn: build it (make progs)" >&2; exit 1; }
	case $PID_MAX in ''|*[!0-9]*) echo "soak: SOAK_PID_MAX '$PID_MAX' is not a number of pids" >&2; exit 2 ;; esac
	old=$(cat /proc/sys/kernel/pid_max 2>/dev/null)
	if [ -z "$old" ] || ! (echo "$PID_MAX" > /proc/sys/kernel/pid_max) 2>/dev/null; then
		echo "soak: cannot set kernel.pid_max to $PID_MAX (read-only /proc/sys, as in a container, or outside the kernel's 301..4194304): run --pid-wrap as root in a VM" >&2
		exit 1
	fi
	OLD_PID_MAX=$old
	echo "soak: kernel.pid_max lowered from $old to $PID_MAX for this run (it is the whole machine's)"
fi

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
churnlog=$work/churn.log
if [ "$PID_WRAP" -eq 1 ]; then
	: > "$churnlog"
	load_desc="pidchurn ${SOAK_CHURN_ARGS:-}(kernel.pid_max $PID_MAX)"
fi
if [ "$PID_WRAP" -eq 1 ]; then
	: # started below, on its own
elif [ -n "${SOAK_LOAD:-}" ]; then
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
# setsid: the loop (or pidchurn) and its children form one group, stopped
# together
if [ "$PID_WRAP" -eq 1 ]; then
	# shellcheck disable=SC2086 # SOAK_CHURN_ARGS: pidchurn options, split
	setsid "$PROGS/pidchurn" -o "$churnlog" ${SOAK_CHURN_ARGS:-} 2> "$work/churn.err" &
else
	setsid sh -c "while :; do $SOAK_LOAD >/dev/null 2>&1; done" &
fi
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
	# "... snapshot DIR/NAME: E events, L lost, B bytes (R recorded), M ms"
	file=$(echo "$line" | sed 's/.*: snapshot \(.*\): [0-9]* events.*/\1/')
	set -- $(echo "$line" | sed 's/.*: \([0-9]*\) events, \([0-9]*\) lost, \([0-9]*\) bytes[^,]*, \([0-9.]*\) ms.*/\1 \2 \3 \4/')
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
	# keep the newest two snapshots only; --pid-wrap checks them all at the end
	if [ "$PID_WRAP" -eq 1 ]; then
		echo "$file" >> "$work/snaps.list"
	else
		ls -t "$snaps"/*.frec 2>/dev/null | tail -n +3 | while read -r old; do rm -f "$old"; done
	fi
done

cpu=$(cpu_ticks "$FRECD_PID")
# how long the loop went without draining: a drop means a ring filled
# within one such wait
"$FREC" status --socket "$sock" > "$work/status.txt" 2>&1
stop_load
restore_pid_max
kill -TERM "$FRECD_PID" 2>/dev/null
wait "$FRECD_PID"
frecd_rc=$?
FRECD_PID=""
elapsed=$(( $(date +%s) - start ))

# --- names (--pid-wrap) ------------------------------------------------------
names_ok=0
if [ "$PID_WRAP" -eq 1 ]; then
	grep '^C ' "$churnlog" | sort -k2,2n -k6,6n > "$work/churn.sorted"
	while read -r f; do
		echo "#snapshot $f"
		"$FREC" dump "$f" || echo "#dump-failed $f"
	done < "$work/snaps.list" 2> "$work/dump.err" |
		awk -f "$here/check_names.awk" "$work/churn.sorted" - > "$work/names.txt"
	grep -q '^names: ' "$work/names.txt" || names_ok=1
	[ -s "$work/dump.err" ] && { names_ok=1; head -3 "$work/dump.err" | sed 's/^/#   /'; }
fi

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
if [ "$PID_WRAP" -eq 1 ]; then
	# W J FORKS EXECS WRAPS, one per forker: every forker sees each wrap
	awk '$1 == "W" { f += $3; x += $4; if ($5 > w) w = $5 }
	     END { printf "  churn: %d children (%d exec), pids wrapped %d times (kernel.pid_max '"$PID_MAX"')\n", f, x, w }' "$churnlog"
	sed -n 's/^names: snapshots \([0-9]*\) events \([0-9]*\) names \([0-9]*\) mismatches \([0-9]*\) unnamed \([0-9]*\) other \([0-9]*\) span_s \([0-9.]*\)/  names: \1 snapshots, \2 events of churned threads checked (\3 names, over \7 s), \4 mismatches, \5 unnamed; \6 names of other processes skipped/p' "$work/names.txt"
	sed -n '1,5s/^mismatch: /#   /p' "$work/names.txt"
	echo "  tables (frec status at the end): $(awk '$1 == "tables" { $1 = ""; sub(/^ +/, ""); print }' "$work/status.txt")"
	echo "  churn log: $churnlog, names: $work/names.txt"
fi
echo "  samples: $samples, log: $log"

ok=0
[ "$frecd_rc" -eq 0 ] || ok=1
[ "$errors" -eq 0 ] || { ok=1; grep 'frecd \(error\|warn\):' "$log" | head -5 | sed 's/^/#   /'; }
[ "$nfail" -eq 0 ] && [ "$ninfo_fail" -eq 0 ] && [ "$nsnap" -gt 0 ] || ok=1
if [ -n "$bound_kb" ]; then
	max=$(awk -F'\t' 'NR > 1 && $2 > m { m = $2 } END { print m + 0 }' "$samples")
	[ "$max" -le "$bound_kb" ] || ok=1
fi
if [ "$PID_WRAP" -eq 1 ]; then
	[ "$names_ok" -eq 0 ] || ok=1
	awk '/^names: / { bad = $9 > 0 || $5 == 0 } END { exit bad }' "$work/names.txt" || ok=1
	# a run in which no pid came back has checked nothing about reuse
	if ! awk '$1 == "W" && $5 > 0 { w = 1 } END { exit !w }' "$churnlog"; then
		ok=1
		echo "#   pids never wrapped: run longer (-d) or lower SOAK_PID_MAX ($PID_MAX)"
	fi
fi
[ $ok -eq 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $ok
