#!/bin/sh
# SIGTERM and SIGUSR1 during start-up, before frecd is ready. frecd blocks
# its signals first thing in main(), so neither takes its default action
# (death) while the BPF programs load:
#  - SIGTERM (with a SIGUSR1 next to it) before anything is attached: frecd
#    stops at the next step with exit 0, never says ready, writes nothing;
#  - SIGTERM once the scheduler programs are attached, while the probes
#    attach: frecd detaches everything and exits 0; none of the programs and
#    links it held remains;
#  - SIGUSR1 (five of them) before anything is attached: honoured once frecd
#    is ready, as one snapshot.
# frecd is frozen (SIGSTOP) at the point of start-up under test, so that the
# signals arrive there and nowhere else; a run that froze it too late (its
# log already says what the case needs it not to) is tried again.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/fault_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

# the 8 scheduler links, not ready yet (the probes take a while to attach)
sched_attached() { [ "$(frecd_ids link_id | grep -c .)" -ge 8 ]; }
probes="--probe func:$TARGET:frec_target_fp --probe func:$TARGET:frec_target_nofp
	--probe usdt:$TARGET:frec_target:tick --probe func:$TARGET_LIB:frec_lib_mul"

# --- SIGTERM (and SIGUSR1) before attach -----------------------------------------
mkdir a
tries=0
while :; do
	tries=$((tries + 1))
	[ $tries -le 20 ] || fail "frecd never caught before it attached anything, in 20 tries"
	launch_frecd -o "$WORK/a"
	stop_when signals_blocked
	if grep -q "attached" "$WORK/frecd.log"; then
		kill -CONT "$FRECD_PID"; cleanup_frecd; continue
	fi
	kill -USR1 "$FRECD_PID"
	kill -TERM "$FRECD_PID"
	kill -CONT "$FRECD_PID"
	wait_frecd
	break
done
[ "$RC" -eq 0 ] || { cat "$WORK/frecd.log" >&2; fail "SIGTERM before attach: exit $RC, not 0"; }
grep -q "Terminated during start-up: stopping" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "no start-up stop line"; }
! grep -q "ready" "$WORK/frecd.log" || fail "frecd said ready after a SIGTERM during start-up"
assert_eq "files written with SIGUSR1 and SIGTERM during start-up" "" "$(ls -A "$WORK/a")"
note "before attach ($tries tries): $(sed -n 's/.*frecd info: \(Terminated during start-up.*\)/\1/p' "$WORK/frecd.log")"

# --- SIGTERM with the scheduler programs attached ----------------------------------
mkdir b
tries=0
while :; do
	tries=$((tries + 1))
	[ $tries -le 20 ] || fail "frecd never caught between attach and ready, in 20 tries"
	# shellcheck disable=SC2086
	launch_frecd -o "$WORK/b" $probes
	stop_when sched_attached
	if grep -q "ready" "$WORK/frecd.log"; then
		kill -CONT "$FRECD_PID"; cleanup_frecd; continue
	fi
	progs=$(frecd_ids prog_id)
	links=$(frecd_ids link_id)
	kill -TERM "$FRECD_PID"
	kill -CONT "$FRECD_PID"
	wait_frecd
	break
done
[ "$RC" -eq 0 ] || { cat "$WORK/frecd.log" >&2; fail "SIGTERM after attach: exit $RC, not 0"; }
grep -q "Terminated during start-up: stopping and detaching" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "no start-up stop-and-detach line"; }
! grep -q "ready" "$WORK/frecd.log" || fail "frecd said ready after a SIGTERM during start-up"
assert_range "links held when stopped" 8 1000 "$(echo "$links" | grep -c .)"
assert_ids_gone "SIGTERM during start-up" "$progs" "$links"
note "after attach ($tries tries): $(echo $progs | wc -w) programs and $(echo $links | wc -w) links held, all gone"

# --- SIGUSR1 before attach ---------------------------------------------------------
mkdir c
tries=0
while :; do
	tries=$((tries + 1))
	[ $tries -le 20 ] || fail "frecd never caught before it attached anything, in 20 tries"
	launch_frecd -o "$WORK/c"
	stop_when signals_blocked
	if grep -q "attached" "$WORK/frecd.log"; then
		kill -CONT "$FRECD_PID"; cleanup_frecd; continue
	fi
	for i in 1 2 3 4 5; do kill -USR1 "$FRECD_PID"; done
	kill -CONT "$FRECD_PID"
	break
done
wait_for "$WORK/frecd.log" "frecd info: ready:" "ready after a SIGUSR1 during start-up"
wait_count "$WORK/frecd.log" "snapshot .*: [0-9]+ events" 1 "the snapshot asked for during start-up"
stop_frecd
assert_eq "snapshots from 5 SIGUSR1 during start-up" 1 "$(ls "$WORK/c" | grep -c '\.frec$')"
snap=$(ls "$WORK"/c/*.frec)
"$FREC" info "$snap" > info.out || fail "frec info $snap failed"
grep -q SIGUSR1 info.out || fail "$snap: no SIGUSR1 reason"
# taken after ready: the log says ready before the snapshot
first=$(grep -n "ready:" "$WORK/frecd.log" | cut -d: -f1)
snapline=$(grep -n "snapshot .*: [0-9]* events" "$WORK/frecd.log" | cut -d: -f1)
[ "$first" -lt "$snapline" ] || fail "the snapshot was logged before ready"
exit 0
