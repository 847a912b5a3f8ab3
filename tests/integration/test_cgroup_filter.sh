#!/bin/sh
# --cgroup PATH keeps only the events that concern threads in that cgroup:
# pingpong A runs in it, B beside it. A's switches out are exactly what the
# kernel counted, every event concerns A, B has no waking, and frecd counts
# what it left out. With --cgroup and -p C, given as the cgroup's directory
# under the mount point, A's and C's events are kept and none of B's. A
# cgroup that does not exist is a usage error (exit 2).
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_lib.sh"

cga=$(cg_make a)
n=$(scaled 500)

# pingpong_start NAME FD [CGROUP]: pingpong NAME, ready and waiting for
# "go" on the fifo in.NAME, which the test holds open read-write on FD (that
# open never blocks, and the pingpong sees EOF only when the test closes
# it); in cgroup CGROUP (a path) when given. $pp_NAME is its pid, NAME.out its
# output.
pingpong_start() {
	mkfifo "in.$1"
	eval "exec $2<> in.$1"
	if [ -n "${3:-}" ]; then
		sh -c "$IN_CGROUP" "$(cg_dir "$3")" "$PROGS/pingpong" -w "$n" < "in.$1" > "$1.out" 3>&- 4>&- 5>&- &
	else
		"$PROGS/pingpong" -w "$n" < "in.$1" > "$1.out" 3>&- 4>&- 5>&- &
	fi
	eval "pp_$1=\$!"
	SCHED_PIDS="$SCHED_PIDS $!"
	wait_for "$1.out" '^pong ' "pingpong $1 ready"
}

# run_all DUMP NAME:FD...: say go to each, wait until each is done (the
# kernel's switch counts of its threads in k_NAME_ping, k_NAME_pong), take
# the snapshot ($snap), let them exit, stop frecd, dump into DUMP.
run_all() {
	out=$1; shift
	for p in "$@"; do echo go >&"${p#*:}"; done
	for p in "$@"; do
		p=${p%:*}
		wait_for "$p.out" '^done ' "pingpong $p done"
		eval "k_${p}_ping=\$(ctxt_switches $(field "$p.out" pid) $(field "$p.out" ping))"
		eval "k_${p}_pong=\$(ctxt_switches $(field "$p.out" pid) $(field "$p.out" pong))"
	done
	snap=$(snapshot "$WORK/snaps")
	for p in "$@"; do
		eval "exec ${p#*:}>&-"
		eval "wait_gone \$pp_${p%:*} 'pingpong ${p%:*}, its stdin closed'" ||
			fail "pingpong ${p%:*} failed"
		rm -f "in.${p%:*}"
	done
	frecd_stop
	dump_json "$snap" "$out"
}

# only_of DUMP TIDS: the first event that concerns none of TIDS (as the -p
# test reads them: a switch on either side, a fork on either side, any other
# event by its pid), or nothing.
only_of() {
	awk -v a="$2" "$jq_awk"'
		BEGIN { split(a, t, " "); for (i in t) keep[t[i]] = 1 }
		{
			type = jget($0, "type")
			if (type == "sched_switch")
				ok = (jget($0, "prev_pid") in keep) || (jget($0, "next_pid") in keep)
			else if (type == "sched_process_fork")
				ok = (jget($0, "parent_pid") in keep) || (jget($0, "child_pid") in keep)
			else if (type == "lost" || type == "gap")
				ok = 1
			else
				ok = jget($0, "pid") in keep
			if (!ok) { print; exit }
		}' "$1"
}

tids_of() { echo "$(field "$1.out" pid) $(field "$1.out" ping) $(field "$1.out" pong)"; }

# --- --cgroup alone -------------------------------------------------------
mkdir snaps
start_frecd -o "$WORK/snaps" --window 3600 --cgroup "$cga"
grep -q "filtered by.*--cgroup" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "the ready line does not mention --cgroup"; }
pingpong_start a 3 "$cga"
pingpong_start b 4
assert_eq "a's cgroup" "$cga" "$(cg_of "$(field a.out pid)")"
run_all one.json a:3 b:4

for t in ping pong; do
	tid=$(field a.out $t)
	eval kernel=\$k_a_$t
	assert_eq "a's $t switched out (frec vs kernel)" "$kernel" \
		"$(jcount one.json type=sched_switch prev_pid="$tid")"
	[ "$(jcount one.json type=sched_waking pid="$tid")" -gt 0 ] || fail "no waking of a's $t"
done
bad=$(only_of one.json "$(tids_of a)")
[ -z "$bad" ] || fail "an event that does not concern a: $bad"
for tid in $(tids_of b); do
	assert_eq "wakings of b's $tid" 0 "$(jcount one.json type=sched_waking pid="$tid")"
done
assert_eq "drops" 0 "$(jcount one.json type=lost)"
filtered=$(sed -n 's/.* lost, \([0-9]*\) filtered out.*/\1/p' "$WORK/frecd.log")
[ "${filtered:-0}" -gt 0 ] || fail "frecd counted no filtered events"
note "--cgroup $cga: $(wc -l < one.json) events kept, $filtered filtered out"

# --- --cgroup (as a directory under the mount) and -p C -----------------------
rm -f a.out b.out
pingpong_start a 3 "$cga"
pingpong_start b 4
pingpong_start c 5
start_frecd -o "$WORK/snaps" --window 3600 --cgroup "$(cg_dir "$cga")" -p "$(field c.out pid)"
grep -q "filtered by -p and --cgroup" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "the ready line does not say filtered by -p and --cgroup"; }
run_all two.json a:3 b:4 c:5
"$FREC" info "$snap" > info.txt || fail "frec info failed"
grep -q "^cgroup filter: $cga\$" info.txt ||
	{ cat info.txt >&2; fail "frec info does not give the filter as $cga"; }
for p in a c; do
	for t in ping pong; do
		tid=$(field $p.out $t)
		[ "$(jcount two.json type=sched_switch prev_pid="$tid")" -gt 0 ] || fail "no switch of $p's $t"
	done
done
bad=$(only_of two.json "$(tids_of a) $(tids_of c)")
[ -z "$bad" ] || fail "an event that concerns neither a nor c: $bad"
for tid in $(tids_of b); do
	assert_eq "wakings of b's $tid" 0 "$(jcount two.json type=sched_waking pid="$tid")"
done

# --- a cgroup that does not exist ------------------------------------------
# (bounded: a frecd that started anyway would run until stopped)
timeout 30 "$FRECD" --socket "$WORK/none.sock" --config /dev/null -o "$WORK/snaps" \
	--cgroup "/frec-it.$$.none" > none.log 2>&1
rc=$?
assert_eq "exit status for a missing cgroup" 2 "$rc"
grep -q -- "--cgroup /frec-it.$$.none" none.log || { cat none.log >&2; fail "the error does not name the cgroup"; }
exit 0
