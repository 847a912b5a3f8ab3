#!/bin/sh
# --stacks offcpu across an exec whose record was lost: the stacks after it
# are named from the new program, not from the mappings frecd had learned
# for the old one, and the process from the new program's command line.
#
# nopie/exec_stack_a (pinned to CPU 0, the only process -p records) blocks
# in es_a_outer -> es_a_middle -> es_a_inner until a snapshot names those
# frames (frecd has learned its mappings). Then frecd stops draining
# (--debug-stall-ms, SIGUSR2), the process sleeps briefly many times,
# which fills CPU 0's ring (32K), and execs nopie/exec_stack_b: its exec
# record (and the rename before it) find no room. Once frecd drains
# again, exec_stack_b blocks in es_b_outer -> es_b_middle -> es_b_inner
# until a snapshot names those frames and the process by exec_stack_b's
# command line (the main thread's new name in the records has frecd read
# it again). The two builds sit at the same address with their chains in
# the opposite order, so the b frames read with exec_stack_a's symbols
# would be es_a_*. In the last snapshot: no exec record, some lost, every
# named stack of the process es_a_inner;es_a_middle;es_a_outer before the
# loss and es_b_inner;es_b_middle;es_b_outer after it; frec status counts
# one program no exec record announced.
. "$FREC_TEST_LIB"

A="$PROGS/nopie/exec_stack_a"
B="$PROGS/nopie/exec_stack_b"
[ -x "$A" ] && [ -x "$B" ] || fail "$A or $B missing: make progs"

mkfifo go1 go2 go3 || fail "mkfifo failed"
# go FIFO: let the process past its wait on FIFO (the limit only keeps a
# dead process from hanging the test)
go() { timeout 60 sh -c ": > $1" || fail "the process did not wait on $1"; }

"$A" a go1 go2 go3 a-stop done "$B" 3000 > es.out 2>&1 &
es=$!
wait_for es.out '^pid ' "exec_stack's pid"
pid=$(field es.out pid)
mkdir snaps
# (--keep 0: the loops below take a snapshot per try)
start_frecd -o "$WORK/snaps" -p "$pid" --stacks offcpu --ring-size 64K --ring-min 32K \
	--window 3600 --debug-stall-ms 600000 --keep 0
# chains FILE: each blocking switch of the process with a stack, in time
# order, as its user frames named es_*, in order, joined by ';' ("" for the
# flood's and the FIFO waits' stacks, and for those sealed before frecd
# had read the mappings); "LOST" for each lost event, at its time (that of
# the first record lost)
chains() {
	awk -v p="\"prev_pid\":$pid," '
	/"type":"lost"/ { print "LOST"; next }
	/"type":"sched_switch"/ && index($0, p) && /"stack":\[/ {
		c = ""; s = $0
		while (match(s, /"sym":"es_[^"]*"/)) {
			c = c (c == "" ? "" : ";") substr(s, RSTART + 7, RLENGTH - 8)
			s = substr(s, RSTART + RLENGTH)
		}
		print c
	}' "$1"
}
# tries N COMMAND...: until COMMAND succeeds, at most N times, 0.5 s apart
# (not a timed assertion: a bound that keeps a failure from taking long)
tries() {
	n=$1; shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.5
	done
}
A3="es_a_inner;es_a_middle;es_a_outer"
B3="es_b_inner;es_b_middle;es_b_outer"

go go1
wait_for es.out '^a-done$' "the a blocks"
# Before the exec, frecd has learned exec_stack_a's mappings (maps read
# only after an unrecorded exec would be the new program's, and nothing
# could tell).
a_named() {
	dump_json "$(snapshot "$WORK/snaps")" pre.json
	chains pre.json | grep -qx "$A3"
}
tries 40 a_named || fail "no a stack named before the exec: $(chains pre.json | sort | uniq -c)"
touch a-stop
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "SIGUSR2: not draining the ring buffer" "the stall"
go go2
# exec_stack_b waits on go3 once it runs: its comm says it exec'd
eventually sh -c "grep -q '^exec_stack_b' /proc/$pid/comm" || fail "exec_stack_b did not start"
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "draining the ring buffer again" "the end of the stall"
go go3
wait_for es.out '^b-done$' "the b blocks"
b_named() {
	snap=$(snapshot "$WORK/snaps")
	dump_json "$snap" post.json
	name=$(cmdline_of "$snap" "$pid")
	chains post.json | grep -qx "$B3" || return 1
	case "$name" in
	*"exec_stack_b b go3 done") return 0 ;;
	esac
	return 1
}
tries 40 b_named ||
	fail "after the exec: stacks $(chains post.json | sort | uniq -c | tr '\n' ' '), process named '$name'"
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

chains dump.json | grep -v '^$' > chains.out
note "named stacks: $(sort chains.out | uniq -c | tr '\n' ' ')"
assert_eq "stacks named otherwise" "" "$(grep -vx -e "$A3" -e "$B3" -e LOST chains.out)"
# In time order: the a stacks, the lost records (the flood's, the exec's
# among them), the b stacks. A b stack named with exec_stack_a's maps
# would be an a stack after the loss.
assert_eq "b stacks before the loss" 0 \
	"$(awk -v b="$B3" '$0 == "LOST" { exit } $0 == b { n++ } END { print n + 0 }' chains.out)"
assert_eq "a stacks after the loss" 0 \
	"$(awk -v a="$A3" '$0 == "LOST" { seen = 1 } seen && $0 == a { n++ } END { print n + 0 }' chains.out)"
[ "$(grep -cx "$A3" chains.out)" -ge 1 ] || fail "no a stack named"
[ "$(grep -cx "$B3" chains.out)" -ge 1 ] || fail "no b stack named"
assert_eq "frec status: unannounced programs" 1 "$unannounced"
