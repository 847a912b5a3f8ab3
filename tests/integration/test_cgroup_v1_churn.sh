#!/bin/sh
# --cgroup-hierarchy pids while v1 cgroups come and go: each round makes a
# cgroup, runs a pingpong in it and removes it once the pingpong has
# exited, so that a later cgroup may get the memory of an earlier one (slab
# reuse), as containers do. Every switch-in of each round's threads must
# carry that round's cgroup inode: the switch program's per-CPU memo of
# cgroup ids (bpf/cgroup_memo.bpf.h) must never answer for a cgroup that is
# gone.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_v1_lib.sh"

v1_pids_mount
churn_cleanup() {
	for d in "$WORK"/pids/frec-churn.$$.*; do
		[ -d "$d" ] || continue
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			echo "$p" > "$WORK/pids/cgroup.procs" 2>/dev/null
		done
		rmdir "$d" 2>/dev/null
	done
	umount "$WORK/pids" 2>/dev/null
}
trap 'cleanup_frecd; churn_cleanup' EXIT

mkdir snaps
start_frecd -o "$WORK/snaps" --window 3600 --cgroup-hierarchy pids

rounds=6
n=$(scaled 200)
i=1
while [ $i -le $rounds ]; do
	D="$WORK/pids/frec-churn.$$.$i"
	mkdir "$D" || fail "mkdir $D"
	stat -c %i "$D" > "ino.$i"
	# shellcheck disable=SC2016
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 9; exec "$2" "$3"' sh "$D" "$PROGS/pingpong" "$n" \
		< /dev/null > "out.$i" &
	p=$!
	wait "$p" || fail "round $i: pingpong failed"
	grep -q '^done ' "out.$i" || fail "round $i: pingpong did not finish"
	# an exited process may be listed for a moment: try a few times
	k=0
	until rmdir "$D" 2>/dev/null; do
		k=$((k + 1))
		[ $k -lt 50 ] || fail "round $i: rmdir $D: $(cat "$D/cgroup.procs" | tr '\n' ' ')"
		sleep 0.1
	done
	i=$((i + 1))
done
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

i=1
while [ $i -le $rounds ]; do
	ino=$(cat "ino.$i")
	for t in ping pong; do
		tid=$(field "out.$i" $t)
		ins=$(jcount dump.json type=sched_switch next_pid="$tid")
		[ "$ins" -gt 0 ] || fail "round $i: no switch to $t ($tid)"
		assert_eq "round $i: $t's switch-ins in cgroup inode $ino" "$ins" \
			"$(jcount dump.json type=sched_switch next_pid="$tid" next_cgroup_id="$ino")"
	done
	i=$((i + 1))
done
note "$rounds cgroups, inodes $(cat ino.* | tr '\n' ' ')"
exit 0
