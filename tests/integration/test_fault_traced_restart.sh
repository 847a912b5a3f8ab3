#!/bin/sh
# A traced process (-p) that exits during recording, and is started again
# under a new pid. What -p follows, as frecd --help and the README say: the
# process and all its threads, also threads it starts after frecd started;
# not the processes it forks (the fork itself is recorded: it is an event of
# the traced process), and not a new process that replaces it.
#  - one: probe_target, traced, starts 2 threads after frecd is ready, then
#    all three exit: their forks and exits are there, and after each
#    thread's exit nothing but its own switches;
#  - two: the same program started again (a new pid): nothing about it;
#  - sh: a traced shell runs a child (forkexec, which forks and execs a
#    grandchild): the shell's fork of the child and its exit are there; the
#    child's exec, fork and exit are not, and every event that names the
#    child or the grandchild also names the shell (a switch between them);
#  - frecd keeps running once all traced processes are gone: a snapshot
#    works, and frecd stops with exit 0.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

# names X: the events that name thread or process X in any pid field.
names() {
	awk -v x="$2" "$jq_awk"'
		{ for (i = 1; i <= nk; i++) if (jget($0, k[i]) == x) { print; next } }
		BEGIN { nk = split("pid tgid prev_pid next_pid parent_pid child_pid waker old_pid", k, " ") }' "$1"
}

# not_naming FILE X: how many events of FILE do not name X.
not_naming() {
	awk -v x="$2" "$jq_awk"'
		{ for (i = 1; i <= nk; i++) if (jget($0, k[i]) == x) next; n++ }
		BEGIN { nk = split("pid tgid prev_pid next_pid parent_pid child_pid waker old_pid", k, " ") }
		END { print n + 0 }' "$1"
}

# about FILE X: the events about thread X: X is their subject, one side
# of a switch, or the parent or child of a fork (not only their waker, nor
# only the tgid of another thread of its process).
about() {
	awk -v x="$2" "$jq_awk"'
		{ for (i = 1; i <= nk; i++) if (jget($0, k[i]) == x) { print; next } }
		BEGIN { nk = split("pid prev_pid next_pid parent_pid child_pid old_pid", k, " ") }' "$1"
}

mkfifo ctl
# the traced shell; "echo" after the child keeps it from exec'ing the child
sh -c 'read line; "$0" "$0" --exit 0 > fe.out; echo done > sh.out' "$PROGS/forkexec" < ctl &
sh_pid=$!
exec 3> ctl
start_target one -t 2 100 0 7 3

mkdir snaps
start_frecd -o "$WORK/snaps" -p "$one_pid" -p "$sh_pid"
run_target one				# its threads start now, then it exits
start_target two -t 2 100 0 7 3		# "restarted": a new pid
[ "$two_pid" != "$one_pid" ] || fail "the restarted process got the same pid"
run_target two
echo go >&3
exec 3>&-
wait "$sh_pid" || fail "the traced shell failed"
kill -0 "$FRECD_PID" || fail "frecd died once the traced processes were gone"
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json
child=$(field fe.out parent)		# forkexec's own pid: the shell's child
grandchild=$(field fe.out child)

# --- one: threads started after frecd, followed up to their exit ---------------------
assert_eq "exits of one's threads" 3 "$(jcount dump.json type=sched_process_exit tgid="$one_pid")"
tids=$(jvals dump.json pid type=sched_process_exit tgid="$one_pid" | sort -n)
for tid in $tids; do
	[ "$tid" = "$one_pid" ] && continue
	assert_eq "fork of one's thread $tid" 1 "$(jcount dump.json type=sched_process_fork child_pid="$tid")"
done
for tid in $tids; do
	about dump.json "$tid" > "t$tid.json"
	exit_ts=$(jvals "t$tid.json" ts type=sched_process_exit pid="$tid")
	[ "$(wc -l < "t$tid.json")" -ge 2 ] || fail "thread $tid: no event besides its exit"
	# after its exit: only its own last switches (out, and in again if it
	# was preempted on the way out) and, preempted, a move to another CPU
	# by the load balancer (seen on 6.1)
	after=$(awk -v t="$exit_ts" "$jq_awk"'
		jget($0, "ts") + 0 > t + 0 && jget($0, "type") != "sched_switch" &&
		jget($0, "type") != "sched_migrate_task"' "t$tid.json")
	assert_eq "events about $tid after its exit, other than switches and migrations" "" "$after"
	last=$(tail -n 1 "t$tid.json")
	case $last in
	*'"type":"sched_switch"'*"\"prev_pid\":$tid,"*) ;;
	*) fail "thread $tid: the last event about it is not its switch out: $last" ;;
	esac
done

# --- two: the restarted process is not followed ------------------------------------
assert_eq "events that name the restarted process" 0 "$(names dump.json "$two_pid" | wc -l)"
assert_eq "exits of probe_target threads (one's only)" 3 \
	"$(jcount dump.json type=sched_process_exit comm=probe_target)"

# --- sh: its fork is recorded, its child is not followed ---------------------------------
assert_eq "the shell's fork of its child" 1 \
	"$(jcount dump.json type=sched_process_fork parent_pid="$sh_pid" child_pid="$child")"
assert_eq "the shell's exit" 1 "$(jcount dump.json type=sched_process_exit pid="$sh_pid")"
assert_eq "the child's exec" 0 "$(jcount dump.json type=sched_process_exec pid="$child")"
assert_eq "the child's fork" 0 "$(jcount dump.json type=sched_process_fork parent_pid="$child")"
assert_eq "the child's exit" 0 "$(jcount dump.json type=sched_process_exit pid="$child")"
# A switch between the shell and another task on one CPU is an event of the
# shell and names the other task; so is its wakeup by that task.
names dump.json "$child" > child.json
names dump.json "$grandchild" > grandchild.json
assert_eq "events naming the child but not the shell" 0 "$(not_naming child.json "$sh_pid")"
assert_eq "events naming the grandchild but not the shell" 0 "$(not_naming grandchild.json "$sh_pid")"
note "one: threads $(echo $tids); restarted as $two_pid; sh $sh_pid, child $child ($(wc -l < child.json) events with the shell), grandchild $grandchild ($(wc -l < grandchild.json))"
exit 0
