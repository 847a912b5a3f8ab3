#!/bin/sh
# User probes record exactly what ran: probe_target calls, in each of T
# threads, a push-%rbp function and a frameless one N times each (entry and
# return, func:) and fires a USDT probe M times. The snapshot holds exactly
# T*N entries with arguments (A, B, i) and T*N returns with A+B+i (A*B+i),
# exactly T*M USDT hits with (i, A, B), and nothing from any other process.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 500)
m=$(scaled 300)
t=2
a=7 b=3
fp="func:$TARGET:frec_target_fp"
nofp="func:$TARGET:frec_target_nofp"
usdt="usdt:$TARGET:frec_target:tick"

start_target tgt -t "$t" "$n" "$m" "$a" "$b"
mkdir snaps
start_frecd -o "$WORK/snaps" --probe "$fp" --probe "$nofp" --probe "$usdt" --probe-args 3
run_target tgt
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
total=$((t * n))
assert_eq "fp entries" "$total" "$(jcount dump.json type=uprobe probe="$fp")"
assert_eq "fp returns" "$total" "$(jcount dump.json type=uretprobe probe="$fp")"
assert_eq "nofp entries" "$total" "$(jcount dump.json type=uprobe probe="$nofp")"
assert_eq "nofp returns" "$total" "$(jcount dump.json type=uretprobe probe="$nofp")"
assert_eq "usdt hits" "$((t * m))" "$(jcount dump.json type=usdt probe="$usdt")"
# Only probe_target runs this binary, so every hit is its.
for ty in uprobe uretprobe usdt; do
	assert_eq "$ty hits from probe_target" "$(jcount dump.json type=$ty)" \
		"$(jcount dump.json type=$ty pid="$tgt_pid")"
done

# Arguments and return values, call by call (each i once per thread).
expect "$n" "$t" "$a \",\" $b \",\" i" > want.args
jargs dump.json type=uprobe probe="$fp" > fp.args
assert_same "fp entry arguments" want.args fp.args
jargs dump.json type=uprobe probe="$nofp" > nofp.args
assert_same "nofp entry arguments" want.args nofp.args
expect "$n" "$t" "$a + $b + i" > want.fp.ret
jvals dump.json ret type=uretprobe probe="$fp" > fp.ret
assert_same "fp return values" want.fp.ret fp.ret
expect "$n" "$t" "$a * $b + i" > want.nofp.ret
jvals dump.json ret type=uretprobe probe="$nofp" > nofp.ret
assert_same "nofp return values" want.nofp.ret nofp.ret
expect "$m" "$t" "i \",\" $a \",\" $b" > want.usdt
jargs dump.json type=usdt probe="$usdt" > usdt.args
assert_same "usdt arguments" want.usdt usdt.args

# Two threads, and each thread's entries and returns pair up: per tid, as
# many returns as entries.
tids=$(jvals dump.json tid type=uprobe probe="$fp" | sort -u)
assert_eq "threads that called fp" "$t" "$(echo "$tids" | wc -l)"
for tid in $tids; do
	assert_eq "fp entries of thread $tid" "$n" "$(jcount dump.json type=uprobe probe="$fp" tid="$tid")"
	assert_eq "fp returns of thread $tid" "$n" "$(jcount dump.json type=uretprobe probe="$fp" tid="$tid")"
done
note "$total entries and returns per function, $((t * m)) USDT hits, all with the right values"
