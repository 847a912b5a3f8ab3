#!/bin/sh
# frecd in a pid namespace of its own, with a /proc of that namespace
# (unshare -p -m -f --mount-proc), as in a container: it learns its host pid
# M from its self-probe and says it (ready: pid 1 (host M)), logs its
# namespaces, names threads from the events (its /proc would name others),
# and leaves its own threads out by their host ids: no waking, fork, exec or
# probe hit names one of /proc/M/task/*. frec status says "pid":"own" and
# "host_pid":M. -p takes a host pid, unchecked, with one line, and records
# that process, its probe hits too.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

command -v unshare > /dev/null || skip "no unshare"
unshare -p -m -f --mount-proc true 2> /dev/null || skip "unshare -p -m -f --mount-proc does not work here"

# ns_frecd ARGS...: frecd in its namespaces, ready; FRECD_PID its host pid.
ns_frecd() {
	: > "$WORK/frecd.log"
	# shellcheck disable=SC2086
	unshare -p -m -f --mount-proc "$FRECD" --socket "$FRECD_SOCKET" --config /dev/null "$@" \
		${FREC_FRECD_EXTRA_ARGS:-} >> "$WORK/frecd.log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	NS_PID=$!
	SCHED_PIDS="$SCHED_PIDS $NS_PID"
	i=0
	while ! grep -q "frecd info: ready:" "$WORK/frecd.log"; do
		! gone "$NS_PID" || { cat "$WORK/frecd.log" >&2; fail "frecd exited before ready"; }
		[ $i -lt 300 ] || { cat "$WORK/frecd.log" >&2; fail "frecd not ready after 30 s"; }
		sleep 0.1; i=$((i + 1))
	done
	FRECD_PID=$(sed -n 's/.* ready: pid \([0-9]*\) (host \([0-9]*\)),.*/\1 \2/p' "$WORK/frecd.log")
	assert_eq "frecd's pid in its own namespace" 1 "${FRECD_PID%% *}"
	FRECD_PID=${FRECD_PID#* }
	[ -n "$FRECD_PID" ] && [ -d "/proc/$FRECD_PID" ] || { cat "$WORK/frecd.log" >&2; fail "no host pid in the ready line"; }
}

# ns_stop: SIGTERM to frecd's host pid; unshare passes on its exit status.
ns_stop() {
	kill -TERM "$FRECD_PID" || fail "frecd is not running"
	wait_gone "$NS_PID" "frecd in its namespaces, after SIGTERM"; rc=$?
	FRECD_PID=""
	[ $rc -eq 0 ] || { cat "$WORK/frecd.log" >&2; fail "frecd exited $rc on SIGTERM"; }
}

# 1. Everything recorded but frecd, whose hits of libc's read() would be
# many (it reads its timer and signal fds all the time).
n=$(scaled 300)
mkdir snaps
probe="uprobe:libc:read"
ns_frecd -o "$WORK/snaps" --probe "$probe"
M=$FRECD_PID
grep -q "frecd info: namespaces: pid own (host pid $M), /proc own, cgroup " "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "no namespaces line"; }
grep -q "frecd warn: frecd runs in its own pid namespace (host pid $M): /proc shows that namespace only: threads are named from events, command lines are not recorded" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no warning about /proc"; }
"$FREC" status --json --socket "$FRECD_SOCKET" > status.json || fail "frec status failed"
grep -q "\"namespaces\":{\"pid\":\"own\",\"proc\":\"own\",\"cgroup\":\"[a-z]*\",\"host_pid\":$M}" status.json ||
	fail "status namespaces: $(grep -o '"namespaces":{[^}]*}' status.json)"
grep -q "^{\"pid\":1,\"host_pid\":$M," status.json || fail "status pids: $(cut -c 1-60 status.json)"

mkfifo in
exec 3<> in
"$PROGS/pingpong" "$n" < in > pp.out 3>&- &
pp=$!
SCHED_PIDS="$SCHED_PIDS $pp"
wait_for pp.out '^done ' "pingpong done"
ping=$(field pp.out ping)
tasks=$(ls /proc/"$M"/task)
[ -n "$tasks" ] || fail "frecd (host pid $M) has no threads in /proc"
snap=$(snapshot "$WORK/snaps")
exec 3>&-
wait_gone "$pp" "pingpong, its stdin closed" || fail "pingpong failed"
ns_stop
dump_json "$snap" dump.json

[ "$(grep -c '"[a-z_]*comm":"pingpong"' dump.json)" -gt 0 ] || fail "no event names pingpong"
sw=$(jcount dump.json type=sched_switch prev_pid="$ping")
[ "$sw" -gt 0 ] || fail "no switch of pingpong's ping ($ping)"
# ping names itself at its start (a task_rename): its switches before that
# name it pingpong, every one after it ping, from the events alone
names=$(awk -v tid="$ping" "$jq_awk"'
	jget($0, "type") == "task_rename" && jget($0, "pid") == tid && jget($0, "newcomm") == "ping" { renamed = 1 }
	jget($0, "type") == "sched_switch" && jget($0, "prev_pid") == tid {
		want = renamed ? "ping" : "pingpong"
		if (jget($0, "prev_comm") == want) ok++
		else { print "not " want ": " $0; bad = 1; exit }
	}
	END { if (bad) exit; if (!renamed) print "no rename of ping"; else print ok + 0 }' dump.json)
assert_eq "ping's switches named from the events" "$sw" "$names"
[ "$(jcount dump.json type=uprobe probe="$probe" pid="$pp")" -gt 0 ] || fail "no read() of pingpong"
bad=$(awk -v t="$tasks" "$jq_awk"'
	BEGIN { split(t, a, " "); for (i in a) self[a[i]] = 1 }
	{
		type = jget($0, "type")
		if (type == "sched_waking" || type == "sched_wakeup" || type == "sched_wakeup_new" ||
		    type == "sched_process_exec" || type == "uprobe")
			bad = (jget($0, "pid") in self) || (jget($0, "tid") in self)
		else if (type == "sched_process_fork")
			bad = (jget($0, "parent_pid") in self) || (jget($0, "child_pid") in self)
		else
			bad = 0
		if (bad) { print; exit }
	}' dump.json)
[ -z "$bad" ] || fail "an event of frecd's own threads ($tasks): $bad"

# 2. -p takes a host pid, unchecked: its /proc cannot tell. The probes are
# attached for every process (perf_event_open would read the pid in frecd's
# namespace) and keep a's hits in BPF.
pid_filter_pair
ns_frecd -o "$WORK/snaps" -p "$a" --probe "$probe"
grep -q "frecd warn: -p $a: frecd's /proc shows its own pid namespace: $a is taken as a host process id, unchecked" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no line for the unchecked -p"; }
echo go >&3
echo go >&4
wait_for a.out '^done ' "pingpong a done"
wait_for b.out '^done ' "pingpong b done"
snap=$(snapshot "$WORK/snaps")
exec 3>&- 4>&-
wait_gone "$pa" "pingpong a, its stdin closed" || fail "pingpong a failed"
wait_gone "$pb" "pingpong b, its stdin closed" || fail "pingpong b failed"
ns_stop
dump_json "$snap" dump.json
for t in ping pong; do
	tid=$(field a.out $t)
	[ "$(jcount dump.json type=sched_waking pid="$tid")" -gt 0 ] || fail "no waking of a's $t"
	tid=$(field b.out $t)
	assert_eq "wakings of b's $t" 0 "$(jcount dump.json type=sched_waking pid="$tid")"
done
[ "$(jcount dump.json type=uprobe probe="$probe" pid="$a")" -gt 0 ] || fail "no read() of a"
assert_eq "read() hits of a, of all" "$(jcount dump.json type=uprobe)" \
	"$(jcount dump.json type=uprobe probe="$probe" pid="$a")"
exit 0
