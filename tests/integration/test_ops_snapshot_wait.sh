#!/bin/sh
# frec snapshot waits for its snapshot and prints its path, also when its
# request was merged into the next snapshot with others (SIGUSR1 and socket
# requests share one path); it exits 1 with frecd's reason when the snapshot
# fails, and recording goes on.
. "$FREC_TEST_LIB"

# --- many at once: every client gets a written file; every file was asked for --
mkdir -m 700 snaps
start_frecd -o "$WORK/snaps"
"$PROGS/forkexec" "$PROGS/forkexec" --exit 0 > fe.out || fail "forkexec failed"
k=8
i=0
pids=""
while [ $i -lt $k ]; do
	"$FREC" snapshot --reason "client $i" --socket "$FRECD_SOCKET" > "path.$i" 2> "err.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
kill -USR1 "$FRECD_PID"
for p in $pids; do
	wait "$p" || fail "a frec snapshot client exited $?"
done
i=0
while [ $i -lt $k ]; do
	[ -s "err.$i" ] && fail "client $i: $(cat "err.$i")"
	p=$(cat "path.$i")
	[ -f "$p" ] || fail "client $i was answered '$p', which is not a file"
	i=$((i + 1))
done
wait_count "$WORK/frecd.log" "frecd info: snapshot $WORK/snaps/frec-" 1 "a snapshot line"
answered=$(cat path.* | sort -u | wc -l)
files=$(ls snaps/*.frec | wc -l)
# the SIGUSR1 one may be a file nobody else asked for, or merged with them
[ "$files" -eq "$answered" ] || [ "$files" -eq $((answered + 1)) ] ||
	fail "$files snapshot files, $answered of them answered to clients"
assert_range "snapshot files for $k clients and a signal" 1 $((k + 1)) "$files"
assert_eq "snapshot log lines" "$files" "$(grep -c "frecd info: snapshot $WORK/snaps/frec-" "$WORK/frecd.log")"
note "$k clients and a SIGUSR1 gave $files snapshots"
# a merged request is answered by the snapshot after the one in progress: it
# holds what happened before the request, e.g. forkexec's exec
for p in $(cat path.* | sort -u); do
	dump_json "$p" dump.json
	assert_eq "forkexec's exec in $p" 1 "$(jcount dump.json type=sched_process_exec pid="$(field fe.out child)")"
done
stop_frecd

# --- a snapshot that fails: the client says why and exits 1 ------------------------
mkdir small
mount -t tmpfs -o size=4m,mode=0700 frec-test "$WORK/small" || fail "cannot mount a tmpfs"
trap 'cleanup_frecd; umount "$WORK/small" 2> /dev/null' EXIT
start_frecd -o "$WORK/small" --max-size 1M
dd if=/dev/zero of="$WORK/small/fill" bs=4k > /dev/null 2>&1	# fills it up
"$FREC" snapshot --socket "$FRECD_SOCKET" > out 2> err
assert_eq "failed snapshot: exit" 1 "$?"
assert_eq "failed snapshot: stdout" "" "$(cat out)"
assert_eq "failed snapshot: message" "frec snapshot: snapshot failed: No space left on device; recording goes on" "$(cat err)"
assert_eq "files after the failure" "fill" "$(ls -A "$WORK/small")"
rm "$WORK/small/fill"
p=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "the snapshot after the failure failed"
[ -f "$p" ] || fail "the snapshot after the failure: '$p'"
"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
assert_eq "status after a failure" "snapshots     1 written, 1 failed, none in progress" "$(grep '^snapshots' status.out)"
stop_frecd
umount "$WORK/small"

# --- the directory gone: the snapshot cannot start -----------------------------------
mkdir -p parent/snaps
chmod 700 parent/snaps
start_frecd -o "$WORK/parent/snaps"
rm -rf "$WORK/parent"
"$FREC" snapshot --socket "$FRECD_SOCKET" > out 2> err
assert_eq "no directory: exit" 1 "$?"
assert_eq "no directory: message" \
	"frec snapshot: snapshot failed: No such file or directory; recording goes on (see frecd's log)" "$(cat err)"
kill -0 "$FRECD_PID" || fail "frecd died"
stop_frecd
exit 0
