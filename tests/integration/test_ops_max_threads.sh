#!/bin/sh
# More threads than --max-threads: the task table stays at its bound, the
# thread mentions it had no room for are counted in frec status (text and
# JSON), and frecd warns once (not on every tick) with the fix. Threads
# asleep for a window are evicted, and counted.
. "$FREC_TEST_LIB"

[ -x "$PROGS/threads" ] || fail "no $PROGS/threads: run make progs"

WARN='frecd warn: the thread table is full \(--max-threads 64, [0-9]+ threads held\): [1-9][0-9]* thread mentions since start found no room, and those threads are named from their own records only; raise --max-threads$'

# tfield FILE KEY: KEY of the status JSON's tasks object
tfield() { grep -o '"tasks":{[^}]*}' "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2; }

mkdir snaps
start_frecd -o "$WORK/snaps" --max-threads 64 --max-processes 64 --window 1 --period 100
# 200 threads alive at once: more than the table may hold, whatever it held
"$PROGS/threads" 200 < /dev/null > threads.out || fail "threads failed"
assert_eq "threads" done "$(tail -n 1 threads.out)"
wait_for "$WORK/frecd.log" "$WARN" "the full-table warning"
"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
"$FREC" status --json --socket "$FRECD_SOCKET" > status.json || fail "frec status --json failed"

tasks=$(grep '^tasks ' status.out) || fail "no tasks line: $(cat status.out)"
echo "$tasks" | grep -Eq '^tasks         [0-9]+ threads of 64, [0-9]+ processes of 64, [1-9][0-9]* bytes; evicted [0-9]+ threads, [0-9]+ processes unseen for a window; [1-9][0-9]* thread mentions found the table full: raise --max-threads$' ||
	fail "tasks line: $tasks"
grep -Eq '"tasks":\{"threads":[0-9]+,"max_threads":64,"processes":[0-9]+,"max_processes":64,"bytes":[1-9][0-9]*,"threads_evicted":[0-9]+,"processes_evicted":[0-9]+,"threads_untracked":[1-9][0-9]*\},' status.json ||
	fail "status --json: tasks: $(grep -o '"tasks":{[^}]*}' status.json)"
assert_range "threads held" 1 64 "$(tfield status.json threads)"
assert_range "processes held" 1 64 "$(tfield status.json processes)"
# 64 entries at most: 128 slots of tasks (under 64 bytes each), 128 of
# processes (24 bytes), and a cmdline of at most 4 KiB each
assert_range "tables' bytes" 1 $((128 * 64 + 128 * 24 + 64 * 4097)) "$(tfield status.json bytes)"
# the text and the JSON, a moment apart, count as many mentions or the
# JSON more
untracked=$(echo "$tasks" | sed 's/.*; \([0-9]*\) thread mentions.*/\1/')
[ "$(tfield status.json threads_untracked)" -ge "$untracked" ] ||
	fail "JSON untracked $(tfield status.json threads_untracked) below the text's $untracked"
# the warning's count is one the status passed through
said=$(grep -E "$WARN" "$WORK/frecd.log" | sed 's/.*held): \([0-9]*\) thread mentions.*/\1/')
[ "$said" -le "$untracked" ] || fail "warned of $said mentions, status says $untracked"

# once, not every tick, while the count grows
"$PROGS/threads" 200 < /dev/null > threads.out || fail "threads failed"
grown() {
	"$FREC" status --json --socket "$FRECD_SOCKET" > status2.json &&
		[ "$(tfield status2.json threads_untracked)" -gt "$(tfield status.json threads_untracked)" ]
}
eventually grown ||
	fail "200 more threads found room in a full table: $(tfield status2.json threads_untracked) untracked"
sleep 1
assert_eq "full-table warnings" 1 "$(grep -c 'thread table is full' "$WORK/frecd.log")"

# threads not seen for the 1 s window (asleep: a machine has some) are
# evicted, and counted
evicted() {
	"$FREC" status --json --socket "$FRECD_SOCKET" > status3.json &&
		[ "$(tfield status3.json threads_evicted)" -gt 0 ]
}
eventually evicted || fail "no thread evicted in 10 s: $(grep -o '"tasks":{[^}]*}' status3.json)"
stop_frecd
echo "ok"
