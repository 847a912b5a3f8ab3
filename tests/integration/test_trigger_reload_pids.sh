#!/bin/sh
# A reload that arms a scheduler trigger kind loads a new program set: the
# -p filter (from the configuration file) must hold in it too. frecd follows
# pingpong a (pid = in its file); SIGHUP adds a runq> trigger that never
# fires; then both pingpongs run: the snapshot holds a's switches and
# wakeups and nothing about b, as test_sched_pid_filter checks without the
# reload.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

pid_filter_pair
mkdir snaps
cf="$WORK/frecd.conf"
printf 'output = %s\npid = %s\n' "$WORK/snaps" "$a" > "$cf"
start_frecd --config "$cf"
printf 'output = %s\npid = %s\ntrigger = runq>10s\n' "$WORK/snaps" "$a" > "$cf"
kill -HUP "$FRECD_PID" || fail "frecd is not running"
wait_for "$WORK/frecd.log" "frecd info: reloaded .* 1 triggers, filtered by -p" "the reload that arms runq>"
pid_filter_check
exit 0
