#!/bin/sh
# sched_wakeup is off by default (sched_waking says the same, earlier) and
# recorded with --wakeup; the snapshot's configuration says which. With
# --wakeup, each sched_waking of pingpong's threads is followed by exactly
# one sched_wakeup, in time order (sched_lib.sh, wake_pairs, says why).
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

# run DIR FRECD_ARGS...: pingpong 200 rounds while frecd records, a snapshot
# once both threads block for good; DIR.json is its dump, DIR.out pingpong's.
# The window (an hour) holds the whole run however slow the machine, so no
# generation is evicted. pingpong starts after frecd is ready, and the
# snapshot comes after "done": each thread has then had the wakeup that let
# it finish and blocks on a pipe that nothing writes until the test closes
# stdin, so none of their wakeups can come after the snapshot.
run() {
	dir=$1; shift
	mkdir "$dir"
	start_frecd -o "$WORK/$dir" --window 3600 "$@"
	mkfifo in
	exec 3<> in
	"$PROGS/pingpong" 200 < in > "$dir.out" 3>&- &
	pp=$!
	SCHED_PIDS="$SCHED_PIDS $pp"
	wait_for "$dir.out" '^done ' "pingpong done"
	snap=$(snapshot "$WORK/$dir")
	exec 3>&-
	wait_gone "$pp" "pingpong, its stdin closed" || fail "pingpong failed"
	rm in
	frecd_stop
	dump_json "$snap" "$dir.json"
	"$FREC" info "$snap" > "$dir.info" || fail "frec info failed"
}

# wakings NAME FILE: sched_waking events of pingpong's thread NAME
wakings() { jcount "$2" type=sched_waking pid="$(field "$dir.out" "$1")"; }

dir=default; run "$dir"
assert_eq "sched_wakeup events by default" 0 "$(jcount default.json type=sched_wakeup)"
# At least one of the two sleeps while it waits for the other.
[ $(($(wakings ping default.json) + $(wakings pong default.json))) -gt 0 ] ||
	fail "no sched_waking for ping or pong"

dir=wakeup; run "$dir" --wakeup
assert_eq "drops" 0 "$(jcount wakeup.json type=lost)"
total=0
for t in ping pong; do
	tid=$(field "$dir.out" $t)
	wakes=$(wakings $t wakeup.json)
	wakeups=$(jcount wakeup.json type=sched_wakeup pid="$tid")
	note "$t: $wakes sched_waking, $wakeups sched_wakeup"
	r=$(wake_pairs wakeup.json "$tid")
	case $r in
	ok*) ;;
	*) fail "$t's ($tid) sched_waking and sched_wakeup: $r" ;;
	esac
	assert_eq "$t's sched_waking/sched_wakeup pairs" "$wakes" "${r#ok }"
	# Named pingpong until the thread renames itself, then $t: a wakeup
	# before its rename (it slept before it got there) is named pingpong.
	assert_names wakeup.json "$tid" "$t"
	total=$((total + wakeups))
done
[ "$total" -gt 0 ] || fail "no sched_wakeup for ping or pong with --wakeup"
grep -q "^config:.*sched_wakeup on" wakeup.info || fail "frec info does not show that sched_wakeup was on"
! grep -q "^config:.*sched_wakeup on" default.info || fail "frec info says sched_wakeup was on by default"
exit 0
