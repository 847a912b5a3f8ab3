#!/bin/sh
# A probe on a file inside a container: probe_target is copied into a tmpfs
# that only its own mount namespace sees (nsrun -p -m), and probed as
# /proc/HOSTPID/root/PATH, which frecd opens inside that process's root
# (openat2 RESOLVE_IN_ROOT). The snapshot holds exactly N entries with the
# arguments (A, B, i); the same PATH from the host's root does not exist
# there, and is a usage error. A library name with -p is the file that
# process maps (/proc/PID/map_files), which the host's library path lacks;
# a second -p process, on the host, maps another file of that name: frecd
# says it is not probed there.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

NSRUN="$PROGS/nsrun"
[ -x "$NSRUN" ] || fail "no $NSRUN: run make progs"
case $(uname -r) in
[0-4].*|5.[0-5].*) skip "openat2 RESOLVE_IN_ROOT needs Linux 5.6" ;;
esac

n=$(scaled 300)
a=5 b=9
dir=/tmp/frec-in.$$
mkdir "$dir" || fail "cannot make $dir"
cleanup() {
	[ -z "${ns_pid:-}" ] || kill -KILL "$ns_pid" 2>/dev/null
	[ -z "${other_pid:-}" ] || kill -KILL "$other_pid" 2>/dev/null
	cleanup_frecd
	rmdir "$dir" 2>/dev/null
}
trap cleanup EXIT

# The tmpfs over $dir is mounted in the child's mount namespace only.
"$NSRUN" -p -m -- sh -c "mount -t tmpfs t $dir && cp '$TARGET' '$TARGET_LIB' $dir/ &&
	mv $dir/probe_target $dir/app && exec $dir/app $n 1 $a $b" > ns.out 2>&1 &
ns_pid=$!
wait_for ns.out '^child [0-9]+$' "nsrun's child"
host_pid=$(field ns.out child)
wait_for ns.out '^ready ' "the target in its namespaces"
assert_eq "the target's pid in its own namespace" 1 "$(field ns.out ready)"
[ ! -e "$dir/app" ] || fail "$dir/app is visible from the host's root"

probe="uprobe:/proc/$host_pid/root$dir/app:frec_target_fp"
lib="uprobe:libfrectarget:frec_lib_mul"
start_target other "$n" 1 "$a" "$b"
mkdir snaps
start_frecd -o "$WORK/snaps" --probe "$probe" --probe "$lib" --probe-args 3 -p "$host_pid" -p "$other_pid"
host_lib=$(readlink -f "$TARGET_LIB")
grep -q "frecd warn: probe on 'libfrectarget': pid $other_pid maps another libfrectarget.so: not probed there; add --probe /proc/$other_pid/root$host_lib\$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no warning for the host's process"; }
grep -q "probe 2: validated /proc/$host_pid/root$dir/libfrectarget.so (dev " "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "the library is not the one the target maps"; }
grep -q "probe 1: validated /proc/$host_pid/root$dir/app (dev [0-9]*:[0-9]*, inode [0-9]*, build-id [0-9a-f]*)" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no validated line for the container's file"; }
kill -USR1 "$host_pid" || fail "the target ($host_pid) is not running"
wait "$ns_pid" || { cat ns.out >&2; fail "the target failed"; }
ns_pid=""
grep -q '^done$' ns.out || fail "the target did not finish its calls"
run_target other
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
assert_eq "entries" "$n" "$(jcount dump.json type=uprobe probe="$probe")"
assert_eq "entries of the target (host pid)" "$n" "$(jcount dump.json type=uprobe probe="$probe" pid="$host_pid")"
assert_eq "all entries" "$((2 * n))" "$(jcount dump.json type=uprobe)"
expect "$n" 1 "$a \",\" $b \",\" i" > want.args
jargs dump.json type=uprobe probe="$probe" > got.args
assert_same "entry arguments" want.args got.args
assert_eq "library entries" "$n" "$(jcount dump.json type=uprobe probe="$lib" pid="$host_pid")"
assert_eq "entries of the host's process" 0 "$(jcount dump.json type=uprobe pid="$other_pid")"

# From the host's root the file is not there: a usage error that says where to look.
"$FRECD" -o "$WORK/snaps" --config /dev/null --probe "uprobe:$dir/app:frec_target_fp" > out 2> err
rc=$?
assert_eq "the host's path: exit" 2 "$rc"
assert_eq "the host's path: message" \
	"frecd: probe 'uprobe:$dir/app:frec_target_fp': $dir/app does not exist: check the path (a file inside a container: give /proc/PID/root/PATH)" \
	"$(cat err)"
exit 0
