#!/bin/sh
# A process that execs while frecd records is named by the exec'd program's
# arguments, even when it exits before the next seal and seals had named it
# before: frecd reads its /proc command line at once, not at the seal (when
# it is gone). Two records ask for the read, each the other's backup when
# one is lost: the task_rename every exec emits, and the exec's own.
# The subshell below is first named with the arguments it inherited from
# its parent (as in test_proc_forked_cmdline); right after a seal it execs
# pingpong under the name sh (the comm it had), which runs for 1 s and
# exits, 2 s before the next seal (--period 3000).
. "$FREC_TEST_LIB"

sub="" shell=""
cleanup() {
	[ -n "$sub" ] && kill "$sub" 2>/dev/null
	[ -n "$shell" ] && kill "$shell" 2>/dev/null
	cleanup_frecd
}
trap cleanup EXIT

# named NAME: a new snapshot's process table names the subshell NAME
named() {
	snap=$(snapshot "$WORK/snaps")
	got=$(cmdline_of "$snap" "$sub")
	[ "$got" = "$1" ]
}

# wait_named NAME WHEN: wait (10 s at most) until a snapshot names it NAME
wait_named() {
	i=0
	until named "$1"; do
		[ $i -lt 20 ] || fail "$2: the snapshots name the subshell ($sub) '$got', expected '$1'"
		sleep 0.5; i=$((i + 1))
	done
}

start_frecd -o "$WORK/snaps" --period 3000
# The subshell forks a sleep every 0.1 s until the file go exists (60 s at
# most), then execs. No quote in the command line: it is compared with the
# Chrome export's. Its stdin is /dev/null (an asynchronous list's): pingpong exits
# when its exchange is over.
ln -s "$PROGS/pingpong" sh
sh -c '( i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; exec $0 -s 1 ) & echo $! > sub.pid; wait' \
	"$WORK/sh" > sub.out &
shell=$!
wait_for sub.pid '^[0-9]+$' "the subshell's pid"
sub=$(cat sub.pid)
exec_pid=$sub
before=$(tr '\0' ' ' < "/proc/$sub/cmdline" | sed 's/ $//')
[ -n "$before" ] || fail "the subshell ($sub) is not running"
case "$before" in
*"$WORK/sh"*) ;;
*) fail "the subshell's /proc command line is not its parent's: $before" ;;
esac
wait_named "$before" "before the exec"

# Right after a seal (each seal, a snapshot's too, starts the 3 s period
# again; one that comes sooner, for the size, only makes the note below),
# the exec.
n=$(status_field sealed) i=0
while [ "$(status_field sealed)" = "$n" ]; do
	[ $i -lt 200 ] || fail "frecd sealed no generation in 10 s (--period 3000)"
	sleep 0.05; i=$((i + 1))
done
touch go
wait "$shell" || fail "the shell failed (exit $?)"
shell="" sub=""
grep -q '^done ' sub.out || fail "pingpong did not run: $(cat sub.out)"
[ "$(status_field sealed)" = $((n + 1)) ] || note "a seal came while pingpong ran: this run does not tell the exec's read from the seal's"
after="$WORK/sh -s 1"
snap=$(snapshot "$WORK/snaps")
assert_eq "the exec'd process's command line" "$after" "$(cmdline_of "$snap" "$exec_pid")"
exit 0
