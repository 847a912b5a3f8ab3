#!/bin/sh
# lost fires when the recorder loses events: frecd stops draining its
# small rings (--debug-stall-ms, started and ended by SIGUSR2) while
# probe_target makes 3000 probed calls on CPU 0, more than CPU 0's ring
# holds. With --debug-probes-only the uprobe records are the only ones in
# the ring (see test_fault_ring_overflow.sh), so the count is exact: the
# trigger's snapshot holds one trigger record, of no thread (tid 0), whose
# value is a number of records lost, at most the snapshot's lost count,
# and consumed + lost is still every call.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

n=3000
fp="uprobe:$TARGET:frec_target_fp"
t="lost,delay=0.5s"

start_target tgt -c 0 -t 1 "$n" 0 7 3
mkdir snaps
start_frecd -o "$WORK/snaps" -p "$tgt_pid" --probe "$fp" --ring-size 64K --ring-min 32K --window 3600 \
	--debug-stall-ms 600000 --debug-probes-only --trigger "$t"
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "SIGUSR2: not draining the ring buffer" "the stall"
run_target tgt
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "draining the ring buffer again" "the end of the stall"
one_snapshot "$t" ""
consumed=$(jcount dump.json type=uprobe)
lost=$(jvals dump.json count type=lost | awk '{ n += $1 } END { print n + 0 }')
assert_eq "trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "trigger records that fired" 1 "$(jcount dump.json type=trigger suppressed="$TRIG_NO")"
assert_eq "the trigger's name" "$t" "$(jvals dump.json name type=trigger)"
assert_eq "the trigger's tid (none)" 0 "$(jvals dump.json tid type=trigger)"
value=$(jvals dump.json value_ns type=trigger)
note "$n calls: $consumed consumed, $lost lost; the trigger's value $value"
[ "$lost" -gt 0 ] || fail "nothing lost with a stalled 64K ring"
assert_eq "consumed + lost" "$n" "$((consumed + lost))"
assert_range "the trigger's value (records lost)" 1 "$lost" "$value"
exit 0
