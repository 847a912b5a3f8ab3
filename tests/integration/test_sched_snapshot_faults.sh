#!/bin/sh
# A snapshot that cannot be written (disk full, directory gone) is logged,
# leaves no temporary file behind, and recording goes on: the next snapshot
# works once the cause is gone, and holds what happened in between.
. "$FREC_TEST_LIB"

failures() { grep -c "snapshot.* failed" "$WORK/frecd.log"; }

# --- disk full ----------------------------------------------------------------
mkdir small
mount -t tmpfs -o size=4m,mode=0700 frec-test "$WORK/small" || fail "cannot mount a tmpfs"
trap 'cleanup_frecd; umount "$WORK/small" 2> /dev/null' EXIT
start_frecd -o "$WORK/small" --max-size 1M
dd if=/dev/zero of="$WORK/small/fill" bs=4k > /dev/null 2>&1	# fills it up
kill -USR1 "$FRECD_PID"
wait_count "$WORK/frecd.log" "snapshot.* failed" 1 "the disk-full failure"
grep -q "No space left on device" "$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "ENOSPC not named"; }
assert_eq "files after a failed snapshot" "fill" "$(ls -A "$WORK/small")"
rm "$WORK/small/fill"
"$PROGS/forkexec" "$PROGS/forkexec" --exit 0 > fe.out || fail "forkexec failed"
snap=$(snapshot "$WORK/small")
dump_json "$snap" dump.json
assert_eq "exec after the failure, in the next snapshot" 1 \
	"$(jcount dump.json type=sched_process_exec pid="$(field fe.out child)")"
stop_frecd
umount "$WORK/small"

# --- directory gone -------------------------------------------------------------
mkdir -p parent/snaps
start_frecd -o "$WORK/parent/snaps"
rm -rf "$WORK/parent"
kill -USR1 "$FRECD_PID"
wait_count "$WORK/frecd.log" "snapshot.* failed" 1 "the missing-directory failure"
grep -q "its parent directory does not exist" "$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "ENOENT not named"; }
kill -0 "$FRECD_PID" || fail "frecd died"
# The parent is back: frecd creates the directory again itself.
mkdir "$WORK/parent"
"$PROGS/forkexec" "$PROGS/forkexec" --exit 0 > fe.out || fail "forkexec failed"
snap=$(snapshot "$WORK/parent/snaps")
dump_json "$snap" dump.json
assert_eq "exec after the failure, in the next snapshot" 1 \
	"$(jcount dump.json type=sched_process_exec pid="$(field fe.out child)")"
assert_eq "snapshot directory mode" drwx------ "$(ls -ld "$WORK/parent/snaps" | cut -c1-10)"
stop_frecd
exit 0
