#!/bin/sh
# The snapshot directory removed or replaced while frecd runs. frecd checks
# it again before each snapshot and never follows what was put in its place
# unless that passes the checks frecd makes at start:
#  - renamed away and a symbolic link to another directory put there: the
#    snapshot is skipped (logged), nothing is written through the link or
#    into the renamed directory;
#  - a file put there: skipped, the file untouched;
#  - a directory writable by others put there: skipped, nothing written in it;
#  - made private (0700): used, and the snapshot holds what happened during
#    the failures (recording went on);
#  - the directory frecd uses made writable by others, or given to another
#    user: skipped until it is put back;
#  - removed: created again (0700) at the next snapshot.
# frecd keeps running throughout and exits 0.
. "$FREC_TEST_LIB"

failed=0
# expect_failure CAUSE: SIGUSR1 gives one more failure line naming CAUSE.
expect_failure() {
	failed=$((failed + 1))
	kill -USR1 "$FRECD_PID" || fail "frecd died"
	wait_count "$WORK/frecd.log" "snapshot failed: " $failed "failure $failed ($1)"
	grep "snapshot failed: " "$WORK/frecd.log" | tail -n 1 | grep -qF -e "$1" ||
		{ cat "$WORK/frecd.log" >&2; fail "failure $failed does not name '$1'"; }
	kill -0 "$FRECD_PID" || fail "frecd died after failure $failed ($1)"
}
files_in() { ls -A "$1" | wc -l; }

mkdir snaps elsewhere
chmod 0700 snaps elsewhere
start_frecd -o "$WORK/snaps"
snapshot "$WORK/snaps" > /dev/null

# --- a symbolic link in its place ---------------------------------------------
mv snaps moved
ln -s "$WORK/elsewhere" snaps
expect_failure "-o $WORK/snaps: is a symbolic link, which frecd does not follow"
assert_eq "files written through the link" 0 "$(files_in elsewhere)"
assert_eq "files in the renamed directory" 1 "$(files_in moved)"

# --- a file in its place ----------------------------------------------------------
rm snaps
echo "not a directory" > snaps
expect_failure "-o $WORK/snaps: not a directory"
assert_eq "the file in its place" "not a directory" "$(cat snaps)"

# --- a directory writable by others in its place -----------------------------------
rm snaps
mkdir snaps
chmod 0777 snaps
expect_failure "-o $WORK/snaps: writable by group or others (mode 0777)"
assert_eq "files in a directory writable by others" 0 "$(files_in snaps)"

# --- made private: used, and recording went on ---------------------------------------
chmod 0700 snaps
"$PROGS/forkexec" "$PROGS/forkexec" --exit 0 > fe.out || fail "forkexec failed"
snap=$(snapshot "$WORK/snaps")
grep -q "snaps was removed or replaced: snapshots go to the directory now there" "$WORK/frecd.log" ||
	fail "the switch to the new directory is not logged"
dump_json "$snap" dump.json
assert_eq "exec during the failures, in the next snapshot" 1 \
	"$(jcount dump.json type=sched_process_exec pid="$(field fe.out child)")"

# --- the directory in use made writable by others, then given away ------------------
chmod 0757 snaps
expect_failure "-o $WORK/snaps: writable by group or others (mode 0757)"
chmod 0700 snaps
chown 65534 snaps
expect_failure "-o $WORK/snaps: owned by uid 65534, not by root"
chown 0 snaps
assert_eq "files written while refused" 1 "$(files_in snaps)"
snapshot "$WORK/snaps" > /dev/null

# --- removed: created again -----------------------------------------------------------
rm -rf snaps
snap=$(snapshot "$WORK/snaps")
assert_eq "mode of the directory created again" drwx------ "$(ls -ld snaps | cut -c1-10)"
"$FREC" info "$snap" > /dev/null || fail "frec info $snap failed"

stop_frecd
assert_eq "failures logged" "$failed" "$(grep -c "snapshot failed: " "$WORK/frecd.log")"
assert_eq "snapshots written" 4 "$(grep -Ec "snapshot .*: [0-9]+ events" "$WORK/frecd.log")"
assert_eq "files anywhere but where they belong" "0 1" "$(files_in elsewhere) $(files_in moved)"
exit 0
