#!/bin/sh
# The kernel as the oracle: the same workload (tests/progs/states.c) is
# recorded by frecd and by the kernel's own sched_switch and sched_waking
# trace events, in a tracefs instance of the test's own with trace_clock
# "boot" (frec's clock). Over the time the snapshot covers, every switch the
# kernel printed that involves one of the workload's tasks is in the
# snapshot, in the same order on each CPU, with the same prev_state (the
# kernel's letters read back into frec's numbers), and frec has no other
# such switch; the same for the tasks' wakings. The workload must really have
# slept (S), waited in D, been preempted (R+), stopped (T) and exited (X or
# Z), and, where the cgroup v1 freezer exists, been frozen (TASK_FROZEN:
# R before "freezer, sched: Report frozen tasks as 'D' instead of 'R'", D
# after), so that the comparison covers each of them.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

# --- the kernel's recorder: a tracefs instance of our own ---------------------
# Where tracefs is not mounted, the test mounts it on a directory of its own
# (the same file system wherever it is mounted) and unmounts it at the end.
tracefs="" tfmount=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/instances" ] && { tracefs=$d; break; }
done
if [ -z "$tracefs" ]; then
	mkdir tracefs
	mount -t tracefs frec_oracle "$WORK/tracefs" ||
		fail "tracefs is not mounted and cannot be: the kernel needs CONFIG_TRACING"
	tfmount=$WORK/tracefs tracefs=$tfmount
	[ -d "$tracefs/instances" ] || fail "tracefs has no instances directory"
fi
inst=$tracefs/instances/frec_oracle
freezer="" fzmount=""
oracle_cleanup() {
	[ -d "$inst" ] && { echo 0 > "$inst/tracing_on"; rmdir "$inst"; }
	[ -n "$tfmount" ] && umount "$tfmount" 2>/dev/null
	if [ -n "$freezer" ] && [ -d "$freezer" ]; then
		echo THAWED > "$freezer/freezer.state" 2>/dev/null
		rmdir "$freezer" 2>/dev/null
	fi
	[ -n "$fzmount" ] && umount "$fzmount" 2>/dev/null
}
trap 'for p in $SCHED_PIDS; do kill "$p" 2>/dev/null; done; cleanup_frecd; oracle_cleanup' EXIT
# A run killed before its cleanup leaves the instance behind: start afresh.
[ -d "$inst" ] && { echo 0 > "$inst/tracing_on"; rmdir "$inst" || fail "cannot remove the old $inst"; }
mkdir "$inst" || fail "cannot make the tracefs instance $inst"
echo 0 > "$inst/tracing_on"
echo boot > "$inst/trace_clock" || fail "trace_clock boot not supported"
grep -q '\[boot\]' "$inst/trace_clock" || fail "trace_clock: $(cat "$inst/trace_clock")"
# per CPU; the whole machine's switches and wakings for a few seconds
echo 16384 > "$inst/buffer_size_kb" || fail "cannot size the trace buffer"
echo 1 > "$inst/events/sched/sched_switch/enable" || fail "cannot enable sched_switch in $inst"
echo 1 > "$inst/events/sched/sched_waking/enable" || fail "cannot enable sched_waking in $inst"

# --- the cgroup v1 freezer, to freeze a running task --------------------------
# (cgroup v2's freeze sleeps in TASK_INTERRUPTIBLE; only the v1 freezer and
# suspend use TASK_FROZEN). A v1 hierarchy with the same options mounts again
# as the same one, so this works whether or not the system mounted it.
if awk '$1 == "freezer" && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups; then
	mkdir fz
	mount -t cgroup -o freezer frec_oracle "$WORK/fz" || fail "cannot mount the cgroup v1 freezer"
	fzmount=$WORK/fz
	freezer=$fzmount/frec_oracle.$$
	mkdir "$freezer" || fail "cannot make the freezer cgroup $freezer"
else
	note "no cgroup v1 freezer in this kernel: TASK_FROZEN is not exercised"
fi

mkdir snaps
# An hour's window: no generation is evicted, the snapshot holds all.
start_frecd -o "$WORK/snaps" --window 3600
echo 1 > "$inst/tracing_on"

mkfifo in
exec 3<> in
"$PROGS/states" "$(awk -v s="${FREC_TEST_SCALE:-1}" 'BEGIN { print (s < 1 ? 300 : 100) }')" \
	< in > states.out 3>&- &
st=$!
SCHED_PIDS="$SCHED_PIDS $st"
wait_for states.out '^spin ' "the workload's spinner"
spinner=$(field states.out spin)
if [ -n "$freezer" ]; then
	echo "$spinner" > "$freezer/tasks" || fail "cannot move the spinner $spinner into $freezer"
	echo FROZEN > "$freezer/freezer.state"
	i=0
	until [ "$(cat "$freezer/freezer.state")" = FROZEN ]; do
		[ $i -lt 600 ] || fail "the spinner is not frozen after 60 s: $(cat "$freezer/freezer.state")"
		sleep 0.1; i=$((i + 1))
	done
	echo THAWED > "$freezer/freezer.state"
fi
echo go >&3
wait_gone "$st" "the workload" || fail "the workload failed: $(cat states.out)"
exec 3>&-
grep -q '^done$' states.out || fail "the workload did not finish: $(cat states.out)"

snap=$(snapshot "$WORK/snaps")
echo 0 > "$inst/tracing_on"
frecd_stop
cat "$inst/trace" > trace.txt
for s in "$inst"/per_cpu/cpu*/stats; do
	for k in "overrun" "commit overrun" "dropped events"; do
		n=$(awk -v k="$k:" 'index($0, k) == 1 { print $NF }' "$s")
		[ -z "$n" ] || [ "$n" -eq 0 ] || fail "the kernel's trace lost events ($s: $k $n): the comparison would not hold"
	done
done
dump_json "$snap" dump.json
assert_eq "frec's lost events" 0 "$(jcount dump.json type=lost)"

tasks=$(awk '$1 == "task" { printf "%s%s", sep, $2; sep = " " }' states.out)
note "the workload's tasks: $tasks"

# The snapshot's span, in microseconds (the kernel prints its time so).
# Times go through printf "%.0f": mawk prints a number past 2^31 (36 minutes
# of uptime in us) as 2.8e+09 with print, and as 2147483647 with "%d".
span=$(awk "$jq_awk"'
	{ ts = jget($0, "ts"); if (ts == "\001") next; if (!n++ || ts < lo) lo = ts; if (ts > hi) hi = ts }
	END { printf "%.0f %.0f\n", int(lo / 1000), int(hi / 1000) + 1 }' dump.json)
note "the snapshot spans ${span% *}..${span#* } us"

# Each source's events of the workload, one a line: "CPU sw PREV STATE NEXT"
# or "CPU wake PID", in each source's order, then sorted by CPU only (stable),
# so that each CPU's events stay in their order.
awk -v tasks="$tasks" "$jq_awk"'
	BEGIN { n = split(tasks, t, " "); for (i = 1; i <= n; i++) ours[t[i]] = 1 }
	{ type = jget($0, "type"); cpu = jget($0, "cpu") }
	type == "sched_switch" {
		p = jget($0, "prev_pid"); q = jget($0, "next_pid")
		if (p == 0 && (q in ours)) printf "%s idle %s %.0f\n", cpu, q, int(jget($0, "ts") / 1000)
		else if ((p in ours) || (q in ours)) print cpu, "sw", p, jget($0, "prev_state"), q
	}
	type == "sched_waking" && (jget($0, "pid") in ours) { print cpu, "wake", jget($0, "pid") }
' dump.json | sort -s -n -k1,1 > frec.events

# The kernel prints prev_state as letters for the bits of TASK_REPORT and
# TASK_REPORT_IDLE, joined by "|", "R" for none, and "+" for TASK_REPORT_MAX
# (include/trace/events/sched.h); frec keeps the number.
awk -v tasks="$tasks" -v span="$span" '
	function val(line, key) {
		if (!match(line, " " key "=[^ ]*")) return ""
		return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
	}
	function state(s,    v, n, i, a) {
		v = 0
		if (sub(/\+$/, "", s)) v = 256
		if (s == "R") return v
		n = split(s, a, "|")
		for (i = 1; i <= n; i++) {
			if (!(a[i] in bit)) { print "unknown prev_state " s > "/dev/stderr"; exit 2 }
			v += bit[a[i]]
		}
		return v
	}
	BEGIN {
		n = split(tasks, t, " "); for (i = 1; i <= n; i++) ours[t[i]] = 1
		split(span, s, " "); lo = s[1]; hi = s[2]
		split("S D T t X Z P I", l, " ")
		# by doubling: busybox awk may be built without "^" (no math)
		b = 1
		for (i = 1; i <= 8; i++) { bit[l[i]] = b; b *= 2 }
	}
	/^#/ { next }
	{
		if (!match($0, / \[[0-9]+\] /)) next
		cpu = substr($0, RSTART + 2, RLENGTH - 4) + 0
		if (!match($0, / [0-9]+\.[0-9]+: sched_(switch|waking): /)) next
		ev = substr($0, RSTART + 1, RLENGTH - 3)	# "TS: sched_x"
		split(ev, a, ": ")
		split(a[1], tm, "."); us = tm[1] * 1000000 + tm[2]
		if (us < lo || us > hi) next
		rest = substr($0, RSTART + RLENGTH - 1)
	}
	a[2] == "sched_switch" {
		p = val(rest, "prev_pid"); q = val(rest, "next_pid")
		if (p == 0 && (q in ours)) printf "%s idle %s %.0f\n", cpu, q, us
		else if ((p in ours) || (q in ours)) print cpu, "sw", p, state(val(rest, "prev_state")), q
	}
	a[2] == "sched_waking" && (val(rest, "pid") in ours) { print cpu, "wake", val(rest, "pid") }
' trace.txt | sort -s -n -k1,1 > kernel.events || fail "cannot read the kernel's trace"

# Switches from the idle task: on some kernels the trace lacks many of them
# (seen on 6.18 with every trace_clock, with no overrun and no dropped event
# in the stats, while frec has them: the tracepoint fired). They report no
# state of ours (prev_state is the idle task's, R), so they are compared
# apart: the ones the kernel printed must be in frec's, in the same order on
# each CPU (a subsequence), and the workload's other switches not at all.
# Their times are not compared: in the kernel VM (6.1 under TCG) the trace
# stamped some switches from idle 20 ms before frec's program ran on the
# same tracepoint, while the sequences of both stayed the same.
for src in kernel frec; do
	grep ' idle ' $src.events > $src.idle
	grep -v ' idle ' $src.events > $src.tmp && mv $src.tmp $src.events
done
r=$(awk 'BEGIN {
	while ((getline l < "frec.idle") > 0) { split(l, a, " "); c = a[1]; f[c, ++nf[c]] = a[3] " " a[4] }
	while ((getline l < "kernel.idle") > 0) {
		split(l, a, " "); c = a[1]; nk++
		while (++at[c] <= nf[c]) {
			split(f[c, at[c]], b, " ")
			if (b[1] == a[3]) break
		}
		if (at[c] > nf[c]) { print "missing " l; exit }
	}
	for (c in nf) n += nf[c]
	print "ok " nk + 0 " " n + 0
}')
case $r in
ok*) note "switches from idle into the workload: the kernel printed $(echo "$r" | cut -d' ' -f2), frec has $(echo "$r" | cut -d' ' -f3)" ;;
*)	note "the switches from idle, kernel: $(tr '\n' ';' < kernel.idle)"
	note "the switches from idle, frec: $(tr '\n' ';' < frec.idle)"
	fail "a switch from idle the kernel printed is not in frec's (CPU idle NEXT US): ${r#missing }" ;;
esac

nk=$(grep -c ' sw ' kernel.events)
nf=$(grep -c ' sw ' frec.events)
note "switches of the workload: kernel $nk, frec $nf; wakings: kernel $(grep -c ' wake ' kernel.events), frec $(grep -c ' wake ' frec.events)"
# A task's last switch reports its exit_state, which its parent may change
# from EXIT_ZOMBIE (Z, 32) to EXIT_DEAD (X, 16) while the switch is still
# being traced (wait_task_zombie() on another CPU): the kernel's probe and
# frec's, a moment apart on the same tracepoint, can each see one. Either is
# "exited" here; every other state must match exactly.
for src in kernel frec; do
	sed -e 's/^\([0-9]* sw [0-9]*\) 16 /\1 exited /' -e 's/^\([0-9]* sw [0-9]*\) 32 /\1 exited /' \
		$src.events > $src.tmp &&
		mv $src.tmp $src.events
done
if ! cmp -s kernel.events frec.events; then
	# the first difference, with the lines around it
	awk 'BEGIN {
		while ((getline l < "kernel.events") > 0) k[++nk] = l
		while ((getline l < "frec.events") > 0) f[++nf] = l
		for (i = 1; i <= nk || i <= nf; i++) if (k[i] != f[i]) break
		for (j = (i > 3 ? i - 3 : 1); j <= i + 3; j++)
			printf "#   %s%5d  kernel: %-28s frec: %s\n", j == i ? ">" : " ", j, k[j], f[j]
	     }' >&2
	fail "frec's switches or wakings of the workload differ from the kernel's (CPU sw PREV STATE NEXT | CPU wake PID)"
fi

# Not vacuous: the workload's tasks were seen leaving the CPU in each state.
out_in() { awk -v s="$1" -v tasks="$tasks" '
	BEGIN { nt = split(tasks, t, " "); for (i = 1; i <= nt; i++) ours[t[i]] = 1 }
	$2 == "sw" && ($3 in ours) && $4 == s { n++ } END { print n + 0 }' kernel.events; }
for st in S:1 D:2 T:4 R+:256; do
	n=$(out_in "${st#*:}")
	note "${st%:*}: $n"
	[ "$n" -gt 0 ] || fail "the workload never left the CPU in ${st%:*}: the comparison proves nothing for it"
done
exits=$(out_in exited)
note "X or Z: $exits"
# each task exits once: two threads, three vfork children, the stopped
# child, the spinner and the workload itself
assert_eq "switches out of exiting tasks" 8 "$exits"
if [ -n "$freezer" ]; then
	frozen=$(awk -v p="$spinner" '$2 == "sw" && $3 == p && ($4 == 2 || $4 == 0)' kernel.events | wc -l)
	note "the spinner $spinner left the CPU $frozen times in D or R (frozen, preempted by none)"
	[ "$frozen" -gt 0 ] || fail "the frozen spinner never left the CPU in D or R"
fi
exit 0
