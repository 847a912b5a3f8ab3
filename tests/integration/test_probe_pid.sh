#!/bin/sh
# With -p, user probes fire only in that process: two processes of the same
# binary make the same calls; the snapshot holds exactly N entries, N returns
# and M USDT hits, all from the one named with -p, none from the other.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 400)
m=$(scaled 200)
fp="func:$TARGET:frec_target_fp"
usdt="usdt:$TARGET:frec_target:tick"

start_target one "$n" "$m" 5 6
start_target two "$n" "$m" 5 6
mkdir snaps
start_frecd -o "$WORK/snaps" -p "$one_pid" --probe "$fp" --probe "$usdt"
run_target one
run_target two
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
assert_eq "entries in -p $one_pid" "$n" "$(jcount dump.json type=uprobe probe="$fp" pid="$one_pid")"
assert_eq "returns in -p $one_pid" "$n" "$(jcount dump.json type=uretprobe probe="$fp" pid="$one_pid")"
assert_eq "usdt hits in -p $one_pid" "$m" "$(jcount dump.json type=usdt probe="$usdt" pid="$one_pid")"
for ty in uprobe uretprobe usdt; do
	assert_eq "$ty hits from the other process" 0 "$(jcount dump.json type=$ty pid="$two_pid")"
	assert_eq "$ty hits in all" "$(jcount dump.json type=$ty pid="$one_pid")" "$(jcount dump.json type=$ty)"
done
expect "$n" 1 '5 + 6 + i' > want.ret
jvals dump.json ret type=uretprobe probe="$fp" > got.ret
assert_same "return values" want.ret got.ret
