#!/bin/sh
# sched_wakeup is off by default (sched_waking says the same, earlier) and
# recorded with --wakeup; the snapshot's configuration says which.
. "$FREC_TEST_LIB"

run() {
	mkdir "$1"; shift
	start_frecd -o "$WORK/$dir" "$@"
	mkfifo in
	"$PROGS/pingpong" 200 < in > "$dir.out" &
	pp=$!
	exec 3> in
	wait_for "$dir.out" '^done ' "pingpong done"
	snap=$(snapshot "$WORK/$dir")
	exec 3>&-
	wait $pp
	rm in
	stop_frecd
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
total=0
for t in ping pong; do
	tid=$(field "$dir.out" $t)
	wakeups=$(jcount wakeup.json type=sched_wakeup pid="$tid")
	note "$t: $(wakings $t wakeup.json) sched_waking, $wakeups sched_wakeup"
	# a waking that goes through ends in exactly one wakeup; all of them
	# were over before pingpong said done
	assert_eq "$t's sched_wakeup vs sched_waking" "$(wakings $t wakeup.json)" "$wakeups"
	assert_eq "$t's sched_wakeup naming $t" "$wakeups" "$(jcount wakeup.json type=sched_wakeup pid="$tid" comm=$t)"
	total=$((total + wakeups))
done
[ "$total" -gt 0 ] || fail "no sched_wakeup for ping or pong with --wakeup"
grep -q "^config:.*sched_wakeup on" wakeup.info || fail "frec info does not show that sched_wakeup was on"
! grep -q "^config:.*sched_wakeup on" default.info || fail "frec info says sched_wakeup was on by default"
exit 0
