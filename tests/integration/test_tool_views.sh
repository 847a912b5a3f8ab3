#!/bin/sh
# The views of one real snapshot agree with each other and with what ran:
# frec info, frec dump (text and JSON), frec report and both exports count
# the same events; report pairs every probed call with its return; and bad
# input to frec gets one line and its exit status.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

n=$(scaled 300)
rounds=$(scaled 500)
t=2
fp="func:$TARGET:frec_target_fp"
usdt="usdt:$TARGET:frec_target:tick"

start_target tgt -t "$t" "$n" "$n" 5 6
mkdir snaps
start_frecd -o "$WORK/snaps" --probe "$fp" --probe "$usdt" --probe-args 3
run_target tgt
mkfifo in
"$PROGS/pingpong" "$rounds" < in > pp.out &
pp=$!
exec 3> in
wait_for pp.out '^done ' "pingpong done"
pp_pid=$(field pp.out pid)
ping=$(field pp.out ping)
snap=$(snapshot "$WORK/snaps")
exec 3>&-
wait "$pp" || fail "pingpong failed"
stop_frecd

"$FREC" info --json "$snap" > info.json 2> info.err || { cat info.err >&2; fail "frec info failed"; }
dump_json "$snap" dump.json
"$FREC" dump "$snap" > dump.txt 2> dump.err || { cat dump.err >&2; fail "frec dump failed"; }
assert_eq "info: one JSON line" 1 "$(wc -l < info.json)"
events=$(jvals info.json events)
assert_eq "dump --json lines = info events" "$events" "$(wc -l < dump.json)"
assert_eq "dump lines = info events" "$events" "$(wc -l < dump.txt)"
for ty in sched_switch sched_waking sched_wakeup_new sched_process_fork sched_process_exec \
	sched_process_exit task_rename uprobe uretprobe usdt lost; do
	want=$(jvals info.json "$ty")
	assert_eq "$ty: dump --json vs info" "$want" "$(jcount dump.json type="$ty")"
	assert_eq "$ty: dump vs info" "$want" "$(awk -v t="$ty" '$3 == t' dump.txt | wc -l)"
done
note "$events events, $(jvals info.json sched_switch) switches"

# Time order, and the text dump's fields stay in their columns.
awk '{ if (NR > 1 && $1 < prev) { print "line " NR ": " $1 " < " prev; exit 1 } prev = $1 }' \
	dump.txt || fail "dump is not in time order"
# With cgroups recorded (frecd's default where cgroups exist) each switch
# also names prev's and next's cgroup and id; no test process is in a
# container, so no container keys follow.
nf=10
"$FREC" info "$snap" | grep -q '^cgroups: ' && nf=14
bad=$(awk -v nf=$nf '$3 == "sched_switch" && NF != nf' dump.txt | head -n 1)
assert_eq "sched_switch lines with $nf fields" "" "$bad"

# report: every call of the probe target paired with its return.
"$FREC" report --json --pid "$tgt_pid" "$snap" > report.json 2> report.err ||
	{ cat report.err >&2; fail "frec report failed"; }
calls=$(sed -n 's/.*{"func":"[^"]*:frec_target_fp","usdt":false,"calls":\([0-9]*\),"returns":\([0-9]*\),"unfinished":\([0-9]*\),.*/\1 \2 \3/p' report.json)
assert_eq "report: calls, returns, unfinished of frec_target_fp" "$((t * n)) $((t * n)) 0" "$calls"
lat=$(sed -n 's/.*"func":"[^"]*:frec_target_fp"[^{]*"latency":{"count":\([0-9]*\),.*/\1/p' report.json)
assert_eq "report: latency samples" "$((t * n))" "$lat"
usdt_hits=$(sed -n 's/.*"func":"[^"]*:frec_target:tick","usdt":true,[^}]*"hits":\([0-9]*\).*/\1/p' report.json)
assert_eq "report: usdt hits" "$((t * n))" "$usdt_hits"

# report: ping's switches are the switches out of it that dump shows.
"$FREC" report --json --tid "$ping" "$snap" > ping.json || fail "frec report --tid failed"
sw=$(sed -n 's/.*"threads":\[{"tid":'"$ping"',"pid":'"$pp_pid"',"comm":"[^"]*","oncpu_ns":[0-9]*,"switches":\([0-9]*\),.*/\1/p' ping.json)
assert_eq "report vs dump: switches out of ping" "$(jcount dump.json type=sched_switch prev_pid="$ping")" "$sw"
# Each switch of ping into a CPU after its first wakeup ends a run-queue wait.
rq=$(sed -n 's/.*"runqlat":{"count":\([0-9]*\),.*/\1/p' ping.json)
assert_range "report: ping's run-queue waits" 1 "$(jcount dump.json type=sched_switch next_pid="$ping")" "$rq"
"$FREC" report "$snap" > report.txt || fail "frec report (text) failed"
grep -q '^Run-queue latency (waking -> on CPU): ' report.txt || fail "report text has no run-queue latency"

# Perfetto: a trace protoc can read, with every call and every fork.
"$FREC" export --format perfetto -o trace.pftrace "$snap" || fail "export perfetto failed"
[ -s trace.pftrace ] || fail "empty perfetto trace"
if command -v protoc > /dev/null 2>&1; then
	protoc --decode_raw < trace.pftrace > trace.txt || fail "protoc cannot decode the trace"
	# The slice name is written once per call, on its SLICE_BEGIN.
	assert_eq "perfetto: calls of frec_target_fp" "$((t * n))" \
		"$(grep -c '^ *23: "frec_target_fp"$' trace.txt)"
	assert_eq "perfetto: forks" "$(jvals info.json sched_process_fork)" "$(grep -c '^ *239 {$' trace.txt)"
else
	note "no protoc: perfetto decode check skipped"
fi
"$FREC" export --format perfetto --gzip -o trace.pftrace.gz "$snap" || fail "export --gzip failed"
assert_eq "gzip magic" "1f8b" "$(od -An -tx1 -N2 trace.pftrace.gz | tr -d ' \n')"

# Chrome JSON: valid, with every call.
"$FREC" export --format chrome -o trace.json "$snap" || fail "export chrome failed"
if command -v python3 > /dev/null 2>&1; then
	x=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for e in d["traceEvents"] if e["ph"] == "X" and e["name"] == "frec_target_fp"))' trace.json) ||
		fail "chrome export is not valid JSON"
	assert_eq "chrome: calls of frec_target_fp" "$((t * n))" "$x"
else
	note "no python3: chrome JSON check skipped"
fi

# Bad input: one line on stderr, and the documented status.
# expect_rc CODE ARGS...: frec ARGS exits CODE with exactly one line on stderr.
expect_rc() {
	code=$1; shift
	"$FREC" "$@" > bad.out 2> bad.err
	rc=$?
	[ "$rc" -eq "$code" ] || { cat bad.err >&2; fail "frec $*: exit $rc, expected $code"; }
	[ "$(wc -l < bad.err)" -ge 1 ] || fail "frec $*: no message"
}
expect_rc 1 info "$WORK/missing.frec"
assert_eq "missing file message" "frec: $WORK/missing.frec: No such file or directory" "$(cat bad.err)"
printf 'not a snapshot\n' > junk.frec
expect_rc 1 dump junk.frec
assert_eq "junk: one line" 1 "$(wc -l < bad.err)"
size=$(wc -c < "$snap")
head -c $((size / 2)) "$snap" > half.frec
expect_rc 3 dump --json half.frec
assert_eq "cut file: one line" 1 "$(wc -l < bad.err)"
grep -q 'is cut short' bad.err || fail "cut file: $(cat bad.err)"
expect_rc 2 frobnicate "$snap"
expect_rc 2 report --top many "$snap"
expect_rc 2 export "$snap"
expect_rc 2 dump
"$FREC" --help > help.out || fail "frec --help failed"
grep -q '^EXIT STATUS' help.out || fail "frec --help documents no exit status"
exit 0
