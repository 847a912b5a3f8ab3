#!/bin/sh
# manual:NAME fires when someone runs `frec trigger NAME`: the client waits
# for the snapshot and prints its path; the snapshot's reason names the
# trigger and the client's pid, its one trigger record is the client's
# (value 0), and it was cut at least the delay after the trigger. A name no
# trigger has is an error that writes nothing.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

name=dbsnap
t="manual:$name,delay=0.5s"
delay_ns=500000000

mkdir snaps
start_frecd -o "$WORK/snaps" --trigger "$t"
"$FREC" trigger "$name" --socket "$FRECD_SOCKET" > path 2> err &
client=$!
wait "$client" || { cat err >&2; fail "frec trigger $name exited $?"; }
[ ! -s err ] || fail "frec trigger $name: $(cat err)"
p=$(cat path)
assert_eq "lines frec trigger printed" 1 "$(wc -l < path)"
[ -f "$p" ] || fail "frec trigger printed '$p', which is not a file"
assert_eq "the snapshot's directory" "$WORK/snaps" "$(dirname "$p")"
wait_idle
assert_eq "snapshots" 1 "$(nsnaps "$WORK/snaps")"
assert_trig "$t" "$TRIG_FIRED" 1
assert_trig "$t" "$TRIG_SNAPS" 1

# A name no manual: trigger has: an error, and no snapshot.
"$FREC" trigger nosuch --socket "$FRECD_SOCKET" > out2 2> err2
rc=$?
[ $rc -ne 0 ] || fail "frec trigger nosuch: exit 0"
assert_eq "frec trigger nosuch: stdout" "" "$(cat out2)"
assert_eq "frec trigger nosuch: lines on stderr" 1 "$(wc -l < err2)"
note "frec trigger nosuch: exit $rc, $(cat err2)"
sleep 1		# nothing to wait for: a snapshot would come after the delay
assert_eq "snapshots after frec trigger nosuch" 1 "$(nsnaps "$WORK/snaps")"
assert_trig "$t" "$TRIG_FIRED" 1
stop_frecd

dump_json "$p" dump.json
"$FREC" info --json "$p" > info.json || fail "frec info --json failed"
assert_reason "$(jvals info.json reason)" "$t" "tid $client "
assert_eq "trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "the trigger's name" "$t" "$(jvals dump.json name type=trigger)"
assert_eq "the trigger's tid (the client)" "$client" "$(jvals dump.json tid type=trigger)"
assert_eq "the trigger's value" 0 "$(jvals dump.json value_ns type=trigger)"
assert_eq "the trigger's cpu (none: the client's request)" 4294967295 "$(jvals dump.json cpu type=trigger)"
tts=$(jvals dump.json ts type=trigger)
# cut at least the delay after the trigger: where the newest generation
# ends (an idle machine may record nothing in the delay's last moments)
end=$(jvals info.json end_ts)
[ "$end" -ge $((tts + delay_ns)) ] || fail "the snapshot was cut at $end, less than the delay after the trigger ($tts)"
exit 0
