#!/bin/sh
# The configuration file at start: its keys take effect, the command line
# wins over it, and every error is one line naming the file and the line,
# exit 2, before anything is loaded.
. "$FREC_TEST_LIB"

TARGET="$PROGS/probe_target"
[ -x "$TARGET" ] || fail "no $TARGET: run make progs"

# conf FILE LINES...: a configuration file only root may change
conf() {
	f=$1; shift
	printf '%s\n' "$@" > "$f"
	chmod 600 "$f"
}

# expect_usage FILE EXPECTED_LINE ARGS...: frecd --config FILE ARGS exits 2 with that line
expect_usage() {
	f=$1 want=$2; shift 2
	"$FRECD" --config "$f" "$@" > out 2> err
	rc=$?
	[ "$rc" -eq 2 ] || { cat err >&2; fail "frecd --config $f: exit $rc, expected 2"; }
	[ ! -s out ] || fail "frecd --config $f: printed on stdout: $(cat out)"
	assert_eq "frecd --config $f: the message" "$want" "$(cat err)"
}

# --- errors, with file and line -------------------------------------------------
mkdir -m 700 snaps
conf a.conf "# frecd" "window = 10" "" "windows = 10"
expect_usage a.conf "frecd: a.conf:4: unknown key 'windows'; the keys are frecd's long options without the dashes (see frecd --help)"
conf b.conf "max-size = 64M" "period = 5"
expect_usage b.conf "frecd: b.conf:2: period 5: out of range; use 10 to 600000 ms"
conf c.conf "output = $WORK/snaps" "dry-run = yes"
expect_usage c.conf "frecd: c.conf:2: 'dry-run' is a command-line option, not a configuration key; remove the line"
conf d.conf "window 10"
expect_usage d.conf "frecd: d.conf:1: expected 'key = value', got 'window 10'"
conf e.conf "output = $WORK/snaps" "# the probes" "probe = uprobe:$TARGET:frec_target_fp" "probe = uprobe:$TARGET:no_such_function"
expect_usage e.conf "frecd: e.conf:4: probe 'uprobe:$TARGET:no_such_function': no function 'no_such_function' in $TARGET (not stripped): check the name with nm (C++ names are mangled)"
nopid=$(cat /proc/sys/kernel/pid_max)
conf f.conf "pid = 1" "pid = $nopid"
expect_usage f.conf "frecd: f.conf:2: pid $nopid: no such process; check the pid with ps"
expect_usage "$WORK/none.conf" "frecd: --config $WORK/none.conf: No such file or directory; give a readable configuration file"
conf g.conf "window = 10"
chmod 620 g.conf
expect_usage g.conf "frecd: --config g.conf: others may change it (owner uid 0, mode 0620); make it root's and not writable by group or others: chown root g.conf; chmod go-w g.conf"
# the command line's own errors come first and read as ever
expect_usage a.conf "frecd: --window 'x': not a number of seconds; use e.g. --window 10 or --window 2.5" --window x
# --help and --version do not read the file
"$FRECD" --config a.conf --help > /dev/null || fail "--help read a broken configuration file"
"$FRECD" --config a.conf --version > /dev/null || fail "--version read a broken configuration file"

# --- the keys take effect; the command line wins -------------------------------
mkdir -m 700 fromfile
conf frecd.conf \
	"# every key frecd can take from a file" \
	"output = $WORK/fromfile" \
	"window = 2.5" \
	"max-size = 32M" \
	"period = 500" \
	"ring-size = 4M" \
	"probe = func:$TARGET:frec_target_fp" \
	"probe-args = 2" \
	"wakeup = yes" \
	"keep = 7" \
	"keep-size = 3G" \
	"verbose = no"
start_frecd --config "$WORK/frecd.conf" --keep 9
"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
assert_eq "window from the file" \
	"at least 2.5 s, at most 33554432 bytes)" "$(grep '^window' status.out | sed 's/.*(//')"
assert_eq "keep: the command line wins" "retention     keep 9 snapshots, 3221225472 bytes at most" "$(grep '^retention' status.out)"
assert_eq "output from the file" "directory     $WORK/fromfile" "$(grep '^directory' status.out)"
assert_eq "probes from the file" "probes        2" "$(grep '^probes' status.out)"
grep -q "ready: pid $FRECD_PID, [0-9]* programs ([a-z_]*), 2 probes, window 2.5 s / 32M, period 500 ms, ring 4M ([0-9]* x [0-9]*[KM]), all processes" \
	"$WORK/frecd.log" || { cat "$WORK/frecd.log" >&2; fail "the ready line does not show the file's settings"; }
# each attached probe is logged
assert_eq "attached probe lines" 2 "$(grep -c "frecd info: attached probe [12]: func:$TARGET:frec_target_fp -> " "$WORK/frecd.log")"
grep -q "frecd info: attached probe 1: func:$TARGET:frec_target_fp -> $TARGET:frec_target_fp+0 entry (2 args)" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "probe 1's line"; }
grep -q "frecd info: attached probe 2: func:$TARGET:frec_target_fp -> $TARGET:frec_target_fp return (return value)" "$WORK/frecd.log" ||
	{ cat "$WORK/frecd.log" >&2; fail "probe 2's line"; }
path=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "frec snapshot failed"
case $path in
"$WORK/fromfile/"*.frec) ;;
*) fail "the snapshot went to $path" ;;
esac
"$FREC" info "$path" > info.out || fail "frec info failed"
grep -q '^config: .*window 2.500000000 s, max-size 32 MiB, period 0.500000000 s, ring 4 MiB' info.out ||
	{ cat info.out >&2; fail "the snapshot's header does not show the file's settings"; }
stop_frecd
exit 0
