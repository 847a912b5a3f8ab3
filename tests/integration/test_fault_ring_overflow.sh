#!/bin/sh
# A ring buffer overflow provoked on purpose loses nothing silently: events
# consumed + events counted as lost == events produced, exactly.
#
# probe_target calls frec_target_fp exactly N times, on CPU 0 only, while
# frecd does not drain its rings (64K in all; --debug-stall-ms, started and
# ended by SIGUSR2), so most hits cannot be reserved in CPU 0's ring. With --debug-probes-only the scheduler
# programs record nothing (their pid filter matches no process), so the
# uprobe records are the only ones in the ring and every lost event is a
# lost hit: the uprobe events in the snapshot plus the lost counts in the
# snapshot must be N, not about N. A record that vanished between the ring
# and the file, a drop not counted, or one counted twice breaks the sum.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=3000			# fixed: more than a 64K ring holds even under the VM's scale
ring=65536
rec=96			# struct frec_rec_probe (88) + the ring's 8-byte header
fp="uprobe:$TARGET:frec_target_fp"

start_target tgt -c 0 -t 1 "$n" 0 7 3
mkdir snaps
start_frecd -o "$WORK/snaps" -p "$tgt_pid" --probe "$fp" --probe-args 3 \
	--ring-size 64K --ring-min 32K --window 3600 --debug-stall-ms 600000 --debug-probes-only
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "SIGUSR2: not draining the ring buffer" "the stall"
run_target tgt		# all N calls, then it exits
sleep 0.2		# a stall longer than FRECD_SLOW_GAP_MS (100 ms), for frec status
kill -USR2 "$FRECD_PID"
wait_for "$WORK/frecd.log" "draining the ring buffer again" "the end of the stall"
snap=$(snapshot "$WORK/snaps")
wait_ns=$(status_field max_wait_ns)
slow=$(status_field slow_waits)
stop_frecd
dump_json "$snap" dump.json
"$FREC" info "$snap" > info.out || fail "frec info failed"

consumed=$(jcount dump.json type=uprobe)
from_tgt=$(jcount dump.json type=uprobe probe="$fp" pid="$tgt_pid")
lost=$(jvals dump.json count type=lost | awk '{ n += $1 } END { print n + 0 }')
in_info=$(awk '$1 == "drops:" { print $2 }' info.out)
in_log=$(sed -n 's/.*snapshot .*: [0-9]* events, \([0-9]*\) lost,.*/\1/p' "$WORK/frecd.log")
sched=$(awk '/"type":"sched_/ || /"type":"task_/ { n++ } END { print n + 0 }' dump.json)
note "$n calls: $consumed consumed + $lost lost = $((consumed + lost)); frec info: $in_info drops; scheduler events: $sched"

assert_eq "scheduler events with --debug-probes-only" 0 "$sched"
assert_eq "uprobe events from probe_target" "$consumed" "$from_tgt"
# The stall held: no more hits than CPU 0's ring (an equal power-of-two
# share of the 64K, but at least --ring-min's 32K) holds were consumed, so
# the rest had to be lost; and it was not empty.
ncpus=$(awk '$1 == "cpus:" { print $2 }' info.out)
per=32768
while [ $((per * 2 * ncpus)) -le $ring ]; do per=$((per * 2)); done
assert_range "hits consumed (at most a ring's worth)" 1 $((per / rec)) "$consumed"
[ "$lost" -gt 0 ] || fail "nothing lost with a stalled 64K ring"
assert_eq "consumed + lost" "$n" "$((consumed + lost))"
assert_eq "drops in frec info" "$lost" "$in_info"
assert_eq "lost in frecd's snapshot line" "$lost" "$in_log"
# The stall is the loop's longest wait between drains, and frecd says so:
# in frec status and in the drop warning (whole ms; the stall is logged
# rounded, hence the 1 ms).
stall_ms=$(sed -n 's/.*after a stall of \([0-9]*\) ms.*/\1/p' "$WORK/frecd.log")
wait_ms=$((wait_ns / 1000000))
warn_ms=$(sed -n 's/.*the longest wait between drains was \([0-9]*\)\.[0-9] ms.*/\1/p' "$WORK/frecd.log" | head -n 1)
note "stall $stall_ms ms; longest wait between drains: $wait_ms ms in frec status, $warn_ms ms in the drop warning; $slow slow waits"
[ -n "$stall_ms" ] && [ -n "$wait_ms" ] && [ -n "$warn_ms" ] || fail "stall, status or warning figure missing"
assert_range "longest wait in frec status (ms)" $((stall_ms - 1)) $((stall_ms + 5000)) "$wait_ms"
# the warning prints it to 0.1 ms (343.96 ms as 344.0): at most 0.05 ms up
assert_range "longest wait in the drop warning (ms)" $((stall_ms - 1)) $(((wait_ns + 50000) / 1000000)) "$warn_ms"
assert_range "slow waits" 1 1000 "$slow"
# Arguments of the consumed ones: (7, 3, i), each i at most once, in order
# of i: the ring keeps the first hits and loses the later ones.
jargs dump.json type=uprobe > args
assert_eq "distinct calls consumed" "$consumed" "$(sort -u args | wc -l)"
assert_eq "the first calls are the ones kept" "7,3,$consumed" "$(tail -n 1 args)"
# The lost events say when the hits were lost, not when frecd noticed
# (after the stall): after the last hit kept,
# and each is stamped where its span began (its generation began before).
last_kept=$(jvals dump.json ts type=uprobe | sort -n | tail -n 1)
jvals dump.json first_ts type=lost > first
jvals dump.json last_ts type=lost > last
jvals dump.json ts type=lost > stamp
assert_eq "lost events with a span" "$(wc -l < stamp)" "$(grep -c '^[0-9]' first)"
paste -d ' ' first last stamp | while read -r f l t; do
	[ "$f" -gt "$last_kept" ] || fail "lost span starts at $f, not after the last hit kept ($last_kept)"
	[ "$l" -ge "$f" ] || fail "lost span ends at $l before it starts ($f)"
	[ "$t" -eq "$f" ] || fail "lost event stamped at $t, not where its span began ($f)"
done || exit 1
note "lost span: $(head -n 1 first) .. $(tail -n 1 last), the last hit kept at $last_kept"
exit 0
