#!/bin/sh
# cgroup=PATH narrows a trigger to the threads in that cgroup (or below):
# runq_spike's victim waits about 49 ms behind a SCHED_FIFO spinner, once in
# cgroup B and once in cgroup A; runq>20ms,cgroup=A fires for A's only:
# nothing after B's spike, then exactly one firing, whose record names A's
# victim and process.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
A="$CG/frec-it.$$.a"
B="$CG/frec-it.$$.b"
mkdir "$A" "$B" 2>/dev/null || skip "cannot make cgroups under $CG"
cg_cleanup() {
	for d in "$A" "$B"; do
		# a process that is exiting may still be listed: try a few times
		i=0
		while [ -s "$d/cgroup.procs" ] && [ $i -lt 50 ]; do
			for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
				echo "$p" > "$CG/cgroup.procs" 2>/dev/null
			done
			sleep 0.1; i=$((i + 1))
		done
		rmdir "$d" 2>/dev/null || echo "# could not remove $d" >&2
	done
}
trap 'cleanup_frecd; cg_cleanup' EXIT

# spike_in DIR OUT ARGS...: spike_run with runq_spike started in cgroup DIR
spike_in() {
	dir=$1 out=$2; shift 2
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 9; shift; exec "$@"' sh "$dir" "$SPIKE" "$@" \
		> "$out" 2> "$out.err"
	rc=$?
	[ $rc -eq 3 ] && skip "runq_spike cannot spike here: $(cat "$out.err")"
	[ $rc -eq 0 ] || { cat "$out.err" >&2; fail "runq_spike $* in $dir exited $rc"; }
	grep -q '^done$' "$out" || fail "runq_spike did not finish"
	victim=$(field "$out" victim)
}

t="runq>20ms,comm=victim,cgroup=/frec-it.$$.a,delay=0.5s"
mkdir snaps
start_frecd -o "$WORK/snaps" --window 30 --trigger "$t"
spike_in "$B" b.out 1 300
# A firing would have been at the spike, and its snapshot half a second later.
sleep 2
assert_eq "snapshots after B's spike" 0 "$(nsnaps "$WORK/snaps")"
assert_trig "$t" "$TRIG_FIRED" 0
spike_in "$A" a.out 1 300
wait_snaps "$WORK/snaps" 1
assert_trig "$t" "$TRIG_FIRED" 1
assert_trig "$t" "$TRIG_SNAPS" 1
snap=$(snaps "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json
assert_eq "trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "the trigger's tid" "$(field a.out victim)" "$(jvals dump.json tid type=trigger)"
assert_eq "the trigger's pid" "$(field a.out pid)" "$(jvals dump.json pid type=trigger)"
exit 0
