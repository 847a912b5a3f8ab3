#!/bin/sh
# --cgroup-hierarchy pids: the events carry the cgroups of the v1 pids
# hierarchy. A pingpong runs in a cgroup of it, another outside: with
# --cgroup on that cgroup too, every switch-in of the first's threads and
# their creation carry the cgroup's v1 path and inode, the other's wakings
# are not recorded, and frec info names the hierarchy "v1 (pids)".
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/cgroup_v1_lib.sh"

v1_pids_mount
D="$WORK/pids/frec-it.$$"
mkdir "$D" || { umount "$WORK/pids"; fail "mkdir $D"; }
v1_cleanup() {
	for p in $(cat "$D/cgroup.procs" 2>/dev/null); do
		echo "$p" > "$WORK/pids/cgroup.procs" 2>/dev/null
	done
	rmdir "$D" 2>/dev/null
	umount "$WORK/pids" 2>/dev/null
}
trap 'cleanup_frecd; v1_cleanup' EXIT
ino=$(stat -c %i "$D")

mkdir snaps
start_frecd -o "$WORK/snaps" --window 3600 --cgroup-hierarchy pids --cgroup "/frec-it.$$"
grep -q "cgroups: v1 (pids) at " "$WORK/frecd.log" || fail "the log does not name the v1 hierarchy"

n=$(scaled 500)
mkfifo ina inb
exec 3<> ina 4<> inb
# shellcheck disable=SC2016
sh -c 'echo $$ > "$1/cgroup.procs" || exit 9; exec "$2" "$3"' sh "$D" "$PROGS/pingpong" "$n" \
	< ina > a.out 3>&- 4>&- &
pa=$!
"$PROGS/pingpong" "$n" < inb > b.out 3>&- 4>&- &
pb=$!
SCHED_PIDS="$SCHED_PIDS $pa $pb"
wait_for a.out '^done ' "pingpong a done"
wait_for b.out '^done ' "pingpong b done"
path=$(awk -F: '$2 == "pids" { print $3 }' "/proc/$pa/cgroup")
assert_eq "the pingpong's v1 path" "/frec-it.$$" "$path"
snap=$(snapshot "$WORK/snaps")
exec 3>&- 4>&-
wait_gone "$pa" "pingpong a, its stdin closed" || fail "pingpong a failed"
wait_gone "$pb" "pingpong b, its stdin closed" || fail "pingpong b failed"
stop_frecd
dump_json "$snap" dump.json
"$FREC" info "$snap" > info.out || fail "frec info failed"

grep -q '^ *cgroups: *v1 (pids)' info.out || fail "frec info: $(grep -i cgroup info.out)"
for t in ping pong; do
	tid=$(field a.out $t)
	ins=$(jcount dump.json type=sched_switch next_pid="$tid")
	[ "$ins" -gt 0 ] || fail "no switch to a's $t"
	assert_eq "a's $t's switch-ins in $path" "$ins" \
		"$(jcount dump.json type=sched_switch next_pid="$tid" next_cgroup_id="$ino" next_cgroup="$path")"
	assert_eq "a's $t's creation in $path" 1 \
		"$(jcount dump.json type=sched_process_fork child_pid="$tid" child_cgroup_id="$ino")"
done
for t in ping pong; do
	assert_eq "wakings of b's $t" 0 "$(jcount dump.json type=sched_waking pid="$(field b.out $t)")"
done
exit 0
