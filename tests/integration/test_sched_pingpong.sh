#!/bin/sh
# Two named threads ping-pong through pipes exactly N times while frecd
# records. The snapshot holds their sched_switch events with the right names
# and tids, and their sched_waking events; how often each thread was switched
# out matches what the kernel counted in /proc/PID/task/TID/status.
. "$FREC_TEST_LIB"

n=$(scaled 2000)
mkdir snaps
start_frecd -o "$WORK/snaps"

mkfifo in
"$PROGS/pingpong" "$n" < in > pp.out &
pp=$!
exec 3> in
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
wait "$pp" || fail "pingpong failed"
dump_json "$snap" dump.json

ping_out=$(jcount dump.json type=sched_switch prev_pid="$ping")
pong_out=$(jcount dump.json type=sched_switch prev_pid="$pong")
note "frec: ping switched out $ping_out times, pong $pong_out times"
# Each thread lived entirely while frecd recorded, and nothing was lost.
assert_eq "drops" 0 "$(jcount dump.json type=lost)"
assert_eq "ping switched out (frec vs kernel)" "$ping_kernel" "$ping_out"
assert_eq "pong switched out (frec vs kernel)" "$pong_kernel" "$pong_out"
# Each switch in matches a switch out (both block at the end, off the CPU).
assert_eq "ping switched in" "$ping_out" "$(jcount dump.json type=sched_switch next_pid="$ping")"
assert_eq "pong switched in" "$pong_out" "$(jcount dump.json type=sched_switch next_pid="$pong")"

# Names, in time order. Each thread is born "pingpong" (a new thread takes
# its creator's name) and names itself with pthread_setname_np() first thing,
# but it may be switched in and out, preempted or asleep (a page fault that
# waits for the mmap lock), any number of times before it gets there; under
# emulation it often is. So: exactly one task_rename of the thread, from
# pingpong to its name; every event that names it before the rename (its
# fork, wakeup_new, switches out and in, wakings) calls it pingpong, every
# one after calls it by its new name, and there is at least one of each.
# frec names a thread from the rename event on, whatever the kernel's later
# records carry: since 6.13 __set_task_comm() copies the name after the
# tracepoint without task_lock, so a preemption in between can leave it
# stale until the thread runs again; the dump cannot show that unless a
# generation starts inside that window.
names() {
	awk -v tid="$1" -v new="$2" -v birth=pingpong "$jq_awk"'
	function seen(name) {
		if (renames) after++; else before++
		if (name != (renames ? new : birth)) {
			printf "%s its rename, %s names it %s: %s\n",
				renames ? "after" : "before", type, name, $0
			bad = 1; exit
		}
	}
	{
		type = jget($0, "type")
		if (type == "task_rename") {
			if (jget($0, "pid") != tid) next
			if (++renames > 1 || jget($0, "oldcomm") != birth || jget($0, "newcomm") != new) {
				printf "rename %d: %s\n", renames, $0
				bad = 1; exit
			}
		} else if (type == "sched_switch") {
			if (jget($0, "prev_pid") == tid) seen(jget($0, "prev_comm"))
			if (jget($0, "next_pid") == tid) seen(jget($0, "next_comm"))
		} else if (type == "sched_process_fork") {
			if (jget($0, "child_pid") == tid) seen(jget($0, "child_comm"))
		} else if (jget($0, "pid") == tid && jget($0, "comm") != "\001") {
			seen(jget($0, "comm"))
		}
	}
	END {
		if (bad) exit
		if (renames != 1) print renames " renames"
		else if (!before || !after) print before " events before the rename, " after " after"
		else print "ok " before " " after
	}' dump.json
}
for t in ping pong; do
	eval tid=\$$t
	r=$(names "$tid" "$t")
	case $r in
	ok*) note "$t: $(echo "$r" | awk '{ print $2 }') events named pingpong, then one rename, then $(echo "$r" | awk '{ print $3 }') named $t" ;;
	*) fail "names of $t ($tid): $r" ;;
	esac
done

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
