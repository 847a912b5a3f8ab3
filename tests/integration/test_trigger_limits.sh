#!/bin/sh
# A trigger's rate limit and cooldown hold, and what they suppress is
# counted: runq_spike makes five victim waits of about 49 ms, 1.5 s apart
# (the first 0.2 s after its start).
#   cooldown=0,max=2/h: the first two fire (2 snapshots), the other three
#     are suppressed by the rate limit (frecd's policy);
#   cooldown=4s: the 1st and the 4th fire (4.5 s after it), the 2nd, 3rd and
#     5th are suppressed by the cooldown (in BPF): 2 snapshots in 7.5 s.
# Both: frec status counts them by reason, and a snapshot taken after the
# last spike (a generation later, so that its suppressed records are
# written) holds the two records that fired and suppressed records whose
# counts add up to 3.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

spikes=5 interval_ms=1500

# On a timeout: the spikes as runq_spike measured them, then as recorded
# (the victim's run-queue waits over 1 ms and the trigger records, from a
# snapshot taken now), so that a spike frecd did not see can be told from
# one the scheduler did not make.
limits_diag() {
	cat "$WORK/spike.$key.out"
	d=$(snapshot "$dir") || return 0
	"$FREC" dump --json "$d" > diag.json
	echo "the victim's run-queue waits over 1 ms (switch ts, wait ns):"
	runq_waits diag.json "$victim" 1000000
	echo "the trigger records:"
	grep '"type":"trigger"' diag.json
}
WAIT_SNAPS_DIAG=limits_diag

# limits TRIGGER SUPPRESSED_KEY SECOND: the run described above for
# TRIGGER, whose three suppressed firings are counted under SUPPRESSED_KEY
# and whose second firing is at spike SECOND
limits() {
	t=$1 key=$2 second=$3 dir="$WORK/snaps.$2"
	mkdir "$dir"
	start_frecd -o "$dir" --window 30 --trigger "$t"
	spike_run "spike.$key.out" "$spikes" "$interval_ms"
	assert_eq "spikes" "$spikes" "$(spike_waits "spike.$key.out" | wc -l)"
	wait_snaps "$dir" 2
	assert_trig "$t" "$TRIG_FIRED" 2
	assert_trig "$t" "$TRIG_SNAPS" 2
	wait_trig "$t" "$key" 3
	for k in "$TRIG_SUPP_DELAY" "$TRIG_SUPP_COOLDOWN" "$TRIG_SUPP_RATE"; do
		[ "$k" = "$key" ] || assert_trig "$t" "$k" 0
	done
	# Past one more seal (period 1 s), so that the suppressed records
	# are written, and 7.5 s after the first spike: still 2 snapshots.
	sleep 1.5
	assert_eq "$t: snapshots 7.5 s after the first spike" 2 "$(nsnaps "$dir")"
	all=$(snapshot "$dir")
	assert_eq "$t: snapshots, with the one asked for" 3 "$(nsnaps "$dir")"
	assert_trig "$t" "$TRIG_FIRED" 2
	assert_trig "$t" "$key" 3
	stop_frecd
	dump_json "$all" all.json
	assert_eq "$t: records that fired" 2 "$(jcount all.json type=trigger name="$t" suppressed="$TRIG_NO")"
	assert_eq "$t: records that fired for the victim" 2 \
		"$(jcount all.json type=trigger name="$t" suppressed="$TRIG_NO" tid="$victim")"
	set -- $(suppressed_count all.json "$t")
	note "$t: 2 fired, $2 suppressed records count $1 firings ($key)"
	assert_eq "$t: firings the suppressed records count" 3 "$1"
	assert_range "$t: suppressed records" 1 3 "$2"
	# The trigger snapshots: the first holds the first record, the second
	# both (the window is 30 s).
	n=0
	for s in $(snaps "$dir" | head -n 2); do
		n=$((n + 1))
		dump_json "$s" one.json
		assert_eq "$t: records that fired in trigger snapshot $n" "$n" \
			"$(jcount one.json type=trigger name="$t" suppressed="$TRIG_NO")"
	done
	# The two that fired: the first spike's and the SECOND's.
	jvals all.json ts type=trigger name="$t" suppressed="$TRIG_NO" | sort -n > fired.ts
	for k in 1 "$second"; do
		set -- $(spike_waits "spike.$key.out" | sed -n "${k}p")
		[ "$k" = 1 ] && f=$(sed -n 1p fired.ts) || f=$(sed -n 2p fired.ts)
		assert_range "$t: a firing at spike $k (its time)" "$1" "$2" "$f"
	done
}

limits "runq>20ms,comm=victim,cooldown=0,max=2/h,delay=0.5s" "$TRIG_SUPP_RATE" 2
limits "runq>20ms,comm=victim,cooldown=4s,delay=0.5s" "$TRIG_SUPP_COOLDOWN" 4
exit 0
