#!/bin/sh
# SIGHUP re-reads the configuration file and applies probe, pid filter,
# output, keep and compress changes without losing the window: a snapshot after the
# reload still holds the events (and the probe names) from before it, the new
# probes count exactly, and an invalid file is reported with its line number
# while the running configuration stays.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 200)
fp="func:$TARGET:frec_target_fp"
nofp="func:$TARGET:frec_target_nofp"
cf="$WORK/reload.conf"

# conf LINES...: write the configuration frecd reads
conf() {
	printf '%s\n' "$@" > "$cf.new"
	chmod 600 "$cf.new"
	mv "$cf.new" "$cf"
}
# reload: SIGHUP and wait for its outcome (the K-th "reloaded" or "reload failed")
reloads=0
reload() {
	reloads=$((reloads + 1))
	kill -HUP "$FRECD_PID" || fail "frecd is not running"
	wait_count "$WORK/frecd.log" "frecd (info: reloaded |error: reload failed: )" "$reloads" "reload $reloads"
}
status() {
	"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
}
# block_flags FILE: the flags of each block in file order, with a space
# before each (0 stored, 2 zstd). The blocks follow the header's 16 + B +
# 4 bytes, each its 32-byte header (flags at 8, payload length P at 12:
# docs/FORMAT.md) and P bytes.
block_flags() {
	size=$(wc -c < "$1")
	off=$((16 + $(od -An -tu4 -j12 -N4 "$1" | tr -d ' ') + 4))
	while [ "$off" -lt "$size" ]; do
		printf ' %s' "$(od -An -tu4 -j$((off + 8)) -N4 "$1" | tr -d ' ')"
		off=$((off + 32 + $(od -An -tu4 -j$((off + 12)) -N4 "$1" | tr -d ' ')))
	done
}
# status_until WHAT LINE: frec status until it shows LINE (frecd drains the
# ring every 50 ms: a count may lag the workload that just ended)
status_until() {
	i=0
	while status && ! grep -qxF "$2" status.out; do
		[ $i -lt 600 ] || { cat status.out >&2; fail "$1: never '$2'"; }
		sleep 0.1; i=$((i + 1))
	done
}

# A cgroup made before frecd starts: auto then records v2 (its root has a
# child), for the cgroup filter's reloads at the end.
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cga=""
if [ -n "$CG" ] && mkdir "$CG/frec-it.$$.a" 2>/dev/null; then
	cga="$CG/frec-it.$$.a"
	trap 'cleanup_frecd; rmdir "$cga"' EXIT
fi

mkdir -m 700 snaps snaps2
# A window of an hour: every snapshot must hold all that happened since
# frecd started, and under emulation this test takes minutes.
conf "output = $WORK/snaps" "window = 3600" "max-size = 128M" "probe = $fp"
start_frecd --config "$cf"

# --- before: tgt1 calls both functions; only fp is probed ------------------------
start_target tgt1 "$n" 0 7 3
run_target tgt1
status_until "fp entry hits before" "  probe 1     $fp (uprobe), $n hits"

# --- reload: nofp instead of fp, snapshots compressed -----------------------------
conf "output = $WORK/snaps" "window = 3600" "max-size = 128M" "probe = $nofp" "compress = zstd"
reload
grep -q "frecd info: reloaded $cf in [0-9]* ms: 2 probes (attached again), 0 triggers, all processes, wakeup off, -o $WORK/snaps, --keep 100, --keep-size 1G, --compress zstd$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no reloaded line"; }
grep -q "frecd info: attached probe 1: $nofp -> $TARGET:frec_target_nofp+0 entry (3 args)" "$WORK/frecd.log" ||
	fail "the new probe's attached line"
status
assert_eq "probes after the reload" "probes        2" "$(grep '^probes' status.out)"
assert_eq "new probe, no hits yet" "  probe 1     $nofp (uprobe), 0 hits" "$(grep '^  probe 1 ' status.out)"

start_target tgt2 "$n" 0 7 3
run_target tgt2
snap=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "frec snapshot failed"
# compress = zstd: zstd blocks (the window's events shrink)
status
assert_eq "status after compress = zstd" "compress      zstd" "$(grep '^compress' status.out)"
"$FREC" info "$snap" > info.out || fail "frec info failed"
# the writer's version, zstd blocks or not (frec --version names it)
fmt=$("$FREC" --version | sed -n 's/.*(snapshot format \([0-9]*\))$/\1/p')
[ -n "$fmt" ] || fail "frec --version names no snapshot format"
assert_eq "format of a zstd snapshot" "format:       $fmt" "$(grep '^format:' info.out)"
# zstd blocks among them (one zstd cannot shrink is stored)
case "$(block_flags "$snap") " in
*" 2 "*) ;;
*) fail "no zstd block in the zstd snapshot: flags$(block_flags "$snap")" ;;
esac
dump_json "$snap" dump.json
# from before the reload: tgt1's exec and its fp calls, under fp's name
assert_eq "tgt1's exec, from before the reload" 1 "$(jcount dump.json type=sched_process_exec pid="$tgt1_pid")"
assert_eq "fp entries of tgt1" "$n" "$(jcount dump.json type=uprobe probe="$fp" pid="$tgt1_pid")"
assert_eq "fp returns of tgt1" "$n" "$(jcount dump.json type=uretprobe probe="$fp" pid="$tgt1_pid")"
assert_eq "nofp of tgt1 (not probed then)" 0 "$(jcount dump.json type=uprobe probe="$nofp" pid="$tgt1_pid")"
# after: tgt2's nofp calls only
assert_eq "nofp entries of tgt2" "$n" "$(jcount dump.json type=uprobe probe="$nofp" pid="$tgt2_pid")"
assert_eq "nofp returns of tgt2" "$n" "$(jcount dump.json type=uretprobe probe="$nofp" pid="$tgt2_pid")"
assert_eq "fp of tgt2 (no longer probed)" 0 "$(jcount dump.json type=uprobe probe="$fp" pid="$tgt2_pid")"
assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
status_until "nofp entry hits" "  probe 1     $nofp (uprobe), $n hits"

# --- an invalid file: the line is named, nothing changes --------------------------
conf "output = $WORK/snaps" "window = 3600" "max-size 128M" "probe = $fp"
reload
grep -q "frecd error: reload failed: $cf:3: expected 'key = value', got 'max-size 128M'; the running configuration stays$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no line number for the bad line"; }
conf "output = $WORK/snaps" "window = 3600" "max-size = 128M" "probe = $nofp" "probe = uprobe:$TARGET:no_such_function"
reload
grep -q "frecd error: reload failed: $cf:5: probe 'uprobe:$TARGET:no_such_function': no function 'no_such_function' in $TARGET (not stripped): check the name with nm (C++ names are mangled); the running configuration stays$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no line number for the bad probe"; }
nopid=$(cat /proc/sys/kernel/pid_max)
conf "output = $WORK/snaps" "window = 3600" "max-size = 128M" "probe = $nofp" "pid = $nopid"
reload
grep -q "frecd error: reload failed: $cf:5: pid $nopid: no such process; check the pid with ps; the running configuration stays$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no line number for the bad pid"; }
# the probes are still the ones from before, and still count
start_target tgt3 "$n" 0 7 3
run_target tgt3
status_until "hits after failed reloads" "  probe 1     $nofp (uprobe), $((2 * n)) hits"
assert_eq "probes after failed reloads" "probes        2" "$(grep '^probes' status.out)"

# --- what takes a restart is named and kept -----------------------------------------
conf "output = $WORK/snaps" "window = 30" "max-size = 128M" "probe = $nofp" "max-threads = 5000"
reload
grep -q "frecd warn: reload: window changed from 3600 s to 30 s, which takes a restart; still 3600 s$" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "the window change is not reported"; }
grep -q "frecd warn: reload: max-threads changed from the default to 5000, which takes a restart; still the default$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "the max-threads change is not reported"; }
status
assert_eq "window limit kept" "at least 3600 s, at most 134217728 bytes)" "$(grep '^window' status.out | sed 's/.*(//')"
grep -q "frecd info: reloaded $cf in [0-9]* ms: 2 probes, 0 triggers, all processes," "$WORK/frecd.log" ||
	fail "the reload with unchanged probes should not attach them again"

# --- the pid filter: on (programs reloaded), then off again -------------------------
sleep 1000 &
sleeper=$!
conf "output = $WORK/snaps" "window = 3600" "max-size = 128M" "probe = $nofp" "pid = $sleeper"
reload
status
assert_eq "filtered" "1 process (-p)," "$(grep '^recording' status.out | awk '{ print $2, $3, $4 }')"
start_target tgt4 1 0 7 3
run_target tgt4
conf "output = $WORK/snaps2" "window = 3600" "max-size = 128M" "probe = $nofp" "keep = 5"
reload
status
assert_eq "unfiltered again" "all processes," "$(grep '^recording' status.out | awk '{ print $2, $3 }')"
assert_eq "keep from the reload" "retention     keep 5 snapshots, 1073741824 bytes at most" "$(grep '^retention' status.out)"
assert_eq "output from the reload" "directory     $WORK/snaps2" "$(grep '^directory' status.out)"
start_target tgt5 1 0 7 3
run_target tgt5
kill "$sleeper"
snap2=$("$FREC" snapshot --reason "after the reloads" --socket "$FRECD_SOCKET") || fail "frec snapshot 2 failed"
case $snap2 in
"$WORK/snaps2/"*.frec) ;;
*) fail "the snapshot after the output change went to $snap2" ;;
esac
# the file no longer says compress: stored again (the default)
"$FREC" info "$snap2" > info2.out || fail "frec info failed"
assert_eq "format of a stored snapshot" "format:       $fmt" "$(grep '^format:' info2.out)"
case "$(block_flags "$snap2") " in
*" 2 "*) fail "a zstd block in a stored snapshot: flags$(block_flags "$snap2")" ;;
esac
dump_json "$snap2" dump2.json
assert_eq "tgt1's exec still there" 1 "$(jcount dump2.json type=sched_process_exec pid="$tgt1_pid")"
assert_eq "tgt4's exec, filtered out" 0 "$(jcount dump2.json type=sched_process_exec pid="$tgt4_pid")"
assert_eq "tgt4's calls, not probed (filtered)" 0 "$(jcount dump2.json type=uprobe pid="$tgt4_pid")"
assert_eq "tgt5's exec, recorded again" 1 "$(jcount dump2.json type=sched_process_exec pid="$tgt5_pid")"
assert_eq "tgt5's nofp call" 1 "$(jcount dump2.json type=uprobe probe="$nofp" pid="$tgt5_pid")"
# Each of the two swaps of the scheduler programs (filter on, then off) is a
# gap in the recording, marked in the snapshot, logged, and in frec report.
assert_eq "gaps marked for the two swaps" 2 "$(jcount dump2.json type=gap reason=reload)"
assert_eq "gaps in the log" 2 "$(grep -c 'frecd info: nothing was recorded for [0-9.]* ms while the programs were replaced$' "$WORK/frecd.log")"
jvals dump2.json first_ts type=gap > gfirst
jvals dump2.json last_ts type=gap > glast
paste -d ' ' gfirst glast | while read -r f l; do
	[ "$l" -gt "$f" ] || fail "a gap from $f to $l"
done || exit 1
"$FREC" report --json "$snap2" > report2.json || fail "frec report failed"
grep -q '"gaps":2,' report2.json || fail "frec report does not count the 2 gaps"

# --- the cgroup filter: on (programs reloaded), changed in place, off ----------------
if [ -n "$cga" ]; then
	swaps() { grep -c 'frecd info: nothing was recorded for [0-9.]* ms while the programs were replaced$' "$WORK/frecd.log"; }
	base="output = $WORK/snaps2"
	# The hierarchy was chosen at start: v2 here only if the cgroup2
	# root had a child then. A cgroup= change is a restart's.
	conf "$base" "window = 3600" "max-size = 128M" "probe = $nofp" "cgroup_hierarchy = none"
	reload
	grep -q "frecd warn: reload: cgroup-hierarchy changed from auto to none: restart to change the hierarchy; still auto$" \
		"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "the hierarchy change is not reported"; }
	if "$FREC" status --json --socket "$FRECD_SOCKET" | grep -q '"cgroups":{"hierarchy":"v2"'; then
		conf "$base" "window = 3600" "max-size = 128M" "probe = $nofp" "cgroup = /frec-it.$$.a"
		reload
		grep -q "frecd info: reloaded $cf in [0-9]* ms: 2 probes (attached again), 0 triggers, filtered by --cgroup," \
			"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no reloaded line with the cgroup filter"; }
		assert_eq "swaps after the cgroup filter is on" 3 "$(swaps)"
		"$FREC" status --json --socket "$FRECD_SOCKET" | grep -q '"filters":\["/frec-it.'$$'.a"\]' ||
			fail "status: the cgroup filter"
		start_target tgt6 1 0 7 3
		run_target tgt6
		# another cgroup: the map is written in place, nothing swapped
		conf "$base" "window = 3600" "max-size = 128M" "probe = $nofp" "cgroup = /"
		reload
		assert_eq "swaps after the cgroup filter changed" 3 "$(swaps)"
		start_target tgt7 1 0 7 3
		run_target tgt7
		conf "$base" "window = 3600" "max-size = 128M" "probe = $nofp" "cgroup = /frec-it.$$.nosuch"
		reload
		grep -q "frecd error: reload failed: $cf:5: cgroup /frec-it.$$.nosuch: no cgroup /frec-it.$$.nosuch under $CG: give the path /proc/PID/cgroup shows for a process in it; the running configuration stays$" \
			"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no line for an unknown cgroup"; }
		conf "$base" "window = 3600" "max-size = 128M" "probe = $nofp"
		reload
		assert_eq "swaps after the cgroup filter is off" 4 "$(swaps)"
		snap3=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "frec snapshot 3 failed"
		dump_json "$snap3" dump3.json
		assert_eq "tgt6's exec, outside the cgroup" 0 "$(jcount dump3.json type=sched_process_exec pid="$tgt6_pid")"
		assert_eq "tgt6's calls, outside the cgroup" 0 "$(jcount dump3.json type=uprobe pid="$tgt6_pid")"
		assert_eq "tgt7's exec, in the root cgroup" 1 "$(jcount dump3.json type=sched_process_exec pid="$tgt7_pid")"
		assert_eq "tgt7's nofp call" 1 "$(jcount dump3.json type=uprobe probe="$nofp" pid="$tgt7_pid")"
		assert_eq "gaps marked, the cgroup filter's two among them" 4 "$(jcount dump3.json type=gap reason=reload)"
	else
		note "frecd records no v2 cgroups here: the cgroup filter's reload is not tried"
	fi
fi
stop_frecd
exit 0
