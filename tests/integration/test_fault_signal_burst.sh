#!/bin/sh
# 200 SIGUSR1 in a burst: frecd survives, every file it writes is valid, and
# requests are merged, as documented (frecd --help, README): signals of one
# kind do not queue, and requests that arrive while a snapshot is being
# written give one more snapshot when it is done, not one each.
#
# 1. While frecd is stopped (SIGSTOP), 200 SIGUSR1 are one pending signal:
#    exactly one snapshot after SIGCONT.
# 2. While it runs and records a busy machine, 200 SIGUSR1 as fast as the
#    shell sends them: at least one snapshot, each logged once, valid for
#    frec info, none failed, no temporary file left; frecd still takes a
#    snapshot afterwards and stops with exit 0.
. "$FREC_TEST_LIB"

burst() {
	i=0
	while [ $i -lt 200 ]; do
		kill -USR1 "$FRECD_PID" || fail "frecd died during the burst (after $i signals)"
		i=$((i + 1))
	done
}
written() { grep -Ec "snapshot .*: [0-9]+ events" "$WORK/frecd.log"; }

mkdir snaps
start_frecd -o "$WORK/snaps"

# --- 1: stopped ------------------------------------------------------------------
kill -STOP "$FRECD_PID"
burst
kill -CONT "$FRECD_PID"
wait_count "$WORK/frecd.log" "snapshot .*: [0-9]+ events" 1 "the snapshot after the stopped burst"
# One more request, answered by the next file: had the burst left anything
# pending, it would be merged into this one (frecd is idle only after it).
snapshot "$WORK/snaps" > /dev/null
assert_eq "snapshots from 200 SIGUSR1 sent while stopped, then 1" 2 "$(ls "$WORK/snaps" | wc -l)"

# --- 2: running, under load ----------------------------------------------------
"$PROGS/pingpong" "$(scaled 200000)" < /dev/null > pp.out 2>&1 &
load=$!
burst
wait $load || fail "pingpong failed"
wait_count "$WORK/frecd.log" "snapshot .*: [0-9]+ events" 3 "a snapshot after the running burst"
kill -0 "$FRECD_PID" || fail "frecd died after the burst"
last=$(snapshot "$WORK/snaps")
stop_frecd		# finishes a snapshot in progress, drops a pending one

files=$(ls "$WORK/snaps" | grep -c '\.frec$')
from_burst=$((files - 3))
merged=$(grep -c "while one is being written" "$WORK/frecd.log")
note "200 SIGUSR1 while running gave $from_burst snapshots; $merged merge messages"
assert_range "snapshots from the running burst" 1 200 "$from_burst"
assert_eq "snapshot lines in the log" "$files" "$(written)"
assert_eq "failed snapshots" 0 "$(grep -c "snapshot[^;]* failed:" "$WORK/frecd.log")"
assert_eq "files other than snapshots" "" "$(ls -A "$WORK/snaps" | grep -v '\.frec$')"
for f in "$WORK"/snaps/*.frec; do
	"$FREC" info "$f" > info.out 2>&1 || { cat info.out >&2; fail "frec info $f failed"; }
	grep -q SIGUSR1 info.out || fail "$f: no SIGUSR1 reason"
	assert_eq "log lines for $f" 1 "$(grep -c "snapshot $f: [0-9]* events" "$WORK/frecd.log")"
done
"$FREC" dump "$last" > /dev/null || fail "frec dump $last failed"
exit 0
