#!/bin/sh
# A reload that arms a scheduler trigger kind loads a new program set: the
# -p filter (from the configuration file) must hold in it too. frecd follows
# pingpong a (pid = in its file); SIGHUP adds a runq> trigger that never
# fires; then both pingpongs run: the snapshot holds a's switches and
# wakeups and nothing about b, as test_sched_pid_filter checks without the
# reload.
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
cf="$WORK/frecd.conf"
printf 'output = %s\npid = %s\n' "$WORK/snaps" "$a" > "$cf"
start_frecd --config "$cf"
printf 'output = %s\npid = %s\ntrigger = runq>10s\n' "$WORK/snaps" "$a" > "$cf"
kill -HUP "$FRECD_PID" || fail "frecd is not running"
wait_for "$WORK/frecd.log" "frecd info: reloaded .* 1 triggers, filtered by -p" "the reload that arms runq>"
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
		else if (type == "lost" || type == "gap")
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
filtered=$(sed -n 's/.* lost, \([0-9]*\) filtered out.*/\1/p' "$WORK/frecd.log")
[ "${filtered:-0}" -gt 0 ] || fail "frecd counted no filtered events"
exit 0
