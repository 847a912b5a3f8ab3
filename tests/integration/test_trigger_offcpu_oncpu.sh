#!/bin/sh
# offcpu>DUR and oncpu>DUR, each on a known stretch of time.
#  - offcpu: slow_call's 3rd call sleeps 60 ms (its thread blocks, S);
#    offcpu>30ms narrowed to it fires once: its record is the thread's, and
#    its value is exactly the time from the blocking switch-out to the next
#    switch-in that the snapshot's own events show.
#  - oncpu: runq_spike's SCHED_FIFO "spiker" holds its CPU for 400 ms
#    without a switch; oncpu>100ms fires once, from frecd's tick while the
#    spiker still runs (its trigger time is before the run's end), and the
#    run's own switch-out, which also passes the threshold in BPF, is not
#    a second firing (frecd knows the run: fired stays 1, nothing is
#    suppressed). Should the kernel's stopper preempt the spin, each later
#    run over 100 ms that the events show is one firing in the delay or
#    the cooldown, counted once: at its switch-out, not by the tick too;
#    and a first run cut short of a drain period past 100 ms may fire at
#    its switch-out.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

t1="offcpu>30ms,comm=slow_call,delay=0.3s"
# The snapshot must hold the end of the run it checks: the firing comes
# 100 ms or more into the 400 ms spin, so its delay is more than the 300 ms
# left (with 0.3 s the snapshot's cut could come before the switch-out, as
# it did once in the 8-CPU VM).
t2="oncpu>100ms,comm=spiker,delay=0.6s"

# --- offcpu ------------------------------------------------------------------------
mkdir snaps
start_frecd -o "$WORK/snaps" --window 30 --trigger "$t1"
"$SLOW" 5 3 > slow.out || fail "slow_call failed"
tid=$(field slow.out tid)
wait_snaps "$WORK/snaps" 1
assert_trig "$t1" "$TRIG_FIRED" 1
assert_trig "$t1" "$TRIG_SNAPS" 1
snap=$(snaps "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json
assert_eq "offcpu: trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "offcpu: the trigger's tid" "$tid" "$(jvals dump.json tid type=trigger)"
value=$(jvals dump.json value_ns type=trigger)
# The thread's blocks (switch-out with a state that is not 0, to its next
# switch-in) over 30 ms in the events: one, equal to the value.
awk -v tid="$tid" "$jq_awk"'
	jget($0, "type") != "sched_switch" { next }
	{ ts = jget($0, "ts") + 0 }
	jget($0, "prev_pid") == tid && jget($0, "prev_state") != "0" { out = ts }
	jget($0, "next_pid") == tid && out {
		if (ts - out > 30000000) printf "%.0f %.0f %.0f\n", ts - out, out, ts
		out = 0
	}' dump.json > blocks
assert_eq "offcpu: blocks over 30 ms in the events" 1 "$(wc -l < blocks)"
read -r block out in < blocks
note "offcpu: value $value ns, the events' block $block ns"
assert_eq "offcpu: the trigger's value against the events' block" "$block" "$value"
# The block against the 3rd call's own clock reads (CLOCK_BOOTTIME, the
# records' clock): it lies inside the call, and its switch-in is no
# earlier than the sleep's timer can expire, 60 ms after the call's
# entry. The block itself may be a little shorter than 60 ms: the timer
# was armed before the switch-out.
set -- $(awk '$1 == "call" && $2 == 3 { print $4, $6 }' slow.out)
entry=$1 ret=$2
note "offcpu: call 3 entry $entry return $ret, block $out .. $in"
assert_range "offcpu: the block's switch-out (the call's entry .. return)" "$entry" "$ret" "$out"
assert_range "offcpu: the block's switch-in (the call's entry + 60 ms .. return)" $((entry + 60000000)) "$ret" "$in"

# --- oncpu -------------------------------------------------------------------------
# The tick fires only if frecd runs during the spin. A thread of frecd's
# that the spin preempts on its own CPU stays in that CPU's run queue (the
# load balancer sees one ordinary task there and none on an idle CPU: no
# imbalance), and the run would be caught only at its switch-out. So the
# spin has the last CPU and frecd the others.
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "one CPU: frecd cannot run while the spiker holds it"
spike_cpu=$((ncpu - 1))
# What the spike did, should no snapshot come (after what wait_snaps
# shows): the spiker's events, from a snapshot taken by hand (the window
# outlasts the wait).
oncpu_diag() {
	"$FREC" dump "$(snapshot "$WORK/snaps2")" | grep -w "spiker\|trigger" | tail -n 20
}
WAIT_SNAPS_DIAG=oncpu_diag
mkdir snaps2
FRECD_WRAP="taskset -c 0-$((spike_cpu - 1))"
start_frecd -o "$WORK/snaps2" --window 120 --trigger "$t2"
FRECD_WRAP=
spike_run spike.out -c "$spike_cpu" -s 400 1 1000
spiker=$(field spike.out spiker)
set -- $(spike_waits spike.out)
ran=$2		# the victim ran again: the spin had ended
wait_snaps "$WORK/snaps2" 1
snap2=$(snaps "$WORK/snaps2")
dump_json "$snap2" dump2.json
# The spiker's runs of over 100 ms, from the events: each switch-in and the
# switch-out that ended it. The BPF check at that switch-out would stamp
# the record with the switch-out's own time: fired strictly before it is
# the tick's firing, while the spiker still ran. The spin is one run unless
# the kernel's stopper (migration/N, above SCHED_FIFO) preempted it: then
# each later run of over 100 ms is another firing, in the cooldown.
awk -v tid="$spiker" "$jq_awk"'
	jget($0, "type") != "sched_switch" { next }
	{ ts = jget($0, "ts") + 0 }
	jget($0, "prev_pid") == tid && in_ts && ts - in_ts > 100000000 { printf "%.0f %.0f\n", in_ts, ts }
	jget($0, "next_pid") == tid { in_ts = ts }' dump2.json > runs
nruns=$(wc -l < runs)
assert_range "oncpu: the spiker's runs over 100 ms in the events" 1 4 "$nruns"
[ "$nruns" -eq 1 ] || note "oncpu: the spin was preempted: $nruns runs over 100 ms"
assert_trig "$t2" "$TRIG_FIRED" 1
# a later run's firing comes during the first one's delay (0.6 s) or after
# it, in the cooldown: suppressed either way, once per run, at its
# switch-out (BPF's count reaches frecd at its next drain)
i=0
while supp=$(($(trig_field "$t2" "$TRIG_SUPP_DELAY") + $(trig_field "$t2" "$TRIG_SUPP_COOLDOWN"))) &&
	[ "$supp" -lt $((nruns - 1)) ] && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.2	# a second count of one run would come with the first
assert_eq "oncpu: firings suppressed by the delay or the cooldown" $((nruns - 1)) \
	$(($(trig_field "$t2" "$TRIG_SUPP_DELAY") + $(trig_field "$t2" "$TRIG_SUPP_COOLDOWN")))
assert_trig "$t2" "$TRIG_SUPP_RATE" 0
stop_frecd
assert_eq "oncpu: trigger records that fired" 1 "$(jcount dump2.json type=trigger suppressed="$TRIG_NO")"
assert_eq "oncpu: the trigger's tid" "$spiker" "$(jvals dump2.json tid type=trigger suppressed="$TRIG_NO")"
assert_eq "oncpu: the trigger's comm" spiker "$(jvals dump2.json comm type=trigger suppressed="$TRIG_NO")"
value=$(jvals dump2.json value_ns type=trigger suppressed="$TRIG_NO")
tts=$(jvals dump2.json ts type=trigger suppressed="$TRIG_NO")
head -n 1 runs > run1
read -r run_in run_out < run1
note "oncpu: fired at $tts with value $value ns; the run from $run_in to $run_out (the spin ended by $ran)"
assert_range "oncpu: the trigger's value (ns)" 100000001 $((run_out - run_in)) "$value"
assert_eq "oncpu: the trigger's start (its time less its value)" "$run_in" $((tts - value))
# frecd sees a run that still goes on at its next drain, at most a drain
# period (50 ms) after the threshold: a run that lasted well past that
# (here 200 ms) fired while it ran; a shorter one (the stopper preempted
# the spin early) may have fired at its switch-out, never after it.
if [ $((run_out - run_in)) -gt 200000000 ]; then
	[ "$tts" -lt "$run_out" ] ||
		fail "oncpu: fired at $tts, not before the run's switch-out ($run_out): not while it ran"
else
	[ "$tts" -le "$run_out" ] || fail "oncpu: fired at $tts, after the run's switch-out ($run_out)"
	note "oncpu: the first run ended $(((run_out - run_in) / 1000000)) ms in: fired at its switch-out or before"
fi
exit 0
