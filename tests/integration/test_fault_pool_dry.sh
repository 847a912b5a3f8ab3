#!/bin/sh
# Events that find no room in frecd's memory are not lost silently: they
# are written into the stream as lost events, so that the next snapshot
# accounts for every one: events consumed + events counted as lost ==
# events produced, exactly.
#
# With --max-size 64K, frecd keeps about 56K of sealed generations and
# leaves the open generation room for a few hundred probe records. A first
# probe_target (filler) fills the window; --debug-writer-delay-ms then holds
# a snapshot in the writer with that full window pinned, and a second
# probe_target calls frec_target_fp exactly N times meanwhile: the room
# fills and the rest is discarded. Once that snapshot is written, a second
# one must hold the calls that were stored and, as lost events, the ones
# that were not: together N. --debug-probes-only keeps the scheduler
# programs out, so every record is a call.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=3000
delay=4000	# ms: the calls and their drain fit with a wide margin, also under TCG
holding="snapshot writer: waiting $delay ms before writing"
fp="uprobe:$TARGET:frec_target_fp"

# taken: "events" + "events_discarded" + ring "lost", all the calls frecd saw
taken() {
	echo $(($(status_field events) + $(status_field events_discarded) + $(status_field lost)))
}
# wait_taken N: until frecd has taken N calls
wait_taken() {
	i=0
	until [ "$(taken)" -ge "$1" ]; do
		[ $i -lt 100 ] || { cat "$WORK/frecd.log" >&2; fail "frecd did not take $1 calls in 10 s"; }
		sleep 0.1; i=$((i + 1))
	done
}

nfill=6000	# about 90K of records: more than the window holds
start_target fill -c 0 -t 1 "$nfill" 0 1 1
start_target tgt -c 0 -t 1 "$n" 0 7 3
mkdir -m 700 snaps
start_frecd -o "$WORK/snaps" -p "$fill_pid" -p "$tgt_pid" --probe "$fp" --probe-args 3 \
	--max-size 64K --window 3600 --period 100 --debug-probes-only \
	--debug-writer-delay-ms $delay
run_target fill
wait_taken $nfill
assert_eq "events discarded before the snapshot" 0 "$(status_field events_discarded)"
kill -USR1 "$FRECD_PID"
wait_for "$WORK/frecd.log" "$holding" "the writer holding the first snapshot"
run_target tgt
wait_taken $((nfill + n))
# Not a timed assertion: if this fails, the calls came after the first
# write, and the test needs a longer --debug-writer-delay-ms.
assert_eq "snapshots during the calls" "0 written, 0 failed, one in progress" "$(snapshots_status)"
discarded=$(status_field events_discarded)
[ "$discarded" -gt 0 ] || fail "no event was discarded with the window pinned and --max-size 64K"
wait_idle
kill -USR1 "$FRECD_PID"
wait_count "$WORK/frecd.log" "$holding" 2 "the writer holding the second snapshot"
wait_idle
discarded=$(status_field events_discarded)
ring_lost=$(status_field lost)
stop_frecd

first=$(ls snaps/*.frec | sort | head -n 1)
second=$(ls snaps/*.frec | sort | tail -n 1)
[ "$first" != "$second" ] || fail "one snapshot, not two"
dump_json "$first" first.json
dump_json "$second" dump.json
consumed=$(jcount dump.json type=uprobe pid="$tgt_pid")
lost=$(jvals dump.json count type=lost | awk '{ n += $1 } END { print n + 0 }')
lost_cpus=$(jvals dump.json cpu type=lost | sort -u | tr '\n' ' ')
"$FREC" info "$second" > info.out || fail "frec info failed"
in_info=$(awk '$1 == "drops:" { print $2 }' info.out)
note "$n calls: $consumed stored + $lost lost = $((consumed + lost)); frecd discarded $discarded, the ring lost $ring_lost"

assert_eq "calls in the first snapshot (pinned before them)" 0 \
	"$(jcount first.json type=uprobe pid="$tgt_pid")"
[ "$(jcount first.json type=uprobe pid="$fill_pid")" -gt 0 ] || fail "the first snapshot holds no filler calls"
assert_eq "lost in the second snapshot: discarded + ring drops" $((discarded + ring_lost)) "$lost"
assert_eq "stored + lost" "$n" $((consumed + lost))
# All the calls ran on CPU 0, and that is where they are lost, also those of
# a generation that could not be sealed; frec info counts them all.
assert_eq "CPUs of the lost events" "0 " "$lost_cpus"
assert_eq "drops in frec info" "$lost" "$in_info"
# frecd warned, with the count and the option to raise (one message, or
# more 5 s apart: their counts add up).
warned=$(sed -n 's/.*frecd warn: \([0-9]*\) events found no room in memory.*raise --max-size (now 64K).*/\1/p' \
	"$WORK/frecd.log" | awk '{ n += $1 } END { print n + 0 }')
assert_eq "events in frecd's no-room warnings" "$discarded" "$warned"
# The stored ones begin with the first call and are in order, each once:
# discarding starts when the room is full. It stops again only when chunks
# come back: when the snapshot lets go, or when a generation that could not
# be sealed gives back its own (its events become lost too), which a slow
# machine (a VM under TCG) meets while the calls still run.
jargs dump.json type=uprobe pid="$tgt_pid" | cut -d, -f3 > args
assert_eq "distinct calls stored" "$consumed" "$(sort -u args | wc -l)"
assert_eq "the first call is stored first" 1 "$(head -n 1 args)"
sort -n -c args || fail "the stored calls are not in the order they were made"
exit 0
