#!/bin/sh
# Every bad input gets one line naming the cause and the fix, and its exit
# code: 2 for usage errors, 1 for runtime failures (privileges, BTF).
. "$FREC_TEST_LIB"

# expect CODE LINE ARGS...: frecd ARGS exits CODE and prints exactly LINE
# (one line; a "*" in LINE matches anything, as in a shell pattern).
expect() {
	code=$1 line=$2; shift 2
	"$FRECD" "$@" > out 2> err
	rc=$?
	[ "$rc" -eq "$code" ] || { cat err >&2; fail "frecd $*: exit $rc, expected $code"; }
	[ ! -s out ] || fail "frecd $*: printed on stdout: $(cat out)"
	[ "$(wc -l < err)" -eq 1 ] || { cat err >&2; fail "frecd $*: expected one line on stderr"; }
	# shellcheck disable=SC2254
	case $(cat err) in
	$line) ;;
	*) fail "frecd $*: got '$(cat err)', expected '$line'" ;;
	esac
}

# --- usage errors: exit 2 ------------------------------------------------------
expect 2 "frecd: unknown option '--bogus'; see frecd --help" --bogus
expect 2 "frecd: unknown option '-x'; see frecd --help" -x
expect 2 "frecd: option '--window' needs a value; see frecd --help" --window
expect 2 "frecd: unexpected argument 'now'; frecd takes options only, see frecd --help" now
expect 2 "frecd: --window 'abc': not a number of seconds; use e.g. --window 10 or --window 2.5" --window abc
expect 2 "frecd: --window 0: out of range; use more than 0 and at most 86400 seconds" --window 0
expect 2 "frecd: --max-size '12X': not a size; use a number of bytes with an optional K, M or G suffix, e.g. --max-size 64M" --max-size 12X
expect 2 "frecd: --max-size 1K: out of range; use 64K to 64G" --max-size 1K
expect 2 "frecd: --ring-size 3M: not a power of two (a kernel rule); use e.g. 4M, 16M or 64M" --ring-size 3M
expect 2 "frecd: --ring-size 2G: out of range; use 64K to 1G" --ring-size 2G
expect 2 "frecd: --ring-min 3K: out of range; use 4K to 256M" --ring-min 3K
expect 2 "frecd: --ring-min 48K: not a power of two (a kernel rule); use e.g. 64K, 256K or 1M" --ring-min 48K
expect 2 "frecd: --ring-min 512M: out of range; use 4K to 256M" --ring-min 512M
expect 2 "frecd: --max-threads '10': use a number from 64 to 4194304, e.g. --max-threads 200000" --max-threads 10
expect 2 "frecd: --max-processes '9999999': use a number from 64 to 4194304, e.g. --max-processes 200000" --max-processes 9999999
expect 2 "frecd: --period 5: out of range; use 10 to 600000 ms" --period 5
expect 2 "frecd: --compress 'lz4': not a method; use --compress zstd or --compress none" --compress lz4
expect 2 "frecd: --period 'soon': not a number of milliseconds; use e.g. --period 1000" --period soon
expect 2 "frecd: -p 'abc': not a process id; use a number from 1 to 4194304, e.g. -p \$(pidof myapp)" -p abc
# a pid that is free: past the kernel's pid_max
nopid=$(cat /proc/sys/kernel/pid_max)
expect 2 "frecd: -p $nopid: no such process; check the pid with ps" -p "$nopid"
expect 2 "frecd: --attach 'kprobe': unknown; use auto, tp_btf or raw_tp" --attach kprobe
expect 2 "frecd: --probe-args '9': use a number from 0 to 6" --probe-args 9

# the snapshot directory
expect 2 "frecd: -o $WORK/no/such: cannot create it, its parent directory does not exist; create the parent or choose another -o" -o "$WORK/no/such"
: > afile
expect 2 "frecd: -o $WORK/afile: not a directory; choose a directory for the snapshots" -o "$WORK/afile"
mkdir ro
mount -t tmpfs -o ro,size=64k,mode=0755 frec-test "$WORK/ro" || fail "cannot mount a read-only tmpfs"
expect 2 "frecd: -o $WORK/ro: not writable (Read-only file system); choose a writable directory" -o "$WORK/ro"
umount "$WORK/ro"
# created 0700 when missing
"$FRECD" -o "$WORK/new" --dry-run > /dev/null 2>&1 || fail "frecd --dry-run failed"
[ ! -e "$WORK/new" ] || fail "--dry-run created the snapshot directory"

# --- runtime failures: exit 1 --------------------------------------------------
# Not root. The binary is copied where the unprivileged user can run it.
pub=$(mktemp -d /tmp/frec-pub.XXXXXX)
chmod 755 "$pub"
cp "$FRECD" "$pub/frecd"
as_nobody "$pub/frecd" -o "$pub/snaps" > out 2> err
rc=$?
assert_eq "exit code as nobody" 1 "$rc"
assert_eq "message as nobody" \
	"frecd: must run as root (or with CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN) to load its BPF programs: try sudo frecd" \
	"$(cat err)"
[ ! -e "$pub/snaps" ] || fail "frecd created -o before checking its privileges"

# Root without capabilities (when setpriv can drop them).
if setpriv --bounding-set=-all true 2> /dev/null; then
	setpriv --bounding-set=-all --inh-caps=-all "$FRECD" -o "$WORK/snaps" > out 2> err
	rc=$?
	assert_eq "exit code without capabilities" 1 "$rc"
	case $(cat err) in
	"frecd: running as root but without CAP_BPF CAP_PERFMON CAP_SYS_ADMIN, so the kernel refuses BPF programs: "*) ;;
	*) fail "without capabilities: got '$(cat err)'" ;;
	esac
else
	note "setpriv cannot drop the bounding set here: root-without-capabilities case left out"
fi
rm -rf "$pub"

# No kernel BTF: hide /sys/kernel/btf in a mount namespace of our own.
cp /sys/kernel/btf/vmlinux "$WORK/vmlinux.btf" || fail "cannot copy the kernel's BTF"
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$FRECD' -o '$WORK/snaps'" > out 2> err
rc=$?
assert_eq "exit code without BTF" 1 "$rc"
assert_eq "message without BTF" \
	"frecd: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): run a kernel built with CONFIG_DEBUG_INFO_BTF=y, or pass --btf FILE with its BTF" \
	"$(cat err)"
# ... and with --btf, raw_tp works without the kernel's BTF.
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$FRECD' --dry-run --btf '$WORK/vmlinux.btf'" > out 2> err ||
	{ cat err >&2; fail "frecd --btf FILE --dry-run failed without kernel BTF"; }
grep -q "raw_tp/sched_switch" out || { cat out >&2; fail "--btf did not attach raw_tp programs"; }
# tp_btf was tried first and could not load: the run-time fallback at work
grep -q "tp_btf programs did not load.*falling back to raw_tp" err || { cat err >&2; fail "no fallback message"; }
! grep -q "tp_btf/" out || fail "tp_btf programs attached without kernel BTF"
expect 2 "frecd: --btf $WORK/none: No such file or directory; give the BTF of the running kernel (e.g. from btfhub)" --btf "$WORK/none"

# --- help and version ----------------------------------------------------------
"$FRECD" --help > out 2> err || fail "--help failed"
[ ! -s err ] || fail "--help wrote to stderr"
for s in OPTIONS SIGNALS "EXIT STATUS" EXAMPLES "--window SECONDS" "--max-size SIZE" "kill -USR1"; do
	grep -q -- "$s" out || fail "--help has no '$s'"
done
"$FRECD" --version > out || fail "--version failed"
grep -Eq '^frecd [0-9]+\.[0-9]+\.[0-9]+' out || fail "--version printed '$(cat out)'"
exit 0
