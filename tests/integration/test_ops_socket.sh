#!/bin/sh
# The control socket: its file modes, frec status (with the task tables at
# their default bounds) and frec snapshot, the answer to every malformed,
# oversized or unknown request, a peer that is not root, too many clients,
# idle clients, a second frecd on the same socket, a stale socket, and the
# socket gone after a clean stop.
. "$FREC_TEST_LIB"

CLIENT="$PROGS/ctl_client"
[ -x "$CLIENT" ] || fail "no $CLIENT: run make progs"
usage="send 'snapshot [REASON]', 'trigger NAME', 'status' or 'status json'"

mkdir -m 700 snaps
sock="$WORK/run/frecd.sock"
start_frecd -o "$WORK/snaps" --socket "$sock"

# --- modes: directory created 0700, socket 0600 ------------------------------
assert_eq "socket directory mode" 700 "$(stat -c %a "$WORK/run")"
assert_eq "socket mode" 600 "$(stat -c %a "$sock")"
[ -S "$sock" ] || fail "$sock is not a socket"

# --- status ------------------------------------------------------------------
"$FREC" status --socket "$sock" > status.out 2> status.err || { cat status.err >&2; fail "frec status failed"; }
[ ! -s status.err ] || fail "frec status wrote to stderr: $(cat status.err)"
grep -q "^frecd         pid $FRECD_PID, up [0-9.]* s$" status.out || fail "status: frecd line: $(head -n 1 status.out)"
assert_eq "status: recording" "recording     all processes, tp_btf programs" \
	"$(grep '^recording' status.out | sed 's/raw_tp programs/tp_btf programs/')"
assert_eq "status: snapshots" "snapshots     0 written, 0 failed, none in progress" "$(grep '^snapshots' status.out)"
assert_eq "status: directory" "directory     $WORK/snaps" "$(grep '^directory' status.out)"
assert_eq "status: compress" "compress      none" "$(grep '^compress' status.out)"
assert_eq "status: retention" "retention     keep 100 snapshots, 1073741824 bytes at most" "$(grep '^retention' status.out)"
assert_eq "status: probes" "probes        0" "$(grep '^probes' status.out)"
assert_eq "status: no final ok line" 0 "$(grep -c '^ok' status.out)"
grep -q '^events        [0-9]' status.out || fail "status: no events line"
grep -q '^lost          0' status.out || fail "status: no lost line"
# the runs the kernel skipped (bpf_prog_info.recursion_misses, 5.12)
case $(uname -r) in
[0-4].*|5.[0-9].*|5.1[01].*)
	recursion_text="recursion     not counted: this kernel's bpf_prog_info has no recursion_misses (Linux 5.12)"
	recursion_json=null ;;
*)
	recursion_text="recursion     0 runs the kernel skipped (a program fired on a CPU where it was running), in the snapshot as lost"
	recursion_json=0 ;;
esac
assert_eq "status: recursion" "$recursion_text" "$(grep '^recursion' status.out)"

"$FREC" status --json --socket "$sock" > status.json || fail "frec status --json failed"
assert_eq "status --json: one line" 1 "$(wc -l < status.json)"
assert_eq "status --json: pid" "$FRECD_PID" "$(awk "$jq_awk"'{ print jget($0, "pid") }' status.json)"
grep -q "\"filtered\":[0-9]*,\"recursion_misses\":$recursion_json," status.json ||
	fail "status --json: recursion_misses: $(cat status.json)"
grep -q '"snapshots":{"written":0,"failed":0,"in_progress":false,"last":null,' status.json ||
	fail "status --json: snapshots: $(cat status.json)"
grep -q "\"directory\":\"$WORK/snaps\",\"compress\":\"none\"}," status.json ||
	fail "status --json: compress: $(cat status.json)"
grep -Eq '"retention":\{"keep":100,"keep_bytes":1073741824\},"probes":\[\],"triggers":\[\],"cgroups":\{"hierarchy":"[a-z0-9_]*","filters":\[\],"known":[0-9]+,"pending":[0-9]+,"unnamed":[0-9]+,"moves":[0-9]+\},"on_snapshot":null\}$' status.json ||
	fail "status --json: retention and probes: $(cat status.json)"

# --- the task tables at their default bounds ----------------------------------
# kernel.threads-max, at most kernel.pid_max, within [65536, 2^20], and the
# process table's bound the same
max=$(awk -v t="$(cat /proc/sys/kernel/threads-max)" -v p="$(cat /proc/sys/kernel/pid_max)" \
	'BEGIN { n = t + 0; if (p + 0 < n) n = p + 0; if (n < 65536) n = 65536; if (n > 1048576) n = 1048576; print n }')
tasks=$(grep '^tasks ' status.out) || fail "status: no tasks line: $(cat status.out)"
echo "$tasks" | grep -Eq "^tasks         [0-9]+ threads of $max, [0-9]+ processes of $max, [1-9][0-9]* bytes; evicted [0-9]+ threads, [0-9]+ processes unseen for a window; 0 thread mentions found the table full\$" ||
	fail "status: tasks line (bounds $max): $tasks"
# tfield FILE KEY: KEY of the status JSON's tasks object
tfield() { grep -o '"tasks":{[^}]*}' "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2; }
grep -Eq "\"tasks\":\{\"threads\":[0-9]+,\"max_threads\":$max,\"processes\":[0-9]+,\"max_processes\":$max,\"bytes\":[1-9][0-9]*,\"threads_evicted\":[0-9]+,\"processes_evicted\":[0-9]+,\"threads_untracked\":0\}," status.json ||
	fail "status --json: tasks (bounds $max): $(grep -o '"tasks":{[^}]*}' status.json)"
# the tables as grown so far are within what they may grow to
tables=$(grep -o '"tables_bytes":[0-9]*' status.json | cut -d: -f2)
[ "$(tfield status.json bytes)" -le "$tables" ] ||
	fail "status --json: tasks bytes $(tfield status.json bytes) above tables_bytes $tables"
[ "$(tfield status.json threads)" -ge 2 ] && [ "$(tfield status.json processes)" -ge 1 ] ||
	fail "status --json: no threads or processes held: $(grep -o '"tasks":{[^}]*}' status.json)"
# 100 threads more, all alive at once, are held: counted with the entries
# evicted meanwhile (seeded threads asleep for a window), less a few for
# threads that exit on their own during the test
held() { echo $(($(tfield "$1" threads) + $(tfield "$1" threads_evicted))); }
before=$(held status.json)
mkfifo threads.in
"$PROGS/threads" 100 < threads.in > threads.out &
threads_pid=$!
exec 3> threads.in
wait_for threads.out '^ready$' "the 100 threads"
more() {
	"$FREC" status --json --socket "$sock" > tasks.json || return 1
	[ "$(held tasks.json)" -ge $((before + 90)) ]
}
eventually more || fail "status: $(held tasks.json) threads held and evicted with 100 more running, $before before"
assert_eq "status --json: untracked with room" 0 "$(tfield tasks.json threads_untracked)"
echo >&3
exec 3>&-
wait "$threads_pid" || fail "threads failed"
assert_eq "threads" done "$(tail -n 1 threads.out)"
assert_eq "full-table warnings with room" 0 "$(grep -c 'thread table is full' "$WORK/frecd.log")"

# --- snapshot: waits, prints the path, the reason is in the header ------------
path=$("$FREC" snapshot --reason "from the socket test" --socket "$sock") || fail "frec snapshot failed"
case $path in
"$WORK"/snaps/frec-*.frec) ;;
*) fail "frec snapshot printed '$path'" ;;
esac
[ -f "$path" ] || fail "frec snapshot printed $path, which does not exist"
"$FREC" info "$path" > info.out || fail "frec info $path failed"
assert_eq "reason in the header" 'reason:       "socket: from the socket test"' "$(grep '^reason:' info.out)"
path2=$("$FREC" snapshot --socket "$sock") || fail "frec snapshot (no reason) failed"
"$FREC" info "$path2" > info2.out || fail "frec info $path2 failed"
assert_eq "reason without --reason" 'reason:       "socket"' "$(grep '^reason:' info2.out)"
# SIGUSR1 takes the same path and counts with them
path3=$(snapshot "$WORK/snaps")
"$FREC" info "$path3" > info3.out || fail "frec info $path3 failed"
assert_eq "reason of SIGUSR1" 'reason:       "SIGUSR1"' "$(grep '^reason:' info3.out)"
wait_for "$WORK/frecd.log" "snapshot $path3: " "the SIGUSR1 snapshot's log line"
"$FREC" status --socket "$sock" > status2.out || fail "frec status failed"
assert_eq "status after 3 snapshots" "snapshots     3 written, 0 failed, none in progress" "$(grep '^snapshots' status2.out)"
assert_eq "status: last snapshot" "last          $path3" "$(grep '^last' status2.out)"
assert_eq "snapshot files" 3 "$(ls snaps/*.frec | wc -l)"

# --- bad requests: one error line each, frecd keeps serving -------------------
# expect_answer WHAT EXPECTED CLIENT_ARGS...
expect_answer() {
	what=$1 want=$2; shift 2
	"$CLIENT" "$@" > answer.out 2>&1 || { cat answer.out >&2; fail "$what: ctl_client failed"; }
	assert_eq "$what" "$want" "$(cat answer.out)"
}
expect_answer "unknown request" "error unknown request 'bogus'; $usage" "$sock" "bogus
"
expect_answer "unknown long word" \
	"error unknown request 'statusstatusstatusstatusstatusst...'; $usage" \
	"$sock" "statusstatusstatusstatusstatusstatus
"
expect_answer "empty request" "error empty request; $usage" "$sock" "
"
expect_answer "control character" \
	"error malformed request: control character 0x01 at byte 5; $usage" "$sock" "$(printf 'stat\001us')
"
expect_answer "status json with a space too many" "error unknown request 'status'; $usage" "$sock" "status  json
"
expect_answer "reason too long" "error reason longer than 100 bytes; give a shorter --reason" \
	"$sock" "snapshot $(awk 'BEGIN { while (n++ < 101) printf "r" }')
"
# 4096 bytes with the newline is the largest request; one more is refused
expect_answer "4097 bytes" "error request longer than 4096 bytes; send one short line" -x 4097 "$sock"
expect_answer "4096 bytes without a newline" "error request longer than 4096 bytes; send one short line" \
	-x 4096 "$sock"
"$CLIENT" "$sock" "$(awk 'BEGIN { while (n++ < 4095) printf "x" }')
" > answer.out
assert_eq "4096 bytes with the newline: read, then unknown" \
	"error unknown request 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'; $usage" "$(cat answer.out)"
# the end of the request may be the client's shutdown instead of a newline; \r\n is fine
"$CLIENT" -w "$sock" "status" > answer.out
assert_eq "status ended by shutdown: last line" "ok" "$(tail -n 1 answer.out)"
grep -q "^frecd         pid $FRECD_PID," answer.out || fail "status ended by shutdown: $(head -n 2 answer.out)"
"$CLIENT" "$sock" "$(printf 'status json\r')
" > answer.out
assert_eq "status json with CRLF: lines" 2 "$(wc -l < answer.out)"
assert_eq "status json with CRLF: last line" "ok" "$(tail -n 1 answer.out)"
# a connection that sends nothing and closes gets nothing; frecd goes on
"$CLIENT" -w "$sock" > answer.out
assert_eq "empty connection" "" "$(cat answer.out)"
"$CLIENT" "$sock" "snapshot via the raw client
" > answer.out
case $(cat answer.out) in
"ok $WORK/snaps/frec-"*.frec) ;;
*) fail "raw snapshot request: $(cat answer.out)" ;;
esac

# --- a peer that is not root --------------------------------------------------
pub=$(mktemp -d /tmp/frec-pub.XXXXXX)
chmod 755 "$pub"
cp "$CLIENT" "$FREC" "$pub/"
# as the modes stand (socket 0600 in a 0700 directory): cannot even connect
as_nobody "$pub/frec" status --socket "$sock" > out 2> err
assert_eq "frec status as nobody: exit" 1 "$?"
assert_eq "frec status as nobody: message" \
	"frec status: cannot connect to frecd at $sock: Permission denied; its control socket is for root: run as root (sudo)" \
	"$(cat err)"
"$pub/ctl_client" -u 65534 "$sock" "status
" > out
assert_eq "ctl_client as nobody" "connect: Permission denied" "$(cat out)"
# with the modes opened up, SO_PEERCRED still refuses it
chmod 755 "$WORK" "$WORK/run"
chmod 666 "$sock"
"$pub/ctl_client" -u 65534 "$sock" "snapshot
" > out
assert_eq "nobody through open modes" \
	"error permission denied: frecd's control socket is for root only; run as root (sudo)" "$(cat out)"
wait_for "$WORK/frecd.log" "control socket: refused a connection from uid 65534 \(pid [0-9]+\): root only" \
	"the refusal in the log"
chmod 700 "$WORK" "$WORK/run"
chmod 600 "$sock"
rm -rf "$pub"
assert_eq "snapshots after the refused one" 4 "$(ls snaps/*.frec | wc -l)"

# --- too many clients, and idle ones timed out --------------------------------
# 16 connections that say nothing fill every slot; the 17th is turned away at
# once; the 16 are told, 10 s later, that no request came.
"$CLIENT" -H 16 "$sock" "status
" > held.out
assert_eq "17th client" "error too many clients; try again" "$(head -n 1 held.out)"
assert_eq "idle clients told" 16 \
	"$(grep -c '^held [0-9]*: error no complete request line within 10 s; send one line ending in a newline$' held.out)"
assert_eq "held.out lines" 17 "$(wc -l < held.out)"
"$FREC" status --socket "$sock" > /dev/null || fail "frec status after the idle clients failed"

# --- a second frecd on the same socket is refused ------------------------------
mkdir -m 700 snaps2
"$FRECD" --config /dev/null -o "$WORK/snaps2" --socket "$sock" > second.log 2>&1
assert_eq "second frecd: exit" 1 "$?"
grep -q "frecd error: --socket $sock: another frecd is listening there; stop it, or give this one its own --socket$" second.log ||
	{ cat second.log >&2; fail "second frecd: message"; }
[ -S "$sock" ] || fail "the second frecd removed the first one's socket"
"$FREC" status --socket "$sock" > /dev/null || fail "the first frecd stopped answering"

# --- a clean stop removes the socket ---------------------------------------
stop_frecd
[ ! -e "$sock" ] || fail "$sock is left after SIGTERM"

# --- a stale socket (frecd killed) is replaced; a file that is not a socket is not
start_frecd -o "$WORK/snaps" --socket "$sock"
kill -KILL "$FRECD_PID"
wait "$FRECD_PID" 2>/dev/null
FRECD_PID=""
[ -S "$sock" ] || fail "no stale socket after SIGKILL"
start_frecd -o "$WORK/snaps" --socket "$sock"
"$FREC" status --socket "$sock" > /dev/null || fail "frec status after replacing a stale socket failed"
stop_frecd
: > "$WORK/run/plain"
"$FRECD" --config /dev/null -o "$WORK/snaps" --socket "$WORK/run/plain" > plain.log 2>&1
assert_eq "socket path is a file: exit" 1 "$?"
grep -q "frecd error: --socket $WORK/run/plain: exists and is not a socket; remove it or choose another --socket$" plain.log ||
	{ cat plain.log >&2; fail "socket path is a file: message"; }
[ -f "$WORK/run/plain" ] || fail "frecd removed a file that was not its socket"
exit 0
