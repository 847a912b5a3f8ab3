# Shared helpers for the integration tests; sourced by each test_*.sh.
# Only POSIX sh and busybox tools. Every helper fails the test loudly.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
note() { echo "# $*"; }

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }
# assert_range WHAT LOW HIGH ACTUAL (integers, inclusive)
assert_range() {
	[ "$4" -ge "$2" ] 2>/dev/null && [ "$4" -le "$3" ] 2>/dev/null ||
		fail "$1: expected $2..$3, got '$4'"
}

FRECD_PID=""
cleanup_frecd() {
	if [ -n "$FRECD_PID" ] && kill -0 "$FRECD_PID" 2>/dev/null; then
		kill -TERM "$FRECD_PID" 2>/dev/null
		i=0; while kill -0 "$FRECD_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$FRECD_PID" 2>/dev/null
	fi
	FRECD_PID=""
}
trap cleanup_frecd EXIT

# start_frecd ARGS...: run frecd in the background, logging to $WORK/frecd.log,
# and wait until it says it is ready.
start_frecd() {
	: > "$WORK/frecd.log"
	"$FRECD" "$@" >> "$WORK/frecd.log" 2>&1 &
	FRECD_PID=$!
	i=0
	while ! grep -q ready "$WORK/frecd.log"; do
		kill -0 "$FRECD_PID" 2>/dev/null || { cat "$WORK/frecd.log" >&2; fail "frecd exited before ready"; }
		[ $i -lt 300 ] || { cat "$WORK/frecd.log" >&2; fail "frecd not ready after 30 s"; }
		sleep 0.1; i=$((i + 1))
	done
}

# stop_frecd: SIGTERM and wait; fails unless frecd exits 0.
stop_frecd() {
	kill -TERM "$FRECD_PID" || fail "frecd is not running"
	wait "$FRECD_PID"; rc=$?
	FRECD_PID=""
	[ $rc -eq 0 ] || { cat "$WORK/frecd.log" >&2; fail "frecd exited $rc on SIGTERM"; }
}

# snapshot DIR: send SIGUSR1 and print the path of the new snapshot file.
snapshot() {
	dir=$1
	before=$(ls "$dir"/*.frec 2>/dev/null | wc -l)
	kill -USR1 "$FRECD_PID" || fail "frecd is not running"
	i=0
	while [ "$(ls "$dir"/*.frec 2>/dev/null | wc -l)" -le "$before" ]; do
		[ $i -lt 200 ] || { cat "$WORK/frecd.log" >&2; fail "no snapshot after 20 s"; }
		sleep 0.1; i=$((i + 1))
	done
	ls "$dir"/*.frec | sort | tail -n 1
}
