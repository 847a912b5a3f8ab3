#!/bin/sh
# A process forked and not exec'd since frecd started (a shell's subshell,
# a pre-forking server's worker) has no exec after which to read its
# command line: the seal that names its threads without one lists it, the
# /proc reader reads it, and the generations after name it with the
# arguments /proc shows (its parent's, which it inherited).
. "$FREC_TEST_LIB"

sub=""
cleanup() {
	[ -n "$sub" ] && kill "$sub" 2>/dev/null
	cleanup_frecd
}
trap cleanup EXIT

start_frecd -o "$WORK/snaps"
# The subshell sleeps in a loop for about 4 s, so that seals name it before
# and after the read; the shell waits for it. One line: the command line
# is compared with the Chrome export's, where a newline is escaped.
sh -c '( i=0; while [ $i -lt 40 ]; do sleep 0.1; i=$((i + 1)); done ) & echo $! > sub.pid; wait' \
	frec-forked-arg &
shell=$!
wait_for sub.pid '^[0-9]+$' "the subshell's pid"
sub=$(cat sub.pid)
want=$(tr '\0' ' ' < "/proc/$sub/cmdline" | sed 's/ $//')
[ -n "$want" ] || fail "the subshell ($sub) is not running"
case "$want" in
*frec-forked-arg*) ;;
*) fail "the subshell's /proc command line is not its parent's: $want" ;;
esac
wait "$shell" || fail "the shell failed (exit $?)"
forked=$sub sub=""
snap=$(snapshot "$WORK/snaps")
assert_eq "the forked process's command line" "$want" "$(cmdline_of "$snap" "$forked")"
exit 0
