#!/bin/sh
# systemd's notify protocol against a fake NOTIFY_SOCKET, at an abstract
# address and at a path: READY=1 with MAINPID once attached, STATUS= with
# events/s and drops every 5 s, RELOADING=1 then READY=1 on SIGHUP, and
# STOPPING=1 on SIGTERM, in that order, one datagram each.
. "$FREC_TEST_LIB"

RECV="$PROGS/notify_recv"
[ -x "$RECV" ] || fail "no $RECV: run make progs"
status_re='STATUS=recording [0-9]+ events/s, [0-9]+ lost \([0-9]+/s\), window [0-9]+\.[0-9] s [0-9]+\.[0-9] MiB, [0-9]+ snapshots'
# at READY=1 no rate is measured yet: a count instead
first_re='STATUS=recording [0-9]+ events, [0-9]+ lost, window [0-9]+\.[0-9] s [0-9]+\.[0-9] MiB, 0 snapshots'

# run ADDR OUT: frecd under a fake manager listening at ADDR; its datagrams in OUT.
run() {
	addr=$1 out=$2
	"$RECV" "$addr" > "$out" 2> "$out.err" &
	recv_pid=$!
	wait_for "$out" '^listening$' "notify_recv listening"
	NOTIFY_SOCKET=$addr
	export NOTIFY_SOCKET
	start_frecd -o "$WORK/snaps"
	unset NOTIFY_SOCKET
	wait_for "$out" '^READY=1' "READY=1"
	# the first periodic STATUS= (every 5 s)
	wait_for "$out" "^$status_re\$" "a periodic STATUS="
	kill -HUP "$FRECD_PID"
	wait_count "$out" '^READY=1' 2 "READY=1 after the reload"
	stop_frecd
	wait "$recv_pid" || { cat "$out.err" >&2; fail "notify_recv failed"; }
}

check() {
	out=$1
	# the first datagram: READY=1, this frecd's pid, a status line
	head -n 2 "$out" | tail -n 1 > first
	grep -Eq "^READY=1\|MAINPID=$FRECD_PID_SEEN\|$first_re\$" first ||
		{ cat "$out" >&2; fail "first datagram: $(cat first)"; }
	# the order of everything but the periodic status
	grep -v '^listening$' "$out" | grep -Ev "^$status_re\$" | sed 's/|.*//' > order
	printf 'READY=1\nRELOADING=1\nREADY=1\nSTOPPING=1\n' > order.want
	cmp -s order order.want || { cat "$out" >&2; fail "datagram order: $(tr '\n' ' ' < order)"; }
	grep -Eq '^RELOADING=1\|MONOTONIC_USEC=[0-9]+\|STATUS=reloading the configuration$' "$out" ||
		{ cat "$out" >&2; fail "RELOADING=1 datagram"; }
	assert_eq "READY=1 datagrams with this MAINPID" 2 "$(grep -c "^READY=1|MAINPID=$FRECD_PID_SEEN|" "$out")"
	assert_eq "STOPPING=1 datagram" "STOPPING=1|STATUS=stopping" "$(grep '^STOPPING' "$out")"
	assert_eq "periodic STATUS= datagrams with no other variable" 0 \
		"$(grep '^STATUS=' "$out" | grep -Evc "^$status_re\$")"
}

mkdir -m 700 snaps
run "@frec-test-notify-$$" abstract.out
FRECD_PID_SEEN=$(awk '/ready: pid/ { sub(/.*ready: pid /, ""); sub(/,.*/, ""); print; exit }' "$WORK/frecd.log")
check abstract.out

run "$WORK/notify.sock" path.out
FRECD_PID_SEEN=$(awk '/ready: pid/ { sub(/.*ready: pid /, ""); sub(/,.*/, ""); print; exit }' "$WORK/frecd.log")
check path.out
[ ! -e "$WORK/notify.sock" ] || fail "notify_recv left its socket"

# a NOTIFY_SOCKET that is no address: one warning, frecd runs anyway
NOTIFY_SOCKET=relative/notify
export NOTIFY_SOCKET
start_frecd -o "$WORK/snaps"
unset NOTIFY_SOCKET
grep -q "frecd warn: NOTIFY_SOCKET=relative/notify: Invalid argument; not telling the service manager anything (expected an absolute path or @name)$" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "no warning for a bad NOTIFY_SOCKET"; }
stop_frecd
exit 0
