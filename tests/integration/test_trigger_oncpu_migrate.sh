#!/bin/sh
# oncpu>DUR over a spin the kernel's stopper preempts: runq_spike's
# SCHED_FIFO "spiker" spins 800 ms, and halfway through its affinity moves
# it to another CPU (the stopper, migration/N, takes its CPU to move it).
# Two runs over 100 ms: the first fires (from frecd's tick), the second
# comes in the first one's delay, then its cooldown, and is one suppressed
# firing, not two (the tick saw it too, and so did its switch-out in BPF).
# The delay (1.5 s) outlasts the spin, so that the snapshot holds every run.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

[ "$(nproc)" -ge 2 ] || skip "one CPU: no other CPU to move the spin to"
t="oncpu>100ms,comm=spiker,delay=1.5s"

mkdir snaps
start_frecd -o "$WORK/snaps" --window 30 --trigger "$t"
# 200 ms after its start the spike begins (runq_spike's default); 400 ms
# into the spin, move the spiker to a CPU other than its own
(
	i=0
	while ! grep -q '^spiker ' spike.out 2>/dev/null && [ $i -lt 500 ]; do
		sleep 0.01; i=$((i + 1))
	done
	cpu=$(field spike.out cpu); other=0; [ "$cpu" = 0 ] && other=1
	sleep 0.6
	taskset -pc "$other" "$(field spike.out spiker)" > move.out 2>&1
) &
mover=$!
spike_run spike.out -s 800 1 2000
wait "$mover"
grep -q "new affinity list: " move.out || fail "taskset could not move the spiker: $(cat move.out)"
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
[ "$(wc -l < runs)" -ge 2 ] || skip "the move missed the spin: $(wc -l < runs) run(s) over 100 ms"
assert_eq "the spiker's runs over 100 ms" 2 "$(wc -l < runs)"
assert_trig "$t" "$TRIG_FIRED" 1
# the second run's suppression reaches frecd at the drain after its end
i=0
while supp=$(($(trig_field "$t" "$TRIG_SUPP_DELAY") + $(trig_field "$t" "$TRIG_SUPP_COOLDOWN"))) &&
	[ "$supp" -lt 1 ] && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.2	# a second count of the run would come with the first
assert_eq "firings suppressed by the delay or the cooldown" 1 \
	$(($(trig_field "$t" "$TRIG_SUPP_DELAY") + $(trig_field "$t" "$TRIG_SUPP_COOLDOWN")))
assert_trig "$t" "$TRIG_SUPP_RATE" 0
stop_frecd
assert_eq "trigger records that fired" 1 "$(jcount dump.json type=trigger suppressed="$TRIG_NO")"
value=$(jvals dump.json value_ns type=trigger suppressed="$TRIG_NO")
tts=$(jvals dump.json ts type=trigger suppressed="$TRIG_NO")
read -r run_in run_out < runs
assert_eq "the firing's start (its time less its value): the first run's" "$run_in" $((tts - value))
exit 0
