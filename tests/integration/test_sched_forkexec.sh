#!/bin/sh
# A process forks a child that execs a known program and exits: the snapshot
# holds sched_process_fork, sched_process_exec (with the file name) and
# sched_process_exit with the same pids, in that order.
. "$FREC_TEST_LIB"

mkdir snaps
start_frecd -o "$WORK/snaps"

"$PROGS/forkexec" "$PROGS/forkexec" --exit 3 > fe.out || fail "forkexec failed"
parent=$(field fe.out parent)
child=$(field fe.out child)
assert_eq "child's exit status" 3 "$(field fe.out status)"

snap=$(snapshot "$WORK/snaps")
dump_json "$snap" dump.json

assert_eq "fork events parent->child" 1 \
	"$(jcount dump.json type=sched_process_fork parent_pid="$parent" child_pid="$child")"
assert_eq "fork events of the child" 1 "$(jcount dump.json type=sched_process_fork child_pid="$child")"
assert_eq "exec events of the child" 1 "$(jcount dump.json type=sched_process_exec pid="$child")"
assert_eq "exec filename" "$PROGS/forkexec" "$(jvals dump.json filename type=sched_process_exec pid="$child")"
assert_eq "exec old_pid" "$child" "$(jvals dump.json old_pid type=sched_process_exec pid="$child")"
assert_eq "exit events of the child" 1 "$(jcount dump.json type=sched_process_exit pid="$child")"
assert_eq "exit tgid" "$child" "$(jvals dump.json tgid type=sched_process_exit pid="$child")"
assert_eq "exit events of the parent" 1 "$(jcount dump.json type=sched_process_exit pid="$parent")"

fork_ts=$(jvals dump.json ts type=sched_process_fork child_pid="$child")
exec_ts=$(jvals dump.json ts type=sched_process_exec pid="$child")
exit_ts=$(jvals dump.json ts type=sched_process_exit pid="$child")
[ "$fork_ts" -lt "$exec_ts" ] && [ "$exec_ts" -lt "$exit_ts" ] ||
	fail "fork ($fork_ts), exec ($exec_ts), exit ($exit_ts) out of order"
# The child's comm after exec is the program's base name.
assert_eq "comm at exit" forkexec "$(jvals dump.json comm type=sched_process_exit pid="$child")"
exit 0
