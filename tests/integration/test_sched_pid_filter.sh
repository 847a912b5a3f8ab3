#!/bin/sh
# -p PID keeps only the events that concern that process and its threads:
# two identical workloads run, frecd follows one; the snapshot holds the
# followed one's switches and wakeups and nothing about the other.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

# Every wait is bounded and says what it waited for (sched_lib.sh): the
# fifos are opened read-write first (Linux never blocks that open, whereas a
# write-only open waits for a reader, forever if a pingpong never starts);
# the pingpongs do not inherit the test's ends (3>&- 4>&-), so they see EOF
# when the test closes them; a process that should exit gets 60 s.
n=$(scaled 500)
mkfifo ina inb
exec 3<> ina 4<> inb
"$PROGS/pingpong" -w "$n" < ina > a.out 3>&- 4>&- &
pa=$!
"$PROGS/pingpong" -w "$n" < inb > b.out 3>&- 4>&- &
pb=$!
SCHED_PIDS="$SCHED_PIDS $pa $pb"
wait_for a.out '^pong ' "pingpong a ready"
wait_for b.out '^pong ' "pingpong b ready"
a=$(field a.out pid)
b=$(field b.out pid)

mkdir snaps
# -p takes a thread id too: it means the thread's process.
start_frecd -o "$WORK/snaps" -p "$(field a.out ping)"
echo go >&3
echo go >&4
wait_for a.out '^done ' "pingpong a done"
wait_for b.out '^done ' "pingpong b done"
snap=$(snapshot "$WORK/snaps")
exec 3>&- 4>&-
wait_gone "$pa" "pingpong a, its stdin closed" || fail "pingpong a failed"
wait_gone "$pb" "pingpong b, its stdin closed" || fail "pingpong b failed"
frecd_stop
dump_json "$snap" dump.json

tids_a="$a $(field a.out ping) $(field a.out pong)"
tids_b="$b $(field b.out ping) $(field b.out pong)"
# followed: both threads' switches and wakeups are there
for t in ping pong; do
	tid=$(field a.out $t)
	[ "$(jcount dump.json type=sched_switch prev_pid="$tid")" -gt 0 ] || fail "no switch of a's $t"
	[ "$(jcount dump.json type=sched_waking pid="$tid")" -gt 0 ] || fail "no waking of a's $t"
done
# every event concerns a: a switch has a's thread on one side, any other
# event names one of a's threads as its pid
bad=$(awk -v a="$tids_a" "$jq_awk"'
	BEGIN { split(a, t, " "); for (i in t) keep[t[i]] = 1 }
	{
		type = jget($0, "type")
		if (type == "sched_switch")
			ok = (jget($0, "prev_pid") in keep) || (jget($0, "next_pid") in keep)
		else if (type == "sched_process_fork")
			ok = (jget($0, "parent_pid") in keep) || (jget($0, "child_pid") in keep)
		else if (type == "lost")
			ok = 1
		else
			ok = jget($0, "pid") in keep
		if (!ok) { print; exit }
	}' dump.json)
[ -z "$bad" ] || fail "an event that does not concern $a: $bad"
# b's threads appear only on the other side of a switch with one of a's
for tid in $tids_b; do
	assert_eq "wakings of b's $tid" 0 "$(jcount dump.json type=sched_waking pid="$tid")"
done
b_alone=$(($(jcount dump.json type=sched_switch prev_pid="$(field b.out ping)") + \
	$(jcount dump.json type=sched_switch prev_pid="$(field b.out pong)")))
note "switches from b's ping and pong (to one of a's threads): $b_alone"
grep -q "filtered by -p" "$WORK/frecd.log" || fail "the ready line does not mention the filter"
filtered=$(sed -n 's/.* lost, \([0-9]*\) filtered out.*/\1/p' "$WORK/frecd.log")
[ "${filtered:-0}" -gt 0 ] || fail "frecd counted no filtered events"
exit 0
