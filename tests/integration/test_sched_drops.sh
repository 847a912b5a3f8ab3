#!/bin/sh
# Lost events are never silent. frecd is stopped (SIGSTOP) while a workload
# fills its smallest ring: the BPF programs count every record they could not
# reserve, and after SIGCONT frecd logs the loss, and the snapshot carries it
# as lost-event records per CPU, which frec info sums up.
. "$FREC_TEST_LIB"

mkdir snaps
start_frecd -o "$WORK/snaps" --ring-size 64K --ring-min 32K
kill -STOP "$FRECD_PID"
"$PROGS/pingpong" "$(scaled 20000)" < /dev/null > pp.out || { kill -CONT "$FRECD_PID"; fail "pingpong failed"; }
kill -CONT "$FRECD_PID"
wait_for "$WORK/frecd.log" "lost [0-9]+ events since start" "the drop message"
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json
"$FREC" info "$snap" > info.out || fail "frec info failed"

logged=$(sed -n 's/.*lost \([0-9]*\) events since start.*/\1/p' "$WORK/frecd.log")
in_log=$(sed -n 's/.*snapshot .*: [0-9]* events, \([0-9]*\) lost,.*/\1/p' "$WORK/frecd.log")
total=$(sed -n 's/.*recorded [0-9]* events, \([0-9]*\) lost.*/\1/p' "$WORK/frecd.log")
in_dump=$(jvals dump.json count type=lost | awk '{ n += $1 } END { print n + 0 }')
in_info=$(awk '$1 == "drops:" { print $2 }' info.out)
note "lost: $logged in the first message, $in_log in the snapshot's line, $in_dump in the dump, $in_info in frec info, $total at exit"
[ "$logged" -gt 0 ] || fail "no drops with a stopped consumer and a 64K ring"
# A 64K ring may keep losing a little on a busy machine after SIGCONT, so
# the counts only grow; the snapshot's own count is exact everywhere.
assert_range "lost in the snapshot" "$logged" "$total" "$in_log"
assert_eq "lost in the snapshot's records" "$in_log" "$in_dump"
assert_eq "drops in frec info" "$in_log" "$in_info"
[ "$(jvals dump.json cpu type=lost | sort -u | wc -l)" -ge 1 ] || fail "lost records name no CPU"
exit 0
