#!/bin/sh
# A function in a shared library, probed by library name (resolved through
# LD_LIBRARY_PATH, as the dynamic linker and libbpf do) and by path: both
# resolve to the library's file, and the snapshot holds exactly N entries
# with (A, i) under the first spec and N returns with A*i (negative: a
# signed return value) under the second.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 500)
a=-3
by_name="uprobe:libfrectarget:frec_lib_mul"
by_path="uretprobe:$TARGET_LIB:frec_lib_mul"
real=$(readlink -f "$TARGET_LIB")
export LD_LIBRARY_PATH="$PROGS"

# --dry-run lists the probes with the files they resolved to.
"$FRECD" --dry-run --probe "$by_name" --probe "$by_path" > dry.out 2>&1 ||
	{ cat dry.out >&2; fail "frecd --dry-run failed"; }
grep -q "^probe 1: $by_name -> $real:frec_lib_mul+0 entry" dry.out ||
	{ cat dry.out >&2; fail "library name not resolved to $real"; }
grep -q "^probe 2: $by_path -> $real:frec_lib_mul return" dry.out ||
	{ cat dry.out >&2; fail "library path not resolved to $real"; }

start_target tgt -- "$n" 0 "$a" 1
mkdir snaps
start_frecd -o "$WORK/snaps" --probe "$by_name" --probe "$by_path" --probe-args 2
run_target tgt
snap=$(snapshot "$WORK/snaps")
stop_frecd
dump_json "$snap" dump.json

assert_eq "lost events" 0 "$(jcount dump.json type=lost)"
assert_eq "entries by library name" "$n" "$(jcount dump.json type=uprobe probe="$by_name" pid="$tgt_pid")"
assert_eq "returns by path" "$n" "$(jcount dump.json type=uretprobe probe="$by_path" pid="$tgt_pid")"
# --probe-args 2: two arguments, the second is i (the first, -3, is printed
# as the raw 64-bit register).
jargs dump.json type=uprobe probe="$by_name" | awk -F, '{ print NF " " $2 }' > got.args
expect "$n" 1 '"2 " i' > want.args
assert_same "entry arguments" want.args got.args
expect "$n" 1 "$a * i" > want.ret
jvals dump.json ret type=uretprobe probe="$by_path" > got.ret
assert_same "return values" want.ret got.ret
