#!/bin/sh
# runq>DUR fires on a known run-queue wait, once, and not below its
# threshold: runq_spike makes its thread "victim" wait about 49 ms behind a
# SCHED_FIFO spinner, once. With runq>20ms (narrowed to the victim): exactly
# one snapshot, its reason names the trigger, it holds exactly one trigger
# record, for the victim, whose value is the wait the snapshot's own events
# show (sched_waking to switch-in) and at least 40 ms, and it was cut at
# least the delay after the trigger. With runq>200ms: no snapshot, fired 0,
# although the wait is in the recording.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

delay_ns=500000000
t1="runq>20ms,comm=victim,delay=0.5s"
t2="runq>200ms,comm=victim,delay=0.5s"
# The trigger's value against the wait between the snapshot's own events:
# the same clock reads in BPF, so equal.
slack_ns=0

# --- runq>20ms: one snapshot ------------------------------------------------------
mkdir snaps
start_frecd -o "$WORK/snaps" --window 30 --trigger "$t1"
spike_run spike.out 1 300
wait_snaps "$WORK/snaps" 1
assert_eq "snapshots" 1 "$(nsnaps "$WORK/snaps")"
assert_trig "$t1" "$TRIG_FIRED" 1
assert_trig "$t1" "$TRIG_SNAPS" 1
assert_trig "$t1" "$TRIG_SUPP_DELAY" 0
assert_trig "$t1" "$TRIG_SUPP_COOLDOWN" 0
assert_trig "$t1" "$TRIG_SUPP_RATE" 0
snap=$(snaps "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json
"$FREC" info --json "$snap" > info.json || fail "frec info --json failed"

assert_reason "$(jvals info.json reason)" "$t1" "tid $victim comm victim value "
assert_eq "trigger records that fired" 1 "$(jcount dump.json type=trigger suppressed="$TRIG_NO")"
assert_eq "suppressed trigger records" 0 "$(jcount dump.json type=trigger suppressed="$TRIG_YES")"
assert_eq "trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "the trigger's name" "$t1" "$(jvals dump.json name type=trigger)"
assert_eq "the trigger's tid" "$victim" "$(jvals dump.json tid type=trigger)"
assert_eq "the trigger's pid" "$(field spike.out pid)" "$(jvals dump.json pid type=trigger)"
assert_eq "the trigger's comm" victim "$(jvals dump.json comm type=trigger)"
assert_eq "the trigger's count" 1 "$(jvals dump.json count type=trigger)"
value=$(jvals dump.json value_ns type=trigger)
tts=$(jvals dump.json ts type=trigger)

# The program's own stamps bracket the kernel's: it stamps "woken" before
# the write that wakes the victim, "ran" once the victim runs again.
set -- $(spike_waits spike.out)
woken=$1 ran=$2
note "victim $victim: woken at $woken, ran at $ran ($(( (ran - woken) / 1000 )) us); trigger at $tts, value $value ns"
assert_range "the trigger's value (ns)" 40000000 $((ran - woken)) "$value"
assert_range "the trigger's time" "$woken" "$ran" "$tts"

# The same wait in the snapshot's events: exactly one victim wait over
# 20 ms, equal to the value.
runq_waits dump.json "$victim" 20000000 > waits
assert_eq "victim waits over 20 ms in the events" 1 "$(wc -l < waits)"
read -r sw wait < waits
note "the events: the victim switched in at $sw after $wait ns"
assert_range "the trigger's value against the events' wait" $((wait - slack_ns)) $((wait + slack_ns)) "$value"

# The delay: the snapshot was cut at least delay after the trigger. The
# cut is where its newest generation ends, not its last event: an idle
# machine may record nothing in the last milliseconds (an 8-CPU VM's last
# event came 0.6 ms before the delay was up).
end=$(jvals info.json end_ts)
note "the snapshot was cut $(( (end - tts) / 1000000 )) ms after the trigger, its last event $(( ($(last_ts dump.json) - tts) / 1000000 )) ms after (delay 500 ms)"
[ "$end" -ge $((tts + delay_ns)) ] || fail "the snapshot was cut at $end, less than the delay after the trigger ($tts)"

# --- runq>200ms: none ---------------------------------------------------------------
mkdir snaps2
start_frecd -o "$WORK/snaps2" --window 30 --trigger "$t2"
spike_run spike2.out 1 300
victim2=$victim
# Nothing to wait for: a firing would have been at the spike, and its
# snapshot half a second later.
sleep 2
assert_eq "snapshots with runq>200ms" 0 "$(nsnaps "$WORK/snaps2")"
assert_trig "$t2" "$TRIG_FIRED" 0
assert_trig "$t2" "$TRIG_SNAPS" 0
# ... although the wait was recorded: it happened while frecd watched.
snap2=$(snapshot "$WORK/snaps2")
stop_frecd
dump_json "$snap2" dump2.json
assert_eq "trigger records with runq>200ms" 0 "$(jcount dump2.json type=trigger)"
runq_waits dump2.json "$victim2" 40000000 > waits2
assert_eq "victim waits over 40 ms recorded with runq>200ms" 1 "$(wc -l < waits2)"
note "runq>200ms: no snapshot for a $(awk '{ print int($2 / 1000) }' waits2) us wait"
exit 0
