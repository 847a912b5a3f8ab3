#!/bin/sh
# /init of the test VM (busybox sh as PID 1, root file system = initramfs).
# Mounts what frecd and the tests need, then for each argument (from the
# kernel command line after "--"): "smoke" runs tests/vm/smoke.sh, "soak"
# a short tests/soak/soak.sh --pid-wrap, "tp_btf"
# or "raw_tp" runs the integration suite with frecd forced to that attach
# path. Prints the one line the host looks for ("frec-vm: result N") and
# powers off. Settings come from /etc/frec-vm.conf, written by
# tests/vm/run-vm.sh.
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
# tracefs is also reachable under debugfs, but classic tp/ programs look here.
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpffs /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
# The modules run-vm.sh took from the kernel package (fuse: /dev/fuse).
for ko in /lib/modules/*.ko; do
	[ -e "$ko" ] && insmod "$ko"
done
hostname frec-vm
ip link set lo up

# shellcheck source=/dev/null
. /etc/frec-vm.conf
export CI FREC_VM FREC_TEST_SCALE FREC_VM_SOAK_SECONDS FREC_VM_KERNEL_RELEASE FREC_VM_TP_BTF_ARGS FREC_VM_RAW_TP_ARGS
[ -n "$CI" ] || unset CI
export OUTPUT=/frec/.output

read -r up _ < /proc/uptime
echo "frec-vm: kernel $(uname -r), up ${up}s, $(nproc) cpus, FREC_TEST_SCALE=$FREC_TEST_SCALE"

# dump_state: what every user process is doing and the logs of the tests
# still running, so that a hang is diagnosed from the console alone.
dump_state() {
	for p in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' 2>/dev/null < "$p/cmdline")
		[ -n "$cmd" ] || continue	# kernel threads
		echo "== pid ${p#/proc/} $(awk '/^State:/ { print $2 $3 }' "$p/status") $cmd"
		sed 's/^/   /' "$p/stack" 2>/dev/null | head -n 12
	done
	# A soak still running: its frecd's log.
	tail -n 15 /tmp/frec-soak/frecd.log 2>/dev/null | sed 's/^/   soak frecd.log: /'
	# The newest test directory is the running test's.
	d=$(ls -dt /tmp/frec-it.* 2>/dev/null | head -n 1)
	[ -n "$d" ] || return 0
	echo "== $d: $(ls "$d" | tr '\n' ' ')"
	tail -n 30 "$d/log" 2>/dev/null | sed 's/^/   log: /'
	tail -n 15 "$d/frecd.log" 2>/dev/null | sed 's/^/   frecd.log: /'
}

# Before the host's timeout kills qemu, say where the suite is stuck.
(
	sleep "$FREC_VM_WATCHDOG"
	echo "frec-vm: watchdog: the suite still runs after ${FREC_VM_WATCHDOG}s; state:"
	dump_state
	echo "frec-vm: result 124"
	poweroff -f
) &
watchdog=$!

# The suite runs in a child so that PID 1 stays free to reap orphans.
(
	rc=0
	for pass in "$@"; do
		# frecd would pick tp_btf on 6.1 by itself and fall back to raw_tp
		# silently; each pass forces its path so that neither hides the other.
		case $pass in
		smoke) sh /frec/tests/vm/smoke.sh || rc=1; continue ;;
		soak)
			# pids wrapped through a lowered pid_max, every name checked
			# (tests/soak/soak.sh --pid-wrap): this VM is its own machine.
			# Every task is in the v2 root here, which frecd would warn
			# about, and the soak fails on any warning: no hierarchy.
			echo "frec-vm: pid-wrap soak, ${FREC_VM_SOAK_SECONDS}s"
			# pid_max 2048: pids wrap every 10-20 s under emulation.
			if SOAK_PID_MAX=2048 sh /frec/tests/soak/soak.sh -P -d "$FREC_VM_SOAK_SECONDS" -i 5 \
				-w /tmp/frec-soak -- --cgroup-hierarchy none; then
				echo "soak: 1 passed, 0 failed"
			else
				echo "soak: 0 passed, 1 failed"
				tail -n 20 /tmp/frec-soak/frecd.log 2>/dev/null | sed 's/^/#   frecd.log: /'
				rc=1
			fi
			# its snapshots are in tmpfs: give the memory to the suite
			rm -rf /tmp/frec-soak
			continue ;;
		tp_btf) export FREC_ATTACH=tp_btf FREC_FRECD_EXTRA_ARGS="$FREC_VM_TP_BTF_ARGS" ;;
		raw_tp) export FREC_ATTACH=raw_tp FREC_FRECD_EXTRA_ARGS="$FREC_VM_RAW_TP_ARGS" ;;
		*) unset FREC_ATTACH FREC_FRECD_EXTRA_ARGS ;;
		esac
		echo "frec-vm: integration suite, attach $pass"
		# Each test's hang limit (run.sh's 300 s) doubled: under emulation
		# on a loaded host test_ops_reload took 263 s of it.
		# shellcheck disable=SC2086
		FREC_TEST_TIMEOUT=600 sh /frec/tests/integration/run.sh $FREC_VM_TESTS || rc=1
	done
	exit $rc
)
rc=$?
kill "$watchdog" 2>/dev/null

read -r up _ < /proc/uptime
echo "frec-vm: done at ${up}s"
echo "frec-vm: result $rc"
sync
poweroff -f
