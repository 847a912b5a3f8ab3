#!/bin/sh
# A thread other than the leader execs (Go's syscall.Exec): the kernel kills
# the leader, whose exit is recorded under the process's pid, and the
# exec'ing thread goes on as that pid. Generations recorded well after the
# exec still name the process with its new command line and its thread with
# its new comm, as the kernel shows them.
. "$FREC_TEST_LIB"

# The exec target under a name of its own, so that its comm says it ran.
cp "$PROGS/thread_exec" "$WORK/spinner" || fail "cannot copy thread_exec"

mkdir snaps
# A window of 1 s: the snapshot holds only generations after the exec.
start_frecd -o "$WORK/snaps" --window 1 --period 100
"$PROGS/thread_exec" "$WORK/spinner" --spin 4000 > te.out &
te=$!
wait_for te.out '^tid ' "thread_exec's pids"
pid=$(field te.out pid)
tid=$(field te.out tid)
[ "$pid" != "$tid" ] || fail "the exec'ing thread is the leader ($tid)"
sleep 2.5
kcomm=$(cat "/proc/$pid/comm") || fail "spinner ($pid) not running"
kcmdline=$(tr '\0' ' ' < "/proc/$pid/cmdline" | sed 's/ $//')
assert_eq "the kernel's comm" spinner "$kcomm"
snap=$(snapshot "$WORK/snaps")
wait "$te" || fail "spinner failed"
dump_json "$snap" dump.json

# Only generations after the exec: spinner switches, named as the kernel names it.
n=$(jcount dump.json type=sched_switch prev_pid="$pid")
[ "$n" -gt 10 ] || fail "spinner ($pid) switched out $n times in the snapshot"
assert_eq "spinner's switches named $kcomm" "$n" \
	"$(jcount dump.json type=sched_switch prev_pid="$pid" prev_comm="$kcomm")"
assert_eq "exec events in the snapshot (its generation left the window)" 0 \
	"$(jcount dump.json type=sched_process_exec pid="$pid")"

# The process table, as the Chrome export shows it (lib.sh, cmdline_of).
assert_eq "spinner's command line" "$kcmdline" "$(cmdline_of "$snap" "$pid")"
exit 0
