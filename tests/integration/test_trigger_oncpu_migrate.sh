#!/bin/sh
# oncpu>DUR over a spin the kernel's stopper preempts: runq_spike's
# SCHED_FIFO "spiker" spins 800 ms, and halfway through its affinity moves
# it to another CPU (the stopper, migration/N, takes its CPU to move it).
# Two runs over 100 ms (or more, if something else preempts it too): the
# first fires (from frecd's tick), the later ones come in the first one's
# delay, then its cooldown, and each is one suppressed
# firing, not two (the tick saw it too, and so did its switch-out in BPF).
# The delay (1.5 s) outlasts the spin, so that the snapshot holds every run.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

[ "$(nproc)" -ge 2 ] || skip "one CPU: no other CPU to move the spin to"
t="oncpu>100ms,comm=spiker,delay=1.5s"

mkdir snaps
start_frecd -o "$WORK/snaps" --window 30 --trigger "$t"
# 400 ms into the spin, runq_spike moves the spiker to another CPU
spike_run spike.out -s 800 -m 400 1 2000
grep -q "^moved " spike.out || fail "runq_spike did not move the spiker: $(cat spike.out.err)"
spiker=$(field spike.out spiker)
wait_snaps "$WORK/snaps" 1
snap=$(snaps "$WORK/snaps")
dump_json "$snap" dump.json
# the spiker's runs of over 100 ms, from the events
awk -v tid="$spiker" "$jq_awk"'
	jget($0, "type") != "sched_switch" { next }
	{ ts = jget($0, "ts") + 0 }
	jget($0, "prev_pid") == tid && in_ts && ts - in_ts > 100000000 { printf "%.0f %.0f\n", in_ts, ts }
	jget($0, "next_pid") == tid { in_ts = ts }' dump.json > runs
note "the spiker's runs over 100 ms: $(cat runs)"
nruns=$(wc -l < runs)
[ "$nruns" -ge 2 ] || skip "the move missed the spin: $nruns run(s) over 100 ms"
# Two runs, unless something else preempted the spiker too (an 8-CPU VM on
# a loaded host once cut it in three): each run after the first is one
# suppressed firing, whatever their number.
assert_trig "$t" "$TRIG_FIRED" 1
# the later runs' suppressions reach frecd at the drain after their end
i=0
while supp=$(($(trig_field "$t" "$TRIG_SUPP_DELAY") + $(trig_field "$t" "$TRIG_SUPP_COOLDOWN"))) &&
	[ "$supp" -lt $((nruns - 1)) ] && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.2	# a second count of a run would come with the first
assert_eq "firings suppressed by the delay or the cooldown (the runs after the first)" $((nruns - 1)) \
	$(($(trig_field "$t" "$TRIG_SUPP_DELAY") + $(trig_field "$t" "$TRIG_SUPP_COOLDOWN")))
assert_trig "$t" "$TRIG_SUPP_RATE" 0
stop_frecd
assert_eq "trigger records that fired" 1 "$(jcount dump.json type=trigger suppressed="$TRIG_NO")"
value=$(jvals dump.json value_ns type=trigger suppressed="$TRIG_NO")
tts=$(jvals dump.json ts type=trigger suppressed="$TRIG_NO")
read -r run_in run_out < runs
assert_eq "the firing's start (its time less its value): the first run's" "$run_in" $((tts - value))
exit 0
