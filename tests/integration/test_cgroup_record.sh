#!/bin/sh
# Two pingpongs: A runs in a cgroup of its own, B beside it in the test's.
# Every switch (prev and next) and waking of A's threads names A's cgroup,
# by the path /proc/PID/cgroup shows and by the inode number of its
# directory; B's name B's own cgroup, never A's. frec info lists A's cgroup
# with its three threads, and report --by cgroup counts as many switches out
# of it as the dump shows.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_lib.sh"

cga=$(cg_make a)
ida=$(cg_id "$cga")
n=$(scaled 500)
mkdir snaps
start_frecd -o "$WORK/snaps" --window 3600

mkfifo ina inb
exec 3<> ina 4<> inb
sh -c "$IN_CGROUP" "$(cg_dir "$cga")" "$PROGS/pingpong" "$n" < ina > a.out 3>&- 4>&- &
pa=$!
"$PROGS/pingpong" "$n" < inb > b.out 3>&- 4>&- &
pb=$!
SCHED_PIDS="$SCHED_PIDS $pa $pb"
wait_for a.out '^done ' "pingpong a done"
wait_for b.out '^done ' "pingpong b done"
a=$(field a.out pid)
b=$(field b.out pid)
assert_eq "a's cgroup (/proc)" "$cga" "$(cg_of "$a")"
cgb=$(cg_of "$b")
idb=$(cg_id "$cgb")
[ "$cgb" != "$cga" ] || fail "b runs in a's cgroup"
note "a ($a) in $cga (id $ida), b ($b) in $cgb (id $idb)"

snap=$(snapshot "$WORK/snaps")
exec 3>&- 4>&-
wait_gone "$pa" "pingpong a, its stdin closed" || fail "pingpong a failed"
wait_gone "$pb" "pingpong b, its stdin closed" || fail "pingpong b failed"
frecd_stop
dump_json "$snap" dump.json
assert_eq "drops" 0 "$(jcount dump.json type=lost)"

"$FREC" info "$snap" > info.txt || fail "frec info failed"
grep -q '^cgroups: *v2$' info.txt || { cat info.txt >&2; fail "frec info does not say cgroups: v2"; }

# A's threads: every switch out and in, every waking, names A's cgroup. The
# threads are made after the move, so nothing of theirs comes before it.
for who in a b; do
	eval out=\$who.out cg=\$cg$who id=\$id$who
	for t in ping pong; do
		tid=$(field "$out" $t)
		outs=$(jcount dump.json type=sched_switch prev_pid="$tid")
		ins=$(jcount dump.json type=sched_switch next_pid="$tid")
		wakes=$(jcount dump.json type=sched_waking pid="$tid")
		[ "$outs" -gt 0 ] || fail "no switch out of $who's $t"
		assert_eq "$who's $t: switches out naming $cg" "$outs" \
			"$(jcount dump.json type=sched_switch prev_pid="$tid" prev_cgroup="$cg" prev_cgroup_id="$id")"
		assert_eq "$who's $t: switches in naming $cg" "$ins" \
			"$(jcount dump.json type=sched_switch next_pid="$tid" next_cgroup="$cg" next_cgroup_id="$id")"
		assert_eq "$who's $t: wakings naming $cg" "$wakes" \
			"$(jcount dump.json type=sched_waking pid="$tid" cgroup="$cg" cgroup_id="$id")"
		note "$who's $t ($tid): $outs switches out, $ins in, $wakes wakings, all in $cg"
	done
done
# Nothing of B's names A's cgroup: only A's three threads are ever in it.
tids_a="$a $(field a.out ping) $(field a.out pong)"
bad=$(awk -v a="$tids_a" -v cg="$cga" "$jq_awk"'
	BEGIN { split(a, t, " "); for (i in t) keep[t[i]] = 1 }
	jget($0, "prev_cgroup") == cg && !(jget($0, "prev_pid") in keep) ||
	jget($0, "next_cgroup") == cg && !(jget($0, "next_pid") in keep) ||
	jget($0, "cgroup") == cg && !(jget($0, "pid") in keep) { print; exit }' dump.json)
[ -z "$bad" ] || fail "an event names $cga for a thread not of a's: $bad"

# info: A's cgroup with A's three threads (its main thread, ping and pong).
"$FREC" info --json "$snap" > info.json || fail "frec info --json failed"
entry=$(grep -o "{\"id\":$ida,\"path\":\"$cga\"[^}]*}" info.json)
[ -n "$entry" ] || { cat info.json >&2; fail "frec info --json lists no cgroup $cga (id $ida)"; }
assert_eq "threads of $cga (info)" 3 "$(echo "$entry" | awk "$jq_awk"'{ print jget($0, "threads") }')"
grep -q '"cgroup_hierarchy":"v2"' info.json || fail "info --json: no cgroup_hierarchy v2"

# report --by cgroup: A's switches out, as the dump counts those of prev in A.
"$FREC" report --json --by cgroup --top 0 "$snap" > report.json || fail "frec report --by cgroup failed"
row=$(grep -o "{\"cgroup\":\"$cga\",[^{]*{[^}]*}}" report.json)
[ -n "$row" ] || { cat report.json >&2; fail "report --by cgroup has no row for $cga"; }
dump_sw=$(jcount dump.json type=sched_switch prev_cgroup="$cga")
rep_sw=$(echo "$row" | awk "$jq_awk"'{ print jget($0, "switches") }')
note "switches out of $cga: dump $dump_sw, report $rep_sw"
assert_eq "switches out of $cga (report vs dump)" "$dump_sw" "$rep_sw"
assert_eq "cgroup_id of the report's row" "$ida" "$(echo "$row" | awk "$jq_awk"'{ print jget($0, "cgroup_id") }')"
exit 0
