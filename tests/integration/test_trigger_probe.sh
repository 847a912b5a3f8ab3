#!/bin/sh
# probe:SPEC fires on a probe hit: slow_call fires the USDT probe
# frec_slow:once exactly once (with its tid and N as arguments). With
# probe:usdt:... (which attaches the probe itself, no --probe): one
# snapshot, one trigger record, for slow_call's thread, stamped at the hit
# (at or after its usdt record, before the program exits), value the
# probe's first argument (the tid); the usdt record is in the snapshot.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

usdt="usdt:$SLOW:frec_slow:once"
t="probe:$usdt,comm=slow_call,delay=0.5s"

mkdir snaps
start_frecd -o "$WORK/snaps" --trigger "$t"
"$SLOW" 2 0 > slow.out 2>&1 || { cat slow.out >&2; fail "slow_call failed"; }
grep -q '^done$' slow.out || fail "slow_call did not finish"
tid=$(field slow.out tid)
assert_eq "the tid slow_call fired with" "$tid" "$(field slow.out fired)"
one_snapshot "$t" "tid $tid comm slow_call value "
assert_eq "usdt hits" 1 "$(jcount dump.json type=usdt probe="$usdt" tid="$tid")"
assert_eq "trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "trigger records that fired" 1 "$(jcount dump.json type=trigger suppressed="$TRIG_NO")"
assert_eq "the trigger's name" "$t" "$(jvals dump.json name type=trigger)"
assert_eq "the trigger's tid" "$tid" "$(jvals dump.json tid type=trigger)"
assert_eq "the trigger's value (the probe's first argument)" "$tid" "$(jvals dump.json value_ns type=trigger)"
hit=$(jvals dump.json ts type=usdt probe="$usdt" tid="$tid")
tts=$(jvals dump.json ts type=trigger)
[ "$tts" -ge "$hit" ] || fail "trigger at $tts, before the probe hit at $hit"
exit_ts=$(jvals dump.json ts type=sched_process_exit pid="$tid")
[ -n "$exit_ts" ] || fail "slow_call's exit is not in the snapshot"
[ "$tts" -le "$exit_ts" ] || fail "trigger at $tts, after slow_call exited at $exit_ts"
note "usdt hit at $hit, trigger at $tts, slow_call exited at $exit_ts"
exit 0
