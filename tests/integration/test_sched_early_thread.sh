#!/bin/sh
# Threads that were created and named before frecd started are named in the
# snapshot, and so is their process with its command line: frecd seeds its
# task table from /proc (the command line can come from nowhere else, as the
# process did not exec while frecd ran).
. "$FREC_TEST_LIB"

mkfifo in
"$PROGS/pingpong" -w 200 < in > pp.out &
pp=$!
exec 3> in
wait_for pp.out '^pong ' "pingpong threads named"
pid=$(field pp.out pid)
ping=$(field pp.out ping)
pong=$(field pp.out pong)

mkdir snaps
start_frecd -o "$WORK/snaps"
# frecd reads /proc while it records: the seed must be in before the
# snapshot, which pingpong's 200 rounds may not give it time for (seen
# under emulation)
wait_for "$WORK/frecd.log" "frecd info: names: .* read from /proc" "frecd's names from /proc"
echo go >&3
wait_for pp.out '^done ' "pingpong done"
snap=$(snapshot "$WORK/snaps")
exec 3>&-
wait "$pp" || fail "pingpong failed"
dump_json "$snap" dump.json

# Neither thread was born or renamed while frecd ran.
assert_eq "rename events" 0 "$(jcount dump.json type=task_rename pid="$ping")"
assert_eq "fork events" 0 "$(jcount dump.json type=sched_process_fork child_pid="$ping")"
for t in ping pong; do
	eval tid=\$$t
	out=$(jcount dump.json type=sched_switch prev_pid="$tid")
	[ "$out" -gt 0 ] || fail "$t ($tid) never switched out in the snapshot"
	assert_eq "$t's switches named $t" "$out" \
		"$(jcount dump.json type=sched_switch prev_pid="$tid" prev_comm="$t")"
done

# The process table, as the Chrome export shows it (lib.sh, cmdline_of).
assert_eq "pingpong's command line" "$PROGS/pingpong -w 200" "$(cmdline_of "$snap" "$pid")"
exit 0
