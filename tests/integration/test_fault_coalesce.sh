#!/bin/sh
# Requests that arrive while a snapshot is being written are merged into
# exactly one more snapshot, taken when that one is done (frecd --help,
# SIGNALS). --debug-writer-delay-ms holds every snapshot in the writer, so
# the requests are made, for certain, while the first one is in progress:
#
# 1. SIGUSR1; once the writer holds that snapshot, a `frec snapshot` request
#    (logged as merged), then 50 SIGUSR1 in a burst. frec status still shows
#    the first one in progress and none written: every request came during
#    the write.
# 2. Once frecd is idle: exactly 2 files, 2 written and 0 failed, the merge
#    logged once, no temporary file; both files read back with frec info and
#    hold events, the second ends later than the first and carries the
#    reason of the first request merged into it, and `frec snapshot` was
#    answered with it.
# 3. One more SIGUSR1 gives exactly a third file.
. "$FREC_TEST_LIB"

# Long enough for the requests of step 1 to arrive during the first write,
# with a wide margin (they take milliseconds); step 1 checks that they did.
delay=3000
merged="snapshot requested \(socket: coalesce\) while one is being written: one more will follow"
holding="snapshot writer: waiting $delay ms before writing"
written_re="snapshot $WORK/snaps/frec-[^ ]*: [0-9]+ events"

# info_val FILE KEY: KEY of frec info --json FILE
info_val() {
	"$FREC" info --json "$1" > info.json 2> info.err || { cat info.err >&2; fail "frec info $1 failed"; }
	jvals info.json "$2"
}

mkdir -m 700 snaps
start_frecd -o "$WORK/snaps" --period 100 --debug-writer-delay-ms $delay

# --- 1: requests while the first snapshot is held in the writer ----------------
kill -USR1 "$FRECD_PID"
wait_for "$WORK/frecd.log" "$holding" "the writer holding the first snapshot"
"$FREC" snapshot --reason coalesce --socket "$FRECD_SOCKET" > cli.out 2> cli.err &
cli=$!
wait_for "$WORK/frecd.log" "$merged" "the frec snapshot request merged"
i=0
while [ $i -lt 50 ]; do
	kill -USR1 "$FRECD_PID" || fail "frecd died during the burst (after $i signals)"
	i=$((i + 1))
done
# Not a timed assertion: if this fails, the requests came after the first
# write, and the test needs a longer --debug-writer-delay-ms.
assert_eq "snapshots after the burst" "0 written, 0 failed, one in progress" "$(snapshots_status)"

# --- 2: one merged snapshot for all of them --------------------------------------
wait_idle
wait $cli; rc=$?
[ $rc -eq 0 ] || { cat cli.err >&2; fail "frec snapshot exited $rc"; }
assert_eq "snapshots when idle" "2 written, 0 failed, none in progress" "$(snapshots_status)"
assert_eq "files in the snapshot directory" 2 "$(ls -A snaps | wc -l)"
assert_eq "files other than snapshots (temporary ones)" "" "$(ls -A snaps | grep -v '^frec-.*\.frec$')"
assert_eq "snapshots held by the writer" 2 "$(grep -c "$holding" "$WORK/frecd.log")"
assert_eq "snapshot lines in the log" 2 "$(grep -Ec "$written_re" "$WORK/frecd.log")"
assert_eq "merge messages in the log" 1 "$(grep -Ec "while one is being written" "$WORK/frecd.log")"
assert_eq "failures in the log" 0 "$(grep -c "snapshot[^;]* failed:" "$WORK/frecd.log")"
first=$(ls snaps/*.frec | sort | head -n 1)
second=$(ls snaps/*.frec | sort | tail -n 1)
assert_eq "frec snapshot's answer" "$WORK/$second" "$(cat cli.out)"

assert_eq "reason of $first" SIGUSR1 "$(info_val "$first" reason)"
events1=$(jvals info.json events)
last1=$(jvals info.json last_ts)
assert_eq "reason of $second" "socket: coalesce" "$(info_val "$second" reason)"
events2=$(jvals info.json events)
last2=$(jvals info.json last_ts)
note "first: $events1 events up to $last1 ns; second: $events2 events up to $last2 ns"
[ "$events1" -gt 0 ] || fail "$first holds no events"
[ "$events2" -gt 0 ] || fail "$second holds no events"
# taken after the first was written: it holds what happened meanwhile
[ "$last2" -gt "$last1" ] || fail "$second ends at $last2, not after $first ($last1)"

# --- 3: a request when idle: one more file, nothing left over ---------------------
kill -USR1 "$FRECD_PID"
wait_count "$WORK/frecd.log" "$holding" 3 "the writer holding the third snapshot"
wait_idle
assert_eq "snapshots after one more SIGUSR1" "3 written, 0 failed, none in progress" "$(snapshots_status)"
assert_eq "files after one more SIGUSR1" 3 "$(ls -A snaps | grep -c '^frec-.*\.frec$')"
assert_eq "files other than snapshots at the end" "" "$(ls -A snaps | grep -v '^frec-.*\.frec$')"
assert_eq "merge messages at the end" 1 "$(grep -Ec "while one is being written" "$WORK/frecd.log")"
third=$(ls snaps/*.frec | sort | tail -n 1)
[ "$(info_val "$third" events)" -gt 0 ] || fail "$third holds no events"
stop_frecd
exit 0
