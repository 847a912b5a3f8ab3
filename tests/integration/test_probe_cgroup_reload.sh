#!/bin/sh
# Probes with --cgroup attach to every process and keep the hits of the
# cgroup's processes and of -p's. A reload that adds -p while --cgroup
# stays must keep the new process's hits too: the probes stay attached, so
# they must already read frecd's pid map, which the reload fills in place.
# probe_target runs outside the (empty) cgroup: none of its N calls is kept
# before the reload, all N after it.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 200)
fp="uprobe:$TARGET:frec_target_fp"
cga=$(cg_make a)
cf="$WORK/frecd.conf"
conf() {
	printf '%s\n' "$@" > "$cf.new"
	mv "$cf.new" "$cf"
}

mkdir snaps
start_target one "$n" 0 5 6
start_target two "$n" 0 5 6
SCHED_PIDS="$one_pid $two_pid"
conf "output = $WORK/snaps" "probe = $fp" "cgroup = $cga"
start_frecd --config "$cf"
run_target one
conf "output = $WORK/snaps" "probe = $fp" "cgroup = $cga" "pid = $two_pid"
kill -HUP "$FRECD_PID" || fail "frecd is not running"
wait_for "$WORK/frecd.log" "frecd (info: reloaded |error: reload failed: )" "the reload"
grep -q "frecd info: reloaded" "$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "the reload failed"; }
run_target two
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
assert_eq "hits before the reload (outside the cgroup, no -p)" 0 "$(jcount dump.json type=uprobe pid="$one_pid")"
assert_eq "hits of the -p process the reload added" "$n" "$(jcount dump.json type=uprobe probe="$fp" pid="$two_pid")"
