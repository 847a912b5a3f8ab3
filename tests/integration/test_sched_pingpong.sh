#!/bin/sh
# Two named threads ping-pong through pipes exactly N times while frecd
# records. The snapshot holds their sched_switch events with the right names
# and tids, and their sched_waking events; how often each thread was switched
# out matches what the kernel counted in /proc/PID/task/TID/status.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

n=$(scaled 2000)
mkdir snaps
# The window (an hour) holds the whole run however slow the machine: no
# generation is evicted, so the snapshot holds both threads' whole lives.
start_frecd -o "$WORK/snaps" --window 3600

# The fifo opened read-write never blocks (a write-only open waits for a
# reader); pingpong does not inherit the test's end, so it sees EOF when the
# test closes it.
mkfifo in
exec 3<> in
"$PROGS/pingpong" "$n" < in > pp.out 3>&- &
pp=$!
SCHED_PIDS="$SCHED_PIDS $pp"
wait_for pp.out '^done ' "pingpong done"
pid=$(field pp.out pid)
ping=$(field pp.out ping)
pong=$(field pp.out pong)
assert_eq "rounds" "$n" "$(field pp.out done)"
# Both threads now block until stdin closes: their counts stay as they are.
ping_kernel=$(ctxt_switches "$pid" "$ping")
pong_kernel=$(ctxt_switches "$pid" "$pong")
voluntary() { awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$pid/task/$1/status"; }
ping_vol=$(voluntary "$ping")
pong_vol=$(voluntary "$pong")
note "kernel: ping $ping switched out $ping_kernel times, pong $pong $pong_kernel times"

snap=$(snapshot "$WORK/snaps")
exec 3>&-
wait_gone "$pp" "pingpong, its stdin closed" || fail "pingpong failed"
dump_json "$snap" dump.json

ping_out=$(jcount dump.json type=sched_switch prev_pid="$ping")
pong_out=$(jcount dump.json type=sched_switch prev_pid="$pong")
note "frec: ping switched out $ping_out times, pong $pong_out times"
# Each thread lived entirely while frecd recorded, and nothing was lost.
assert_eq "drops" 0 "$(jcount dump.json type=lost)"
assert_eq "ping switched out (frec vs kernel)" "$ping_kernel" "$ping_out"
assert_eq "pong switched out (frec vs kernel)" "$pong_kernel" "$pong_out"
# Each switch in matches a switch out (both block at the end, off the CPU),
# but for the switches the kernel does not report: on the 6.18 machine of
# this project's CI, no sched_switch (tracefs' or a BPF program's) ever has
# a thread of PID 1 as its prev, so a thread that such a thread preempted
# runs again with no switch-in. Such a switch-in shows as a break in its
# CPU's chain (a switch whose prev is not the CPU's last next) after a
# thread that has no switch-out at all in the snapshot; a break after any
# other thread would be a switch lost by frec, and fails.
awk -v ping="$ping" -v pong="$pong" "$jq_awk"'
	jget($0, "type") != "sched_switch" { next }
	{ c = jget($0, "cpu"); p = jget($0, "prev_pid"); outs[p]++ }
	(p == ping || p == pong) && (c in last) && last[c] != p { brk[p]++; after[p, brk[p]] = last[c] }
	{ last[c] = jget($0, "next_pid") }
	END {
		for (i = 0; i < 2; i++) {
			t = i ? pong : ping; bad = 0
			for (j = 1; j <= brk[t]; j++)
				if (outs[after[t, j]] || after[t, j] == ping || after[t, j] == pong)
					bad++
			print t, brk[t] + 0, bad
		}
	}' dump.json > breaks
for t in ping pong; do
	eval tid=\$$t out=\$${t}_out
	set -- $(grep "^$tid " breaks)
	unrep=$2 bad=$3
	[ "$unrep" -eq 0 ] || note "$t: $unrep switch-ins the kernel did not report (after a thread it reports no switch-out of)"
	assert_eq "$t: chain breaks after a thread whose switch-outs are in the snapshot" 0 "$bad"
	assert_eq "$t switched in (reported and not)" "$out" \
		"$(($(jcount dump.json type=sched_switch next_pid="$tid") + unrep))"
done

# Names, in time order (sched_lib.sh, thread_names): each thread is born
# pingpong and renames itself once, after it may have run, been preempted or
# slept any number of times.
assert_names dump.json "$ping" ping
assert_names dump.json "$pong" pong

# Wakeups: every sleep (voluntary switch) but the last, which has not ended,
# ended with a sched_waking; a wakeup that comes before the thread is off the
# CPU needs no sleep, so there may be more. (Their names were checked above.)
for t in ping pong; do
	eval tid=\$$t vol=\$${t}_vol
	wakes=$(jcount dump.json type=sched_waking pid="$tid")
	note "$t: $vol voluntary switches, $wakes sched_waking"
	assert_range "$t's sched_waking events" $((vol - 1)) $((vol + n)) "$wakes"
	all_wakes=$((${all_wakes:-0} + wakes))
done
# One of them may never sleep (always preempted, never waiting), not both.
[ "$all_wakes" -gt 0 ] || fail "no sched_waking for ping or pong"
exit 0
