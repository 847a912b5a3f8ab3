#!/bin/sh
# A name written to /proc/PID/comm is a task_rename, as a thread's own
# prctl(PR_SET_NAME) is (test_sched_pingpong): comm_write() in
# fs/proc/base.c calls set_task_comm(), whose __set_task_comm() fires the
# tracepoint. Only a thread of the same process may write it (glibc's
# pthread_setname_np() does, for another thread): a shell that sleeps in a
# loop writes its own, midway. Exactly one task_rename of it, from its name
# to the new one, every event of it before that names it by its old name
# and every one after by the new (sched_lib.sh, thread_names).
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

new=frec-renamed
pid=""
# a failed check must not leave the shell looping
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	cleanup_frecd
}
trap cleanup EXIT
# sleep a file or a builtin: either way the shell sleeps, switching out and
# being woken, before and after its rename
sh -c 'while [ ! -e rename ]; do sleep 0.02; done
	printf %s "$0" > /proc/$$/comm || exit 3
	while [ ! -e stop ]; do sleep 0.02; done' "$new" &
pid=$!
# frecd starts after the shell's exec, which is a task_rename of its own
# (from the forked test shell's name to the shell's), and names it from /proc
i=0
until tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q 'rename ]'; do
	[ $i -lt 100 ] || fail "the shell ($pid) did not start its loop"
	sleep 0.1; i=$((i + 1))
done
birth=$(cat "/proc/$pid/comm") || fail "the shell ($pid) is not running"
start_frecd -o "$WORK/snaps"
i=0
while [ $i -lt 10 ]; do sleep 0.05; i=$((i + 1)); done
touch rename
i=0
while [ "$(cat "/proc/$pid/comm")" != "$new" ]; do
	[ $i -lt 100 ] || fail "the shell did not rename itself: $(cat "/proc/$pid/comm")"
	sleep 0.1; i=$((i + 1))
done
i=0
while [ $i -lt 10 ]; do sleep 0.05; i=$((i + 1)); done
touch stop
wait $pid || fail "the shell failed (exit $?; 3: it could not write /proc/$pid/comm)"
shell=$pid pid=""
snap=$(snapshot "$WORK/snaps")
dump_json "$snap" dump.json
assert_names dump.json "$shell" "$new" "$birth"
