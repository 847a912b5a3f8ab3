#!/bin/sh
# Without -p, user probes fire in every process that runs the binary: two
# processes started before frecd and one started after it each make exactly
# N calls and M USDT hits, and the snapshot holds exactly that many from each.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 300)
m=$(scaled 100)
fp="func:$TARGET:frec_target_fp"
usdt="usdt:$TARGET:frec_target:tick"

start_target one "$n" "$m" 1 2
start_target two "$n" "$m" 3 4
mkdir snaps
start_frecd -o "$WORK/snaps" --probe "$fp" --probe "$usdt"
# Started once the probes are in place: uprobes attached for all processes
# hold on the file, so a new process is covered from its first instruction.
start_target late "$n" "$m" 5 6
run_target one
run_target two
run_target late
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
for p in one:1:2 two:3:4 late:5:6; do
	name=${p%%:*} ab=${p#*:}
	a=${ab%:*} b=${ab#*:}
	eval "pid=\$${name}_pid"
	assert_eq "$name entries" "$n" "$(jcount dump.json type=uprobe probe="$fp" pid="$pid")"
	assert_eq "$name returns" "$n" "$(jcount dump.json type=uretprobe probe="$fp" pid="$pid")"
	assert_eq "$name usdt hits" "$m" "$(jcount dump.json type=usdt probe="$usdt" pid="$pid")"
	expect "$n" 1 "$a \",\" $b \",\" i" > want.$name
	jargs dump.json type=uprobe probe="$fp" pid="$pid" > got.$name
	assert_same "$name arguments" want.$name got.$name
	expect "$m" 1 "i \",\" $a \",\" $b" > want.usdt.$name
	jargs dump.json type=usdt probe="$usdt" pid="$pid" > got.usdt.$name
	assert_same "$name usdt arguments" want.usdt.$name got.usdt.$name
done
assert_eq "entries in all" "$((3 * n))" "$(jcount dump.json type=uprobe)"
