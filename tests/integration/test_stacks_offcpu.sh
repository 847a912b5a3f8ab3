#!/bin/sh
# --stacks offcpu: offcpu_stack's worker (built with a frame pointer) blocks
# 10 times in stk_outer -> stk_middle -> stk_inner -> nanosleep(20 ms) and the
# process exits before the snapshot is taken. In the snapshot: the worker's
# blocking switches, as many as the kernel counted voluntary switches for it,
# each carry a stack whose user frames are stk_inner, stk_middle, stk_outer in
# that order and whose kernel frames are named, on the nanosleep path, with
# no kernel address; `frec report --offcpu` has that stack 10 times for at
# least 200 ms (each block the events show whole: 6.18 sometimes reports no
# switch for an idle CPU's switch-in, and the report guesses no end); --folded prints it outer to inner; `go tool pprof -top` on the
# pprof export lists stk_inner; the Perfetto export carries the frames. A
# stripped copy, run in the same recording, gives module+0x frames with the
# binary's build-id, and --debug-dir with its debug file names them again.
# frec status counts no program that the stacks alone announced.
. "$FREC_TEST_LIB"

STK="$PROGS/offcpu_stack"
[ -x "$STK.stripped" ] && [ -f "$STK.debug" ] || fail "$STK.stripped or .debug missing: make progs"

mkdir snaps
start_frecd -o "$WORK/snaps" --stacks offcpu
"$STK" > stk.out 2>&1 || { cat stk.out >&2; fail "offcpu_stack failed"; }
"$STK.stripped" -n 3 > stripped.out 2>&1 || { cat stripped.out >&2; fail "offcpu_stack.stripped failed"; }
grep -q '^done$' stk.out && grep -q '^done$' stripped.out || fail "offcpu_stack did not finish"
tid=$(field stk.out tid)
pid=$(field stk.out pid)
stid=$(field stripped.out tid)
# the workload as the kernel saw it: 10 blocks, nothing else
assert_eq "the worker's voluntary switches (kernel)" 10 "$(field stk.out voluntary)"
snap=$(snapshot "$WORK/snaps")
unannounced=$(status_field programs_unannounced)
stop_frecd
dump_json "$snap" dump.json
# Every stack of a process says the same program (its threads' too): none
# was taken for a new program that no exec or fork record announced,
# unless records were lost (anywhere: frecd records every process here).
if [ "$(jcount dump.json type=lost)" -eq 0 ]; then
	assert_eq "stacks.programs_unannounced" 0 "$unannounced"
else
	note "records lost: $unannounced unannounced programs not checked"
fi
"$FREC" info --json "$snap" > info.json || fail "frec info --json failed"
grep -q '"stacks":"offcpu"' info.json || fail "frec info does not say stacks: offcpu: $(cat info.json)"

# syms LINE: the frames' names in order, joined by ';' (kernel first, then user)
syms() { printf '%s\n' "$1" | grep -o '"sym":"[^"]*"' | cut -d'"' -f4 | paste -sd';' -; }

blocks=$(grep '"type":"sched_switch"' dump.json | grep "\"prev_pid\":$tid," | grep -E '"prev_state":(1|2),')
nblocks=$(printf '%s\n' "$blocks" | grep -c '"stack":\[')
assert_eq "blocking switches of the worker with a stack (= the kernel's count)" 10 "$nblocks"
assert_eq "blocking switches of the worker without one" 0 "$(printf '%s\n' "$blocks" | grep -vc '"stack":\[')"
assert_eq "stack events printed on their own" 0 "$(jcount dump.json type=stack)"
printf '%s\n' "$blocks" | while IFS= read -r line; do
	s=$(syms "$line")
	case ";$s;" in
	*";stk_inner;stk_middle;stk_outer;"*) ;;
	*) fail "user frames are not stk_inner, stk_middle, stk_outer: $s" ;;
	esac
	case ";$s;" in
	*";do_nanosleep;"*|*";hrtimer_nanosleep;"*) ;;
	*) fail "kernel frames are not on the nanosleep path: $s" ;;
	esac
	# a kernel frame names no file and no address
	k=$(printf '%s\n' "$line" | grep -o '{[^{}]*"module":"\[kernel\]"[^{}]*}')
	[ -n "$k" ] || fail "no kernel frame: $line"
	printf '%s\n' "$k" | grep -q 'file_offset\|build_id' && fail "a kernel frame has a file offset or build-id: $k"
	u=$(printf '%s\n' "$line" | grep -o '{[^{}]*"sym":"stk_inner"[^{}]*}')
	printf '%s\n' "$u" | grep -q "\"module\":\"[^\"]*/offcpu_stack\"" || fail "stk_inner's module: $u"
	printf '%s\n' "$u" | grep -Eq '"build_id":"[0-9a-f]{40}"' || fail "stk_inner's build-id: $u"
done || exit 1
bid=$(printf '%s\n' "$blocks" | head -n 1 | grep -o '"sym":"stk_inner"[^}]*' | grep -o '"build_id":"[0-9a-f]*"' | cut -d'"' -f4)

# frec report --offcpu: the worker's one stack, 10 blocks, >= 200 ms
"$FREC" report --offcpu --tid "$tid" --json "$snap" > report.json || fail "frec report --offcpu --json failed"
# the report's "offcpu" list, the last of its sections
sed -n 's/.*"offcpu":\[//p' report.json > offcpu.json
[ -s offcpu.json ] || fail "frec report --offcpu --json has no \"offcpu\": $(cat report.json)"
# The blocks the events show whole: a blocking switch-out of the worker,
# then its switch-in. 10, unless the kernel reported no switch for one of
# its switch-ins (an idle CPU's switch that 6.18 sometimes does not
# report): the report then has a chain break and counts that block for no
# one, rather than guess its end.
awk -v tid="$tid" "$jq_awk"'
	jget($0, "type") != "sched_switch" { next }
	jget($0, "next_pid") == tid && out { n++; ns += jget($0, "ts") - out; out = 0 }
	jget($0, "prev_pid") == tid { st = jget($0, "prev_state") + 0; out = (st == 1 || st == 2) ? jget($0, "ts") + 0 : 0 }
	END { printf "%d %.0f\n", n, ns }' dump.json > whole
read -r nwhole whole_ns < whole
if [ "$nwhole" -ne 10 ]; then
	note "the kernel reported $((10 - nwhole)) of the worker's switch-ins not at all: $nwhole whole blocks"
	[ "$(jvals report.json chain_breaks)" -ge 1 ] || fail "a switch-in is missing, and the report has no chain break"
fi
assert_range "whole blocks in the events" 8 10 "$nwhole"
assert_eq "the worker's blocks" "$nwhole" "$(jvals report.json offcpu_blocks)"
assert_eq "the worker's blocks with a stack" "$nwhole" "$(jvals report.json offcpu_blocks_with_stack)"
assert_eq "the worker's off-CPU time: the events' blocks" "$whole_ns" "$(jvals report.json offcpu_total_ns)"
assert_eq "the worker's off-CPU time with a stack: all of it" "$(jvals report.json offcpu_total_ns)" \
	"$(jvals report.json offcpu_with_stack_ns)"
assert_eq "off-CPU stacks of the worker" 1 "$(grep -o '"count":' offcpu.json | wc -l)"
assert_eq "its blocks" "$nwhole" "$(jvals offcpu.json count)"
assert_eq "its tid" "$tid" "$(jvals offcpu.json tid)"
assert_eq "its pid" "$pid" "$(jvals offcpu.json pid)"
assert_eq "its comm" stk_worker "$(jvals offcpu.json comm)"
total=$(jvals offcpu.json total_ns)
max=$(jvals offcpu.json max_ns)
note "worker: $nwhole blocks, $((total / 1000)) us off-CPU, longest $((max / 1000)) us"
# A block runs from the switch-out to the switch-in; the 20 ms timer was
# armed a little before the switch-out (tens of us in an emulated VM), so
# a block may be that much shorter than 20 ms: 1 ms is allowed for it.
assert_range "its off-CPU time (ns)" $((nwhole * 19000000)) 2000000000 "$total"
assert_range "its longest block (ns)" 19000000 "$total" "$max"
case ";$(syms "$(cat offcpu.json)");" in
*";stk_inner;stk_middle;stk_outer;"*) ;;
*) fail "report --offcpu stack: $(cat offcpu.json)" ;;
esac
"$FREC" report --offcpu --tid "$tid" "$snap" > offcpu.txt || fail "frec report --offcpu failed"
grep -q stk_middle offcpu.txt || fail "report --offcpu (text) has no stk_middle: $(cat offcpu.txt)"
"$FREC" report --offcpu --folded --tid "$tid" "$snap" > folded.txt || fail "frec report --offcpu --folded failed"
assert_eq "folded lines" 1 "$(wc -l < folded.txt)"
grep -Eq '^stk_worker;(.*;)?stk_outer;stk_middle;stk_inner;(.*;)?(do_nanosleep|hrtimer_nanosleep);.* [0-9]+$' folded.txt ||
	fail "folded: $(cat folded.txt)"
assert_eq "folded total (us)" $((total / 1000)) "$(awk '{ print $NF }' folded.txt)"

# pprof: go tool pprof reads it and finds stk_inner
"$FREC" export --format pprof -o prof.pb.gz "$snap" || fail "frec export --format pprof failed"
if command -v go > /dev/null 2>&1; then
	HOME=${HOME:-$WORK} go tool pprof -symbolize=none -top prof.pb.gz > pprof.txt 2>&1 ||
		{ cat pprof.txt >&2; fail "go tool pprof cannot read the export"; }
	grep -q stk_inner pprof.txt || fail "go tool pprof -top does not list stk_inner: $(cat pprof.txt)"
elif [ -n "${FREC_VM:-}" ]; then
	note "no go in the kernel VM: pprof check done on the host"
else
	fail "go not found: run scripts/deps.sh (golang-go)"
fi

# Perfetto: the export carries the frames and the blocked reason's function
"$FREC" export --format perfetto -o trace.pftrace "$snap" || fail "frec export --format perfetto failed"
if command -v protoc > /dev/null 2>&1; then
	protoc --decode_raw < trace.pftrace > trace.txt || fail "protoc cannot decode the trace"
	grep -q '"stk_inner"' trace.txt || fail "no stk_inner in the Perfetto trace"
	grep -q '"do_nanosleep"\|"hrtimer_nanosleep"' trace.txt || fail "no kernel frame in the Perfetto trace"
elif [ -z "${FREC_VM:-}" ]; then
	fail "protoc not found: run scripts/deps.sh"
fi

# The stripped copy: frames by module and offset, with the build-id, never a
# wrong name; its debug file names them again.
sblocks=$(grep '"type":"sched_switch"' dump.json | grep "\"prev_pid\":$stid," | grep '"stack":\[')
assert_eq "blocking switches of the stripped worker with a stack" 3 "$(printf '%s\n' "$sblocks" | grep -c .)"
printf '%s\n' "$sblocks" | grep -q '"sym":"stk_' && fail "the stripped copy's frames are named"
printf '%s\n' "$sblocks" | grep -q "\"module\":\"[^\"]*/offcpu_stack.stripped\",\"file_offset\":[0-9]*,\"build_id\":\"$bid\"" ||
	fail "no frame of offcpu_stack.stripped with build-id $bid: $(printf '%s\n' "$sblocks" | head -n 1)"
"$FREC" report --offcpu --folded --tid "$stid" "$snap" > sfolded.txt || fail "report --folded (stripped) failed"
grep -q ';offcpu_stack.stripped+0x[0-9a-f]*;offcpu_stack.stripped+0x[0-9a-f]*;offcpu_stack.stripped+0x' sfolded.txt ||
	fail "stripped frames are not module+0xOFFSET: $(cat sfolded.txt)"
grep -q ";stk_" sfolded.txt && fail "stripped frames named without their debug file: $(cat sfolded.txt)"
dbg="$WORK/debug/.build-id/$(printf %.2s "$bid")"
mkdir -p "$dbg" && cp "$STK.debug" "$dbg/${bid#??}.debug" || fail "cannot make the debug directory"
"$FREC" report --offcpu --folded --tid "$stid" --debug-dir "$WORK/debug" "$snap" > dfolded.txt ||
	fail "report --folded --debug-dir failed"
grep -q ';stk_outer;stk_middle;stk_inner;' dfolded.txt || fail "--debug-dir did not name the frames: $(cat dfolded.txt)"
exit 0
