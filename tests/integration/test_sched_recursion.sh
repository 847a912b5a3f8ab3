#!/bin/sh
# The runs the kernel skips because a program fired while it was already
# running on that CPU (raw_tp and tp_btf, Linux 6.1): made to happen
# (tests/progs/recursion_miss.c: a program on bpf_trace_printk that calls
# bpf_trace_printk, one skip per test run) and counted as frecd counts them,
# exactly, through a swap of programs as a reload makes.
. "$FREC_TEST_LIB"

prog="$PROGS/recursion_miss"
[ -x "$prog" ] || fail "no $prog: run make progs"
# Before the guard (6.1) the same program recurses without bound: not run.
case $(uname -r) in
[0-5].*|6.0.*) note "Linux $(uname -r) does not guard raw_tp programs against re-entry"; exit 0 ;;
esac

"$prog" 5 3 2 > out 2> err || { cat err >&2; fail "recursion_miss failed"; }
assert_eq "recursion_miss" "track a: 0
a: poll 5, lost 5, total 5
track b: 0
swap: poll 5, lost 10, total 10
again: poll 0, lost 10, total 10
tracked: 0" "$(cat out)"

# frec status says the kernel counts them; frecd's own programs do not recurse
start_frecd -o "$WORK"
assert_eq "status --json recursion_misses" 0 "$(status_field recursion_misses)"
stop_frecd
exit 0
