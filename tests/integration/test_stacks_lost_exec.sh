#!/bin/sh
# --stacks offcpu across an exec whose record was lost: the stacks after it
# are named from the new program, not from the mappings frecd had learned
# for the old one.
#
# nopie/exec_stack_a (pinned to CPU 0, the only process -p records) blocks
# 3 times in es_a_outer -> es_a_middle -> es_a_inner, which frecd drains
# and learns. Then frecd stops draining (--debug-stall-ms, SIGUSR2), the
# process sleeps briefly many times, which fills CPU 0's ring (32K), and
# execs nopie/exec_stack_b: its exec record finds no room. Once frecd
# drains again, exec_stack_b blocks 3 times in es_b_outer -> es_b_middle ->
# es_b_inner. The two builds sit at the same address with their chains in
# the opposite order, so the b frames read with exec_stack_a's symbols
# would be es_a_*. In the snapshot: no exec record for the process, some
# lost, the 3 a stacks named es_a_inner;es_a_middle;es_a_outer and the 3 b
# stacks es_b_inner;es_b_middle;es_b_outer; frec status counts one program
# no exec record announced. The process is named by exec_stack_b's command
# line once frecd has read it again (the main thread's new name in the
# records says the old one may be stale).
. "$FREC_TEST_LIB"

A="$PROGS/nopie/exec_stack_a"
B="$PROGS/nopie/exec_stack_b"
[ -x "$A" ] && [ -x "$B" ] || fail "$A or $B missing: make progs"

mkfifo go1 go2 go3 || fail "mkfifo failed"
# go FIFO: let the process past its wait on FIFO (the limit only keeps a
# dead process from hanging the test)
go() { timeout 60 sh -c ": > $1" || fail "the process did not wait on $1"; }

"$A" a go1 go2 go3 done "$B" 3000 > es.out 2>&1 &
es=$!
wait_for es.out '^pid ' "exec_stack's pid"
pid=$(field es.out pid)
mkdir snaps
# (--keep 0: the loops below take a snapshot per try)
start_frecd -o "$WORK/snaps" -p "$pid" --stacks offcpu --ring-size 64K --ring-min 32K \
	--window 3600 --debug-stall-ms 600000 --keep 0
# chains FILE: each blocking switch of the process with a stack, as its
# user frames named es_*, in order, joined by ';' ("" for the flood's and
# the FIFO waits' stacks, which have none)
chains() {
	grep '"type":"sched_switch"' "$1" | grep "\"prev_pid\":$pid," | grep '"stack":\[' |
	while IFS= read -r line; do
		printf '%s\n' "$line" | grep -o '"sym":"es_[^"]*"' | cut -d'"' -f4 | paste -sd';' -
	done
}
A3="es_a_inner;es_a_middle;es_a_outer"
B3="es_b_inner;es_b_middle;es_b_outer"

go go1
wait_for es.out '^a-done$' "the a blocks"
# Before the exec, frecd has learned exec_stack_a's mappings: a snapshot
# names the a stacks (mappings read only after an unrecorded exec would be
# the new program's, and nothing could tell).
a_named() {
	dump_json "$(snapshot "$WORK/snaps")" pre.json
	[ "$(chains pre.json | grep -cx "$A3")" -eq 3 ]
}
eventually a_named || fail "the a stacks were not named before the exec: $(chains pre.json)"
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "SIGUSR2: not draining the ring buffer" "the stall"
go go2
# exec_stack_b waits on go3 once it runs: its comm says it exec'd
eventually sh -c "grep -q '^exec_stack_b' /proc/$pid/comm" || fail "exec_stack_b did not start"
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "draining the ring buffer again" "the end of the stall"
go go3
wait_for es.out '^b-done$' "the b blocks"
# The lost exec left the old program's command line too: the main thread's
# new name in the records has frecd read it again, and the generations
# sealed after that name the process by it (exec_stack_b sleeps on).
b_named() {
	name=$(cmdline_of "$(snapshot "$WORK/snaps")" "$pid")
	case "$name" in
	*"exec_stack_b b go3 done") return 0 ;;
	esac
	return 1
}
eventually b_named || fail "the process is not named exec_stack_b's command line: '$name'"
touch done
wait "$es" || { cat es.out >&2; fail "exec_stack failed"; }
snap=$(snapshot "$WORK/snaps")
unannounced=$(status_field programs_unannounced)
stop_frecd
dump_json "$snap" dump.json

# the case this test is about: the exec was not recorded, drops were
assert_eq "exec records of the process" 0 "$(jcount dump.json type=sched_process_exec)"
lost=$(jvals dump.json count type=lost | awk '{ n += $1 } END { print n + 0 }')
[ "$lost" -gt 0 ] || fail "nothing lost: the ring did not fill"
note "$lost records lost during the stall"

chains dump.json > chains.out
assert_eq "a stacks ($A3)" 3 "$(grep -cx "$A3" chains.out)"
assert_eq "b stacks after the lost exec ($B3)" 3 "$(grep -cx "$B3" chains.out)"
assert_eq "stacks named otherwise" "" "$(grep -vx -e "$A3" -e "$B3" -e '' chains.out)"
assert_eq "frec status: unannounced programs" 1 "$unannounced"
