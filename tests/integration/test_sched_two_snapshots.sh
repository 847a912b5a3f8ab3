#!/bin/sh
# Two SIGUSR1 in a row give two valid files that frec info reads; the names
# sort by time; no temporary file is left behind. Requests sent while a
# snapshot is written are merged into one more snapshot, never lost.
. "$FREC_TEST_LIB"

mkdir snaps
start_frecd -o "$WORK/snaps"
first=$(snapshot "$WORK/snaps")
second=$(snapshot "$WORK/snaps")
[ "$first" != "$second" ] || fail "the second snapshot has the first one's name"
assert_eq "files" 2 "$(ls "$WORK/snaps" | wc -l)"
assert_eq "the later name sorts last" "$second" "$(printf '%s\n%s\n' "$second" "$first" | LC_ALL=C sort | tail -n 1)"
case $(basename "$first") in
frec-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9].[0-9][0-9][0-9]Z*.frec) ;;
*) fail "unexpected snapshot name $(basename "$first")" ;;
esac
for f in "$first" "$second"; do
	"$FREC" info "$f" > info.out 2>&1 || { cat info.out >&2; fail "frec info $f failed"; }
	grep -q SIGUSR1 info.out || { cat info.out >&2; fail "frec info $f: no SIGUSR1 reason"; }
	n=$(grep -c "snapshot $f: [0-9]* events" "$WORK/frecd.log")
	assert_eq "log lines for $f" 1 "$n"
done

# A burst: signals of one kind do not queue, and those that arrive while a
# snapshot is written are merged into one more, so a burst gives at least
# one file and never more than one per signal. How many depends on when each
# kill lands against a write of a few milliseconds (all three may come
# apart under emulation); test_fault_coalesce holds the writer to prove the
# merge itself.
kill -USR1 "$FRECD_PID"; kill -USR1 "$FRECD_PID"; kill -USR1 "$FRECD_PID"
wait_count "$WORK/frecd.log" "snapshot .*: [0-9]+ events" 3 "a snapshot after the burst"
stop_frecd	# finishes any snapshot in progress first
burst=$(( $(ls "$WORK/snaps" | wc -l) - 2 ))
merged=$(grep -c "while one is being written" "$WORK/frecd.log")
note "a burst of 3 SIGUSR1: $burst snapshots, $merged merge messages"
assert_range "snapshots from a burst of 3 SIGUSR1" 1 3 "$burst"
assert_eq "temporary files left" "" "$(ls -A "$WORK/snaps" | grep -v '\.frec$')"
exit 0
