#!/bin/sh
# A change of --cgroup by reload, written into the map in place, must
# change what the programs keep for a cgroup they have already judged: the
# per-CPU memo of verdicts (bpf/filter_cgroup.bpf.h) must forget the old
# list's. frecd starts with --cgroup a; a pingpong in a and one in b run on
# CPU 0 (so that the same CPU's memo judges both cgroups before and after;
# frecd itself runs elsewhere where there is room); the reload makes it
# --cgroup b; a second pingpong in b, then one in a, run on CPU 0: b's
# first, so that b's verdict from before is the newest in the memo. Every
# switch-in of b's second pingpong is kept and none of a's, as before the
# reload a's first were all kept and b's none.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_lib.sh"

n=$(scaled 300)
cga=$(cg_make a)
cgb=$(cg_make b)
cf="$WORK/frecd.conf"
conf() {
	printf '%s\n' "$@" > "$cf.new"
	mv "$cf.new" "$cf"
}

# run NAME CGROUP: a pingpong of n rounds in CGROUP on CPU 0, to its end;
# its output in NAME.out.
run() {
	sh -c "$IN_CGROUP" "$(cg_dir "$2")" taskset -c 0 "$PROGS/pingpong" "$n" \
		< /dev/null > "$1.out" &
	wait "$!" || fail "pingpong $1 failed"
	grep -q '^done ' "$1.out" || fail "pingpong $1 did not finish"
}

mkdir snaps
conf "output = $WORK/snaps" "window = 3600" "cgroup_hierarchy = v2" "cgroup = $cga"
[ "$(nproc)" -ge 2 ] && FRECD_WRAP="taskset -c 1"
start_frecd --config "$cf"
run a1 "$cga"
run b1 "$cgb"
conf "output = $WORK/snaps" "window = 3600" "cgroup_hierarchy = v2" "cgroup = $cgb"
kill -HUP "$FRECD_PID" || fail "frecd is not running"
wait_for "$WORK/frecd.log" "frecd (info: reloaded |error: reload failed: )" "the reload"
grep -q "frecd info: reloaded" "$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "the reload failed"; }
run b2 "$cgb"
run a2 "$cga"
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
for r in a1 b1 a2 b2; do
	for t in ping pong; do
		tid=$(field "$r.out" $t)
		ins=$(jcount dump.json type=sched_switch next_pid="$tid")
		case $r in
		a1|b2)
			# each round of the exchange switches to each thread once at
			# least: all of them kept
			[ "$ins" -ge "$n" ] || fail "$r's $t ($tid): $ins switch-ins kept, $n at least expected" ;;
		*)
			assert_eq "$r's $t ($tid): switch-ins kept" 0 "$ins" ;;
		esac
	done
done
note "kept a1 $(jcount dump.json type=sched_switch next_pid="$(field a1.out ping)"), b2 $(jcount dump.json type=sched_switch next_pid="$(field b2.out ping)")"
exit 0
