#!/bin/sh
# A pingpong runs in cgroup A and is moved, whole, to cgroup B halfway
# through its exchange, between two reads of /proc/uptime. Each thread's
# switches (out and in) name A, then B: one change and none back, every one
# before the first read in A, every one after the second in B. frecd sees a
# move when the thread is next switched in: the dump has a cgroup event for
# it there (unless a generation begins in between, whose table then starts
# it in B), and nothing is lost.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_lib.sh"

cga=$(cg_make a)
cgb=$(cg_make b)
ida=$(cg_id "$cga")
idb=$(cg_id "$cgb")
secs=1
mkdir snaps
start_frecd -o "$WORK/snaps" --window 3600

mkfifo in
exec 3<> in
sh -c "$IN_CGROUP" "$(cg_dir "$cga")" "$PROGS/pingpong" -w -s "$secs" < in > pp.out 3>&- &
pp=$!
SCHED_PIDS="$SCHED_PIDS $pp"
wait_for pp.out '^pong ' "pingpong ready"
pid=$(field pp.out pid)
assert_eq "pingpong's cgroup" "$cga" "$(cg_of "$pid")"
echo go >&3
sleep 0.5
# /proc/uptime is CLOCK_BOOTTIME, as the events, to 10 ms: the move is after
# t1 and before t2 + 10 ms
t1=$(cut -d' ' -f1 /proc/uptime)
echo "$pid" > "$(cg_dir "$cgb")/cgroup.procs" || fail "cannot move $pid to $cgb"
t2=$(cut -d' ' -f1 /proc/uptime)
assert_eq "pingpong's cgroup after the move" "$cgb" "$(cg_of "$pid")"
wait_for pp.out '^done ' "pingpong done"
note "moved $pid from $cga ($ida) to $cgb ($idb) between $t1 and $t2 s"

snap=$(snapshot "$WORK/snaps")
exec 3>&-
wait_gone "$pp" "pingpong, its stdin closed" || fail "pingpong failed"
frecd_stop
dump_json "$snap" dump.json
assert_eq "drops" 0 "$(grep -c '"type":"lost"' dump.json)"
gens=$("$FREC" info --json "$snap" | grep -o '"generations":[0-9]*' | cut -d: -f2)

# order THREAD [LATE]: "ok NA NB" when the thread's switches read A...A
# B...B (by cgroup id), all A before t1 and all B from t2 + 10 ms on (a
# switch out by the time of the switch-in that began its run); else
# the first that does not. LATE: the thread came into A itself (the shell
# that moved itself there), its switches before it was first in A are not
# looked at.
order() {
	awk -v tid="$1" -v late="${2:-}" -v a="$ida" -v b="$idb" -v t1="$t1" -v t2="$t2" "$jq_awk"'
	BEGIN { lo = t1 * 1e9; hi = (t2 + 0.01) * 1e9 }
	function see(cg, ts) {
		if (late && !na && !nb && cg != a) return
		if (cg != a && cg != b) { print "neither cgroup: " $0; bad = 1; exit }
		if (cg == b) nb++
		else if (nb) { print "back in A after B: " $0; bad = 1; exit }
		else na++
		if (ts < lo && cg != a) { print "in B before the move: " $0; bad = 1; exit }
		if (ts >= hi && cg != b) { print "in A after the move: " $0; bad = 1; exit }
	}
	# A switch out names the cgroup of the run it ends, which frecd saw at
	# its switch-in: it is judged at that switch-in time (a run that began
	# before the move may end in A after t2 + 10 ms).
	jget($0, "type") == "sched_switch" {
		ts = jget($0, "ts") + 0
		if (jget($0, "prev_pid") == tid) see(jget($0, "prev_cgroup_id"), lastin ? lastin : ts)
		if (jget($0, "next_pid") == tid) { see(jget($0, "next_cgroup_id"), ts); lastin = ts }
	}
	END { if (!bad) print "ok " na + 0 " " nb + 0 }' "sw.$1.json"
}

# awk parses slowly under TCG: each thread's switches first, with grep
switches_of() {
	grep '"type":"sched_switch"' dump.json | grep -e "\"prev_pid\":$1," -e "\"next_pid\":$1," \
		> "sw.$1.json"
}
grep '"type":"cgroup"' dump.json > moves.json

for t in ping pong; do
	tid=$(field pp.out $t)
	switches_of "$tid"
	r=$(order "$tid")
	case $r in
	ok*) ;;
	*) fail "$t ($tid): $r" ;;
	esac
	na=$(echo "$r" | cut -d' ' -f2)
	nb=$(echo "$r" | cut -d' ' -f3)
	[ "$na" -gt 0 ] && [ "$nb" -gt 0 ] || fail "$t ($tid): $na switches in A, $nb in B"
	moves=$(jcount moves.json type=cgroup pid="$tid" cgroup="$cgb" cgroup_id="$idb")
	note "$t ($tid): $na switches in $cga, then $nb in $cgb; $moves cgroup events"
	assert_eq "$t's cgroup events to A" 0 "$(jcount moves.json type=cgroup pid="$tid" cgroup="$cga")"
	if [ "$moves" -ne 1 ]; then
		assert_eq "$t's cgroup events" 0 "$moves"
		[ "$gens" -gt 1 ] || fail "$t ($tid): no cgroup event and one generation"
	fi
done
# the main thread (the shell that moved itself into A, then pingpong) only
# waits: from its first switch in A, at most one change, none back
switches_of "$pid"
r=$(order "$pid" late)
case $r in ok*) ;; *) fail "main thread $pid: $r" ;; esac
exit 0
