#!/bin/sh
# The test VM's own checks, run by tests/vm/init.sh before the integration
# suite: the guest runs the kernel the host meant to boot, it has BTF, BPF
# loads and runs through both attach paths, and frecd (once built) attaches
# through each path when told to. Prints TAP-like lines and
# "smoke: N passed, N failed". Reads FREC_VM_KERNEL_RELEASE (expected
# `uname -r`), FREC_VM_TP_BTF_ARGS, FREC_VM_RAW_TP_ARGS, OUTPUT, FRECD.
set -u
FREC_VM_TP_BTF_ARGS=${FREC_VM_TP_BTF_ARGS-"--attach tp_btf"}
FREC_VM_RAW_TP_ARGS=${FREC_VM_RAW_TP_ARGS-"--attach raw_tp"}
OUTPUT=${OUTPUT:-/frec/.output}
FRECD=${FRECD:-$OUTPUT/frecd}
pass=0 fail=0 n=0

check() { # check NAME CMD...: run CMD, report, keep its output on failure
	name=$1; shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		pass=$((pass + 1)); echo "ok $n - smoke: $name"
		[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
	else
		fail=$((fail + 1)); echo "not ok $n - smoke: $name"
		[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
	fi
	return 0
}

kernel_is_expected() {
	rel=$(uname -r)
	echo "uname -r: $rel"
	[ -z "${FREC_VM_KERNEL_RELEASE:-}" ] || [ "$rel" = "$FREC_VM_KERNEL_RELEASE" ]
}

have_btf() { [ -r /sys/kernel/btf/vmlinux ] && [ -s /sys/kernel/btf/vmlinux ]; }

have_bpffs() { grep -q ' /sys/fs/bpf bpf ' /proc/mounts; }

check "kernel is ${FREC_VM_KERNEL_RELEASE:-the expected one}" kernel_is_expected
check "kernel BTF at /sys/kernel/btf/vmlinux" have_btf
check "bpffs mounted" have_bpffs
check "CO-RE tp_btf/sched_switch + uprobe" "$OUTPUT/vm/smoke-bpf" tp_btf
check "CO-RE raw_tp/sched_switch + uprobe" "$OUTPUT/vm/smoke-bpf" raw_tp
# Host tools copied in (run-vm.sh's FREC_VM_HOST_TOOLS) find their libraries.
for tool in /usr/local/bin/*; do
	[ -x "$tool" ] && check "${tool##*/} --version runs" "$tool" --version
done
# dry_run ATTACH ARGS...: frecd loads and attaches through ATTACH and no other.
dry_run() {
	want=$1; shift
	case $want in tp_btf) other=raw_tp ;; *) other=tp_btf ;; esac
	log=$("$FRECD" --dry-run "$@" 2>&1); rc=$?
	echo "$log"
	[ $rc -eq 0 ] || { echo "frecd --dry-run $* exited $rc"; return 1; }
	echo "$log" | grep -q "$want/" || { echo "no $want/ program in its output"; return 1; }
	! echo "$log" | grep -q "$other/" || { echo "it attached $other/ programs too"; return 1; }
}
if [ -x "$FRECD" ]; then
	# shellcheck disable=SC2086
	check "frecd --dry-run $FREC_VM_TP_BTF_ARGS" dry_run tp_btf $FREC_VM_TP_BTF_ARGS
	# shellcheck disable=SC2086
	check "frecd --dry-run $FREC_VM_RAW_TP_ARGS" dry_run raw_tp $FREC_VM_RAW_TP_ARGS
else
	echo "# no $FRECD yet: frecd checks left out"
fi
echo "smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
