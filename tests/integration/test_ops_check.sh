#!/bin/sh
# frecd --check: one line per item in a fixed order, every item frecd needs
# "ok" here (a machine the BPF tests run on), exit 0; as an unprivileged user
# the privileges and everything that needs them are "missing", exit 1; a bad
# --btf is named; a configuration error is a usage error.
. "$FREC_TEST_LIB"

items="kernel CAP_BPF CAP_PERFMON CAP_SYS_ADMIN btf ringbuf tp_btf raw_tp tracefs tracepoint uprobe usdt namespaces programs triggers recursion kallsyms cgroups cgroup_names containers"
nitems=20
line_re='^(ok|missing) +[A-Za-z_]+ +\(.+\)$'

# A cgroup of the test's own makes auto choose v2 (its root has a child).
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cgdir=""
if [ -n "$CG" ] && mkdir "$CG/frec-it.$$" 2>/dev/null; then
	cgdir="$CG/frec-it.$$"
	trap 'cleanup_frecd; rmdir "$cgdir"' EXIT
fi

"$FRECD" --check --config /dev/null > check.out 2> check.err
rc=$?
[ ! -s check.err ] || { cat check.err >&2; fail "--check wrote to stderr"; }
assert_eq "--check exit status" 0 "$rc"
assert_eq "--check lines" $((nitems + 1)) "$(wc -l < check.out)"
assert_eq "--check items in order" "$items" "$(head -n $nitems check.out | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//')"
assert_eq "lines of the item format" $nitems "$(grep -Ec "$line_re" check.out)"
assert_eq "last line" "frecd can run here" "$(tail -n 1 check.out)"
assert_eq "kallsyms as root" ok "$(awk '$2 == "kallsyms" { print $1 }' check.out)"
assert_eq "kernel" "ok       kernel         ($(uname -r) $(uname -m))" "$(awk '$2 == "kernel"' check.out)"

# Everything frecd uses works here; tracefs (and the classic tracepoint that
# needs it) may be absent (the kernel VM does not mount it) and is not needed.
for item in CAP_BPF CAP_PERFMON CAP_SYS_ADMIN btf ringbuf tp_btf raw_tp uprobe usdt programs; do
	assert_eq "$item" "ok" "$(awk -v i="$item" '$2 == i { print $1 }' check.out)"
done
grep -Eq '^ok       tp_btf         \(a tp_btf program on sched_switch loaded, attached and ran [1-9][0-9]* times\)$' check.out ||
	fail "tp_btf: $(awk '$2 == "tp_btf"' check.out)"
# BPF cookies from 5.15: before, frecd copies a probe's program per probe
case $(uname -r) in
[0-4].*|5.[0-9].*|5.1[0-4].*)
	assert_eq "uprobe" "ok       uprobe         (a uprobe on frecd's own frecd_check__target fired once; no BPF cookies (Linux 5.15): frecd loads a copy of a probe's program for each --probe)" \
		"$(awk '$2 == "uprobe"' check.out)" ;;
*)
	assert_eq "uprobe" "ok       uprobe         (a uprobe on frecd's own frecd_check__target fired once, with its BPF cookie)" \
		"$(awk '$2 == "uprobe"' check.out)" ;;
esac
grep -Eq '^ok       programs       \(frecd.s [0-9]+ scheduler programs loaded and attached with (tp_btf|raw_tp)\)$' check.out ||
	fail "programs: $(awk '$2 == "programs"' check.out)"
# whether the kernel counts the runs it skips (bpf_prog_info.recursion_misses,
# 5.12): not needed to run, said either way
rec_ok="ok       recursion      (bpf_prog_info has recursion_misses: runs the kernel skips because a program re-entered on its CPU (raw_tp and tp_btf from Linux 6.1) are counted as lost)"
rec_missing="missing  recursion      (this kernel's bpf_prog_info ends before recursion_misses (Linux 5.12): runs it skips because a program re-entered on its CPU are not counted)"
rec=$(awk '$2 == "recursion"' check.out)
[ "$rec" = "$rec_ok" ] || [ "$rec" = "$rec_missing" ] || fail "recursion: $rec"
case $(uname -r) in
[0-4].*|5.[0-9].*|5.1[01].*) ;;
*) assert_eq "recursion on $(uname -r)" "$rec_ok" "$rec" ;;
esac
if [ -r /sys/kernel/tracing/events ] || [ -r /sys/kernel/debug/tracing/events ]; then
	assert_eq "tracefs" "ok" "$(awk '$2 == "tracefs" { print $1 }' check.out)"
	assert_eq "tracepoint" "ok" "$(awk '$2 == "tracepoint" { print $1 }' check.out)"
else
	assert_eq "tracefs" "missing  tracefs        (not mounted at /sys/kernel/tracing; only classic tracepoints need it, frecd does not: mount -t tracefs nodev /sys/kernel/tracing)" \
		"$(awk '$2 == "tracefs"' check.out)"
fi

# The cgroups events would carry, and how their ids are named (as root:
# by handle)
if [ -n "$cgdir" ]; then
	assert_eq "cgroups" "ok       cgroups        (v2 at $CG)" "$(awk '$2 == "cgroups"' check.out)"
	assert_eq "cgroup names" "ok       cgroup_names   (by handle)" "$(awk '$2 == "cgroup_names"' check.out)"
fi
"$FRECD" --check --config /dev/null --cgroup-hierarchy none > none.out || fail "--check --cgroup-hierarchy none failed"
assert_eq "cgroups with none" "missing  cgroups        (none: --cgroup-hierarchy none)" "$(awk '$2 == "cgroups"' none.out)"
assert_eq "cgroup names with none" "missing  cgroup_names   (no cgroup hierarchy is recorded)" "$(awk '$2 == "cgroup_names"' none.out)"
"$FRECD" --check --config /dev/null --cgroup-hierarchy frecnosuch > nosuch.out || fail "--check with an unmounted controller failed"
assert_eq "cgroups with an unmounted controller" \
	"missing  cgroups        (--cgroup-hierarchy frecnosuch: no v1 hierarchy of controller frecnosuch is mounted: mount one (mount -t cgroup -o frecnosuch cgroup DIR), or use auto or v2)" \
	"$(awk '$2 == "cgroups"' nosuch.out)"
# frecd seen from the host: a test run on the host's namespaces
assert_eq "namespaces" "ok       namespaces     (pid host, /proc host, cgroup host)" "$(awk '$2 == "namespaces"' check.out)"
# container probes: openat2 (5.6) resolves a /proc/PID/root/... path in that root
case $(uname -r) in
[0-4].*|5.[0-5].*) want="missing  containers     (container probes: openat2 RESOLVE_IN_ROOT: no (Linux 5.6): probes on /proc/PID/root/... paths fail)" ;;
*) want="ok       containers     (container probes: openat2 RESOLVE_IN_ROOT: yes)" ;;
esac
assert_eq "containers" "$want" "$(awk '$2 == "containers"' check.out)"

# --attach raw_tp is checked as configured
"$FRECD" --check --config /dev/null --attach raw_tp > raw.out || fail "--check --attach raw_tp failed"
grep -Eq '^ok       programs       \(frecd.s [0-9]+ scheduler programs loaded and attached with raw_tp\)$' raw.out ||
	fail "--attach raw_tp: $(awk '$2 == "programs"' raw.out)"
# where triggers keep per-thread times: task storage only for tp_btf on 6.4+
hash="ok       triggers       (runq and offcpu triggers keep per-thread times in an LRU hash of 16384 threads:"
assert_eq "triggers with raw_tp" "$hash the raw_tp programs have no typed task pointer for task storage)" \
	"$(awk '$2 == "triggers"' raw.out)"
if grep -q '^ok       programs .*with raw_tp)$' check.out; then
	want="$hash the raw_tp programs have no typed task pointer for task storage)"
else
	case $(uname -r) in
	[0-5].*|6.[0-3].*) want="$hash task storage allocates under the runqueue lock with kmalloc before Linux 6.4)" ;;
	*) want="ok       triggers       (runq and offcpu triggers keep per-thread times in task storage (tp_btf, Linux 6.4+))" ;;
	esac
fi
assert_eq "triggers" "$want" "$(awk '$2 == "triggers"' check.out)"

# A --btf that is not there
"$FRECD" --check --config /dev/null --btf "$WORK/none.btf" > btf.out
assert_eq "--check with a missing --btf: exit" 1 "$?"
assert_eq "btf line" "missing  btf            (--btf $WORK/none.btf: No such file or directory; give the BTF of the running kernel)" \
	"$(awk '$2 == "btf"' btf.out)"
assert_eq "programs with a missing --btf" "missing  programs       (CO-RE needs BTF (see btf))" "$(awk '$2 == "programs"' btf.out)"
assert_eq "last line with a missing --btf" "frecd cannot run here: BTF (--btf) missing" "$(tail -n 1 btf.out)"

# Not root: the binary is copied where the unprivileged user can run it.
pub=$(mktemp -d /tmp/frec-pub.XXXXXX)
chmod 755 "$pub"
cp "$FRECD" "$pub/frecd"
as_nobody "$pub/frecd" --check --config /dev/null > nobody.out 2> nobody.err
rc=$?
rm -rf "$pub"
assert_eq "--check as nobody: exit" 1 "$rc"
assert_eq "--check as nobody: lines" $((nitems + 1)) "$(wc -l < nobody.out)"
assert_eq "--check as nobody: items" "$items" "$(head -n $nitems nobody.out | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//')"
# without CAP_DAC_READ_SEARCH no handle opens: the hierarchy is walked
if [ -n "$cgdir" ]; then
	assert_eq "cgroup names as nobody" "missing  cgroup_names   (by walking (no CAP_DAC_READ_SEARCH, or no file handles here))" \
		"$(awk '$2 == "cgroup_names"' nobody.out)"
fi
for item in CAP_BPF CAP_PERFMON CAP_SYS_ADMIN ringbuf tp_btf raw_tp uprobe usdt programs triggers recursion kallsyms; do
	assert_eq "$item as nobody" "missing" "$(awk -v i="$item" '$2 == i { print $1 }' nobody.out)"
done
grep -Eq '^missing  CAP_BPF        \(not in the effective set \(CapEff 0000000000000000\), needed for BPF programs and maps; run frecd as root or grant it \(AmbientCapabilities= in the unit\)\)$' nobody.out ||
	fail "CAP_BPF as nobody: $(awk '$2 == "CAP_BPF"' nobody.out)"
assert_eq "ringbuf as nobody" "missing  ringbuf        (creating a BPF ring buffer: Operation not permitted: permission denied; run frecd as root or give it CAP_BPF and CAP_PERFMON)" \
	"$(awk '$2 == "ringbuf"' nobody.out)"
assert_eq "programs as nobody" "missing  programs       (must run as root (or with CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN) to load its BPF programs: try sudo frecd)" \
	"$(awk '$2 == "programs"' nobody.out)"
assert_eq "verdict as nobody" "frecd cannot run here: privileges (CAP_BPF and CAP_PERFMON, or root) missing" \
	"$(tail -n 1 nobody.out)"

# Root without CAP_SYS_ADMIN: frecd runs, uprobes do not
if setpriv --bounding-set=-sys_admin true 2> /dev/null; then
	setpriv --inh-caps=-all --bounding-set=-sys_admin "$FRECD" --check --config /dev/null > noadmin.out
	assert_eq "--check without CAP_SYS_ADMIN: exit" 0 "$?"
	assert_eq "CAP_SYS_ADMIN" "missing" "$(awk '$2 == "CAP_SYS_ADMIN" { print $1 }' noadmin.out)"
	assert_eq "uprobe without CAP_SYS_ADMIN" "missing" "$(awk '$2 == "uprobe" { print $1 }' noadmin.out)"
	grep -q "recent kernels require CAP_SYS_ADMIN for uprobes: run frecd as root or give it CAP_SYS_ADMIN)$" noadmin.out ||
		fail "uprobe without CAP_SYS_ADMIN: $(awk '$2 == "uprobe"' noadmin.out)"
	assert_eq "verdict without CAP_SYS_ADMIN" "frecd can run here" "$(tail -n 1 noadmin.out)"
	# ... unless the configuration has probes
	printf 'probe = uprobe:%s:frecd_check__target\n' "$FRECD" > probes.conf
	chmod 600 probes.conf
	setpriv --inh-caps=-all --bounding-set=-sys_admin "$FRECD" --check --config probes.conf > noadmin2.out
	assert_eq "--check with probes without CAP_SYS_ADMIN: exit" 1 "$?"
	assert_eq "verdict with probes" "frecd cannot run here: uprobes (for the configured --probe) missing" \
		"$(tail -n 1 noadmin2.out)"
fi

# A configuration error is a usage error, before any check
printf 'window = 10\nwindows = 10\n' > bad.conf
chmod 600 bad.conf
"$FRECD" --check --config bad.conf > bad.out 2> bad.err
assert_eq "--check with a bad file: exit" 2 "$?"
assert_eq "--check with a bad file: message" \
	"frecd: bad.conf:2: unknown key 'windows'; the keys are frecd's long options without the dashes (see frecd --help)" \
	"$(cat bad.err)"
[ ! -s bad.out ] || fail "--check with a bad file printed: $(cat bad.out)"
exit 0
