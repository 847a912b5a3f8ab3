#!/bin/sh
# What frecd validated is what it probes: --probe names $WORK/link, which
# points to one; one and two are copies of probe_target, each already
# running. Between validating and attaching (--debug-attach-delay-ms), the
# link is swapped to two (mv -f link2 link) and one's name is given to a
# copy of two. frecd attaches the file it opened, one's first inode: N calls
# in each process give N hits, all from one. Attaching by the name given, or
# by the name the file had, would probe two or a file no process runs.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 200)
a=4 b=6
# Nothing of the test's may outlive it, even when it fails.
trap 'for p in ${one_pid:-} ${two_pid:-} ${swap_pid:-}; do kill -KILL "$p" 2>/dev/null; done; cleanup_frecd' EXIT
cp "$TARGET" one && cp "$TARGET" two && cp "$TARGET_LIB" . || fail "cannot copy the target"
ln -s one link || fail "cannot make the link"
"$WORK/one" "$n" 1 "$a" "$b" > one.out 2>&1 &
one_pid=$!
"$WORK/two" "$n" 1 "$a" "$b" > two.out 2>&1 &
two_pid=$!
wait_for one.out '^ready ' "one ready"
wait_for two.out '^ready ' "two ready"

# The swap, as soon as frecd has validated the file and before it attaches.
(
	wait_for "$WORK/frecd.log" "probe 1: validated $WORK/one " "frecd validating one"
	ln -s two link2 && mv -f link2 link && mv -f one one.validated && cp two one &&
		echo swapped > swap.out
) &
swap_pid=$!
probe="uprobe:$WORK/link:frec_target_fp"
mkdir snaps
start_frecd -o "$WORK/snaps" --probe "$probe" --debug-attach-delay-ms 3000
wait "$swap_pid"
assert_eq "the swap" swapped "$(cat swap.out 2>/dev/null)"
grep -q -- "--debug-attach-delay-ms: waiting 3000 ms before attaching the probes (a test option)" \
	"$WORK/frecd.log" || fail "frecd did not say it waits before attaching"
assert_eq "the link after the swap" two "$(readlink link)"

kill -USR1 "$one_pid" "$two_pid"
wait "$one_pid" || fail "one failed"
wait "$two_pid" || fail "two failed"
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
assert_eq "hits" "$n" "$(jcount dump.json type=uprobe probe="$probe")"
assert_eq "hits from one" "$n" "$(jcount dump.json type=uprobe probe="$probe" pid="$one_pid")"
assert_eq "hits from two" 0 "$(jcount dump.json type=uprobe probe="$probe" pid="$two_pid")"
exit 0
