#!/bin/sh
# --on-snapshot PROGRAM runs after each snapshot (any reason) with the
# snapshot's path as its argument and the reason in FREC_REASON, its output
# logged; a PROGRAM that hangs is killed at --on-snapshot-timeout, logged
# and counted as a failure, and recording goes on: a later snapshot holds
# what happened after.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

t="runq>20ms,comm=victim,delay=0.5s"
# frec status --json: the count of PROGRAM runs that failed (frecd(8))
failures_key=failures	# in "on_snapshot":{...}, the only key of that name
# frecd's log line when it kills PROGRAM at the timeout
killed_re="timed out|timeout|killed"

cat > hook.sh <<EOF
#!/bin/sh
echo "hook output for \$1"
printf '%s\n%s\n' "\$1" "\$FREC_REASON" >> "$WORK/hook.out"
EOF
cat > hang.sh <<EOF
#!/bin/sh
echo \$\$ > "$WORK/hang.pid"
exec sleep 1000
EOF
chmod 755 hook.sh hang.sh

# --- the path and the reason: a snapshot asked for, then a trigger's --------------
mkdir snaps
start_frecd -o "$WORK/snaps" --on-snapshot "$WORK/hook.sh" --trigger "$t"
p1=$("$FREC" snapshot --reason "asked for" --socket "$FRECD_SOCKET") || fail "frec snapshot failed"
wait_count hook.out . 2 "the hook's first run"
assert_eq "hook run 1: its argument" "$p1" "$(sed -n 1p hook.out)"
assert_eq "hook run 1: FREC_REASON" "socket: asked for" "$(sed -n 2p hook.out)"
spike_run spike.out 1 300
wait_snaps "$WORK/snaps" 2
wait_count hook.out . 4 "the hook's second run"
p2=$(snaps "$WORK/snaps" | tail -n 1)
assert_eq "hook run 2: its argument" "$p2" "$(sed -n 3p hook.out)"
"$FREC" info --json "$p2" > info.json || fail "frec info --json failed"
assert_eq "hook run 2: FREC_REASON (the header's reason)" "$(jvals info.json reason)" "$(sed -n 4p hook.out)"
assert_reason "$(sed -n 4p hook.out)" "$t" "tid $victim comm victim value "
wait_for "$WORK/frecd.log" "hook output for $p2" "the hook's output in frecd's log"
assert_eq "hook runs" 4 "$(wc -l < hook.out)"
assert_eq "failed hook runs" 0 "$(status_field "$failures_key")"
stop_frecd

# --- a hook that hangs: killed at the timeout, recording goes on ------------------
mkdir snaps2
start_frecd -o "$WORK/snaps2" --on-snapshot "$WORK/hang.sh" --on-snapshot-timeout 1s
snapshot "$WORK/snaps2" > /dev/null
wait_for hang.pid . "the hanging hook's start"
hang=$(cat hang.pid)
TRIG_PIDS="$hang"
i=0
while kill -0 "$hang" 2> /dev/null; do
	[ $i -lt 100 ] || fail "the hanging hook ($hang) still runs 10 s after it started (timeout 1 s)"
	sleep 0.1; i=$((i + 1))
done
note "the hanging hook was gone after about $((i / 10)).$((i % 10)) s"
wait_for "$WORK/frecd.log" "$killed_re" "the kill at the timeout in frecd's log"
i=0
while [ "$(status_field "$failures_key")" != 1 ]; do
	[ $i -lt 100 ] || fail "frec status: $failures_key is '$(status_field "$failures_key")', expected 1"
	sleep 0.1; i=$((i + 1))
done
kill -0 "$FRECD_PID" || fail "frecd exited after killing its hook"
"$PROGS/forkexec" "$PROGS/forkexec" --exit 0 > fe.out || fail "forkexec failed"
rm hang.pid
later=$(snapshot "$WORK/snaps2")
dump_json "$later" dump.json
assert_eq "forkexec's exec, after the hook was killed" 1 \
	"$(jcount dump.json type=sched_process_exec pid="$(field fe.out child)")"
wait_for hang.pid . "the hook's second run"
TRIG_PIDS="$(cat hang.pid)"
stop_frecd
exit 0
