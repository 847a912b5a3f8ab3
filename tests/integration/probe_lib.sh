# Helpers for the user probe tests (test_probe_*.sh); sourced after
# "$FREC_TEST_LIB". POSIX sh and busybox tools only.

TARGET="$PROGS/probe_target"
TARGET_LIB="$PROGS/libfrectarget.so"
[ -x "$TARGET" ] && [ -r "$TARGET_LIB" ] || fail "no $TARGET or $TARGET_LIB: run make progs"
# Without BPF cookies (no_bpf_cookies) the tests probe nopie/probe_target,
# the same program linked -no-pie; TARGET_PIE stays the PIE one, for the
# refusal test_probe_bad_spec checks.
TARGET_PIE=$TARGET
if no_bpf_cookies; then
	TARGET="$PROGS/nopie/probe_target"
	[ -x "$TARGET" ] || fail "no $TARGET: run make progs"
fi

# start_target NAME ARGS...: run probe_target ARGS in the background with its
# output in NAME.out, wait until it is ready (it then waits for SIGUSR1) and
# set NAME_pid to its pid.
start_target() {
	name=$1; shift
	"$TARGET" "$@" > "$name.out" 2>&1 &
	eval "${name}_pid=$!"
	wait_for "$name.out" '^ready ' "$name ready"
}

# run_target NAME: let it make its calls (SIGUSR1) and wait until it is done.
run_target() {
	eval "pid=\$${1}_pid"
	kill -USR1 "$pid" || fail "$1 ($pid) is not running"
	wait "$pid" || { cat "$1.out" >&2; fail "$1 ($pid) failed"; }
	grep -q '^done$' "$1.out" || fail "$1 did not finish its calls"
}

# jargs FILE KEY=VALUE...: the "args" array of every matching line, as a,b,c.
jargs() {
	f=$1; shift
	awk -v conds="$(jconds "$@")" "$jq_awk"'
		jmatch($0, conds) {
			if (!match($0, /"args":[ ]*\[[^]]*\]/)) { print "no-args"; next }
			s = substr($0, RSTART, RLENGTH)
			sub(/^"args":[ ]*\[/, "", s); sub(/\]$/, "", s); gsub(/ /, "", s)
			print s
		}' "$f"
}

# assert_same WHAT EXPECTED_FILE ACTUAL_FILE: the same lines, in any order.
assert_same() {
	sort "$2" > "$2.sorted"
	sort "$3" > "$3.sorted"
	if ! cmp -s "$2.sorted" "$3.sorted"; then
		echo "expected ($2) vs actual ($3), first differences:" >&2
		diff "$2.sorted" "$3.sorted" | head -n 20 >&2
		fail "$1: $(wc -l < "$2") expected lines, $(wc -l < "$3") actual, not the same"
	fi
}

# expect N COPIES AWK_EXPR: the value of AWK_EXPR for i in 1..N, each
# COPIES times, one a line; e.g. expect 3 1 '7 "," i' prints 7,1 7,2 7,3.
expect() {
	awk -v n="$1" -v c="$2" "BEGIN { for (i = 1; i <= n; i++) for (j = 0; j < c; j++) print $3 }"
}
