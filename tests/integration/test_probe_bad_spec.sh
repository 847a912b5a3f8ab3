#!/bin/sh
# Every bad --probe spec is a usage error: frecd exits 2 before loading
# anything, with one line on stderr naming the spec, the cause and the fix,
# even when a good spec comes first.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

STRIPPED="$PROGS/probe_target.stripped"
[ -r "$STRIPPED" ] || fail "no $STRIPPED: run make progs"
T=$(readlink -f "$TARGET")
S=$(readlink -f "$STRIPPED")
good="func:$TARGET:frec_target_fp"

# bad SPEC PATTERN: frecd --probe GOOD --probe SPEC exits 2 and prints
# exactly one line, "frecd: probe 'SPEC': " then PATTERN (a shell pattern).
bad() {
	"$FRECD" -o "$WORK/snaps" --probe "$good" --probe "$1" > out 2> err
	rc=$?
	[ "$rc" -eq 2 ] || { cat err >&2; fail "--probe '$1': exit $rc, expected 2"; }
	[ ! -s out ] || fail "--probe '$1': printed on stdout: $(cat out)"
	[ "$(wc -l < err)" -eq 1 ] || { cat err >&2; fail "--probe '$1': expected one line on stderr"; }
	# shellcheck disable=SC2254
	case $(cat err) in
	"frecd: probe '$1': "$2) ;;
	*) fail "--probe '$1': got '$(cat err)', expected \"frecd: probe '$1': $2\"" ;;
	esac
}

# syntax
bad "$TARGET:frec_target_fp" "unknown probe kind '*': use uprobe:, uretprobe:, func: or usdt:"
bad "kprobe:do_sys_open" "unknown probe kind 'kprobe': use uprobe:, uretprobe:, func: or usdt:"
bad "uprobe:$TARGET" "no function: write uprobe:PATH:FUNC"
bad "uprobe:$TARGET:frec_target_fp+x" "bad offset '+x': write +N or +0xN"
bad "uretprobe:$TARGET:frec_target_fp+4" "uretprobe attaches at the function's entry and return: drop +4 or use uprobe:"
bad "usdt:$TARGET:tick" "no PROVIDER: write usdt:PATH:PROVIDER:NAME"

# the file
bad "uprobe:$WORK/nonexistent:main" "$WORK/nonexistent does not exist: check the path (a file inside a container: give /proc/PID/root/PATH)"
# a file in a process's root (openat2 RESOLVE_IN_ROOT)
bad "uprobe:/proc/$$/root$WORK/nonexistent:main" "$WORK/nonexistent does not exist in pid $$'s root"
bad "uprobe:/proc/99999999/root/bin/sh:main" "no process 99999999 (or it exited while /proc/99999999/root/bin/sh was opened): check the pid"
bad "uprobe:libno_such_frec_lib:f" "no library 'libno_such_frec_lib' in LD_LIBRARY_PATH, /etc/ld.so.cache or the library directories: give its absolute path"
# a library name with -p is the library that process maps
"$FRECD" -o "$WORK/snaps" -p $$ --probe "uprobe:libno_such_frec_lib:f" > out 2> err
assert_eq "-p and a library it does not map: exit" 2 "$?"
assert_eq "-p and a library it does not map" \
	"frecd: probe 'uprobe:libno_such_frec_lib:f': pid $$ maps no library 'libno_such_frec_lib': -p takes the library the first -p process has loaded; give its path instead (/proc/$$/root/PATH inside a container)" \
	"$(cat err)"
echo "#!/bin/sh" > script.sh
bad "uprobe:$WORK/script.sh:main" "$WORK/script.sh is not an ELF file: give the executable or shared library itself*"

# the symbol
bad "uprobe:$TARGET:no_such_function" "no function 'no_such_function' in $T (not stripped): check the name with nm*"
bad "func:$STRIPPED:frec_target_fp" "no symbol 'frec_target_fp' in $S, which is stripped (dynamic symbols only): use +OFFSET or a build with symbols (+OFFSET: *)"
bad "uprobe:$TARGET:frec_target_fp+4096" "+4096 is beyond the end of 'frec_target_fp' (* bytes): use an offset below *"
bad "uprobe:$TARGET:frec_lib_mul" "'frec_lib_mul' is only imported by $T, not defined there: probe the library that defines it*"
bad "uprobe:$TARGET:n_calls" "'n_calls' in $T is data, not a function: probe a function"

# the USDT note
bad "usdt:$TARGET:frec_target:nosuch" "no USDT probe frec_target:nosuch in $T, which has frec_target:tick, frec_target:global: use one of those"
bad "usdt:$TARGET_LIB:frec:none" "$(readlink -f "$TARGET_LIB") has no USDT probes (no .note.stapsdt): add one with DTRACE_PROBE from <sys/sdt.h>, or probe a function"
bad "usdt:$TARGET:frec_target:global" "argument 1 of USDT probe frec_target:global is '-8@n_calls(%rip)', a form libbpf cannot read*: pass the probe a local copy of the value"


# Without BPF cookies (before 5.15) a USDT probe in a PIE for every process
# cannot be attached (libbpf finds its spec by address): frecd stops at start
# with one line that names the kernel feature and the fix, -p PID.
if no_bpf_cookies; then
	pie="usdt:$TARGET_PIE:frec_target:tick"
	"$FRECD" -o "$WORK/snaps" --probe "$pie" > out 2> err
	rc=$?
	[ "$rc" -ne 0 ] || fail "--probe '$pie' for every process without BPF cookies: exit 0"
	want="probe '$pie': $TARGET_PIE: a USDT probe in a shared object (a library or a PIE executable) for every process needs BPF cookies (Linux 5.15): name the process with -p PID"
	assert_eq "lines naming the PIE refusal" 1 "$(grep -cF "$want" err)"
	note "PIE USDT without cookies: exit $rc: $(grep -F "$want" err)"
fi

# A runtime failure, not a usage error: without CAP_SYS_ADMIN the kernel
# refuses uprobes (the scheduler programs still load with CAP_BPF and
# CAP_PERFMON), and frecd exits 1 saying which capability is missing. Needs a
# setpriv that can drop a capability from the bounding set (util-linux's).
if setpriv --help 2>&1 | grep -q -- --bounding-set; then
	setpriv --bounding-set=-sys_admin -- "$FRECD" -o "$WORK/snaps" --dry-run --probe "$good" > out 2> err
	rc=$?
	assert_eq "exit without CAP_SYS_ADMIN" 1 "$rc"
	grep -q "frecd error: probe '$good': attaching to $T:frec_target_fp: .*: recent kernels require CAP_SYS_ADMIN for uprobes: run frecd as root or give it CAP_SYS_ADMIN" err ||
		{ cat err >&2; fail "no CAP_SYS_ADMIN message"; }
else
	note "no setpriv --bounding-set here: the CAP_SYS_ADMIN message is not checked"
fi
