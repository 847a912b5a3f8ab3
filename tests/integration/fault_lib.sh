# Helpers for the fault tests (test_fault_*.sh); sourced after
# "$FREC_TEST_LIB". POSIX sh and busybox tools only.

# A frecd stopped with SIGSTOP does not act on SIGTERM: continue it first.
trap '[ -n "$FRECD_PID" ] && kill -CONT "$FRECD_PID" 2>/dev/null; cleanup_frecd' EXIT

# assert_ids_gone WHAT IDS_PROGS IDS_LINKS: every one of them is freed.
assert_ids_gone() {
	for id in $2; do eventually bpf_gone prog "$id" || fail "program $id left behind ($1)"; done
	for id in $3; do eventually bpf_gone link "$id" || fail "link $id left behind ($1)"; done
}

# launch_frecd ARGS...: run frecd in the background like start_frecd, but do
# not wait for it to be ready.
launch_frecd() {
	: > "$WORK/frecd.log"
	# shellcheck disable=SC2086
	"$FRECD" --socket "$FRECD_SOCKET" --config /dev/null "$@" ${FREC_FRECD_EXTRA_ARGS:-} \
		>> "$WORK/frecd.log" 2>&1 \
		3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	FRECD_PID=$!
}

# signals_blocked: frecd has SIGTERM (15, bit 14 of SigBlk) blocked, that is,
# it is past the first statement of main().
signals_blocked() {
	m=$(awk '$1 == "SigBlk:" { print $2 }' /proc/"$FRECD_PID"/status 2>/dev/null)
	[ -n "$m" ] && [ $(( 0x$m & 0x4000 )) -ne 0 ]
}

# stop_when CMD...: busy-wait (no sleep: start-up takes tens of ms) until
# CMD succeeds, then SIGSTOP frecd and wait until it is stopped. Fails if
# frecd exits first.
stop_when() {
	until "$@"; do
		kill -0 "$FRECD_PID" 2>/dev/null || { cat "$WORK/frecd.log" >&2; fail "frecd exited during start-up"; }
	done
	kill -STOP "$FRECD_PID"
	until grep -q '^State:[[:space:]]*T' /proc/"$FRECD_PID"/status; do :; done
}

# wait_frecd: wait for frecd to exit; its exit status in $RC.
wait_frecd() {
	wait "$FRECD_PID"; RC=$?
	FRECD_PID=""
}
