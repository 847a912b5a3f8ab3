#!/bin/sh
# Run the integration suite inside Debian's 6.1 LTS kernel under qemu.
#
#   sh tests/vm/run-vm.sh [TEST...]     (what `make test-vm` runs)
#
# 1. Kernel: `apt-get download` Debian's linux-image-6.1.0-N-amd64 (the
#    newest ABI the apt lists know), unpack it with `dpkg-deb -x` (never
#    installed on the host) and keep vmlinuz under $OUTPUT/vm/kernel/. No
#    module is needed: BPF, BTF, uprobes, tracefs, debugfs, tmpfs, devtmpfs
#    and the 8250 serial console are built into Debian's kernel.
# 2. initramfs: busybox-static with its applet links, tests/integration,
#    tests/vm/smoke.sh, frecd, frec, the test programs ($OUTPUT/tests minus
#    the unit tests), the smoke BPF loader and every shared library they
#    need (ldd, dynamic loader included), at the same paths under /frec as in
#    the checkout; tests/vm/init.sh is /init.
# 3. qemu-system-x86_64 boots it (single-threaded TCG unless the CPU shows
#    vmx/svm and /dev/kvm is usable), one VM per attach pass, as many at once
#    as the host has CPUs. VM 1 runs smoke.sh first. Each guest runs the
#    suite with frecd forced to its pass's attach path, prints the results on
#    its serial console and powers off. VM 1's console streams; the others'
#    follow when it is done.
#    Exit status: 0 only when every guest printed "frec-vm: result 0".
#
# What the tests see inside the guest (besides what run.sh exports):
#   FREC_VM=1            they run in the test VM
#   FREC_TEST_SCALE      multiply workload counts by this (0.1 under TCG, where
#                        a uprobe hit costs ~80 us; 1 under KVM); round up and
#                        keep exact-count assertions exact for the scaled count
#   FREC_ATTACH          the pass: tp_btf or raw_tp
#   FREC_FRECD_EXTRA_ARGS  the frecd options that force the pass's attach path
#                        ($FREC_VM_TP_BTF_ARGS, $FREC_VM_RAW_TP_ARGS); lib.sh's
#                        start_frecd appends them
#   CI                   as on the host
# Tools inside are busybox's (Debian's has no pgrep, pkill, nice, chrt) and
# protoc.
#
# Host knobs (tests/vm/README): FREC_VM_PASSES ("tp_btf raw_tp"; "none" =
# smoke only), FREC_VM_TP_BTF_ARGS ("--attach tp_btf"), FREC_VM_RAW_TP_ARGS
# ("--attach raw_tp"), FREC_VM_TIMEOUT (seconds, 1500), FREC_VM_ACCEL
# (tcg|kvm, detected), FREC_VM_JOBS (VMs at once, nproc), FREC_VM_MEM (2G
# per VM), FREC_VM_SMP (2), FREC_VM_APPEND (more kernel command line),
# FREC_VM_KERNEL_PKG (a linux-image package; default: the cached one, else
# the newest 6.1), FREC_VM_HOST_TOOLS (host programs to copy in, "protoc"),
# FREC_TEST_SCALE.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=$(cd "${OUTPUT:-$top/.output}" && pwd)
VM=$OUTPUT/vm
PASSES=${FREC_VM_PASSES-tp_btf raw_tp}
[ "$PASSES" = none ] && PASSES=""
TP_BTF_ARGS=${FREC_VM_TP_BTF_ARGS-"--attach tp_btf"}
RAW_TP_ARGS=${FREC_VM_RAW_TP_ARGS-"--attach raw_tp"}
TIMEOUT=${FREC_VM_TIMEOUT:-1500}
TESTS="$*"

die() { echo "test-vm: $*" >&2; exit 1; }
now() { date +%s; }
t_start=$(now)

for tool in qemu-system-x86_64 busybox cpio gzip dpkg-deb apt-get ldd; do
	command -v "$tool" > /dev/null ||
		die "$tool not found: install qemu-system-x86 busybox-static cpio (make test-vm does)"
done
mkdir -p "$VM/kernel" "$VM/deb"

# --- 1. kernel ---------------------------------------------------------------
newest_61_pkg() {
	apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1
}

# Download into the cache as root without apt's sandbox user, which could
# not write there.
download() { ( cd "$VM/deb" && apt-get -q -o APT::Sandbox::User=root download "$1" ); }

kpkg=${FREC_VM_KERNEL_PKG:-}
if [ -z "$kpkg" ]; then
	# A cached kernel wins, so that a second run downloads nothing.
	kpkg=$(ls "$VM/kernel" | sort -V | tail -n 1)
fi
if [ -z "$kpkg" ]; then
	kpkg=$(newest_61_pkg)
	if [ -z "$kpkg" ]; then
		[ "$(id -u)" -eq 0 ] || die "apt knows no linux-image-6.1.0-*-amd64: run 'apt-get update' as root"
		apt-get update -qq
		kpkg=$(newest_61_pkg)
		[ -n "$kpkg" ] || die "no linux-image-6.1.0-*-amd64 in the apt sources: add Debian 12 (bookworm) or set FREC_VM_KERNEL_PKG"
	fi
fi
kdir=$VM/kernel/$kpkg
# modules.ok: the kernel's modules the suite needs were taken too (fuse,
# for test_fault_proc_stuck); a cache from before is unpacked again.
if [ ! -s "$kdir/vmlinuz" ] || [ ! -e "$kdir/modules.ok" ]; then
	deb=$(ls "$VM/deb/${kpkg}_"*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$deb" ]; then
		echo "test-vm: downloading $kpkg"
		if ! download "$kpkg"; then
			# Stale apt lists can name a kernel the archive has dropped
			# since: refresh them once and take the newest again.
			[ -z "${FREC_VM_KERNEL_PKG:-}" ] && [ "$(id -u)" -eq 0 ] ||
				die "apt-get download $kpkg failed: run 'apt-get update' as root, or set FREC_VM_KERNEL_PKG"
			apt-get update -qq
			kpkg=$(newest_61_pkg)
			kdir=$VM/kernel/$kpkg
			download "$kpkg" || die "apt-get download $kpkg failed after apt-get update: set FREC_VM_KERNEL_PKG"
		fi
		deb=$(ls "$VM/deb/${kpkg}_"*.deb | tail -n 1)
	fi
	rm -rf "$VM/unpack"
	dpkg-deb -x "$deb" "$VM/unpack"
	mkdir -p "$kdir"
	vmlinuz=$(ls "$VM/unpack/boot/"vmlinuz-* | head -n 1)
	cp "$VM/unpack/boot/config-"* "$kdir/config"
	echo "${vmlinuz##*/vmlinuz-}" > "$kdir/release"
	cp "$vmlinuz" "$kdir/vmlinuz.tmp" && mv "$kdir/vmlinuz.tmp" "$kdir/vmlinuz"
	# Modules the suite loads in the guest, uncompressed for busybox's
	# insmod; none is needed when the kernel has them built in.
	rm -rf "$kdir/modules"
	mkdir -p "$kdir/modules"
	for m in fuse; do
		ko=$(find "$VM/unpack/lib/modules" -name "$m.ko*" 2>/dev/null | head -n 1)
		case $ko in
		"") ;;
		*.xz) xz -dc "$ko" > "$kdir/modules/$m.ko" || die "cannot decompress $ko (xz-utils)" ;;
		*.zst) zstd -dqc "$ko" > "$kdir/modules/$m.ko" || die "cannot decompress $ko (zstd)" ;;
		*.gz) gzip -dc "$ko" > "$kdir/modules/$m.ko" || die "cannot decompress $ko" ;;
		*) cp "$ko" "$kdir/modules/$m.ko" ;;
		esac
	done
	touch "$kdir/modules.ok"
	rm -rf "$VM/unpack"
fi
krel=$(cat "$kdir/release")
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$kdir/config" || die "$kpkg has no BTF (CONFIG_DEBUG_INFO_BTF): pick another FREC_VM_KERNEL_PKG"

# --- 2. initramfs --------------------------------------------------------------
root=$VM/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/etc" "$root/root" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/run" "$root/frec/tests/vm" "$root/frec/.output/tests" "$root/frec/.output/vm"
mkdir -p "$root/var/lib" "$root/var/log" "$root/var/tmp"
ln -s /run "$root/var/run"

bb=$(command -v busybox)
ldd "$bb" > /dev/null 2>&1 && die "$bb is not static: install busybox-static"
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list-full); do
	[ "$applet" = bin/busybox ] && continue
	mkdir -p "$root/${applet%/*}"
	ln -sf /bin/busybox "$root/$applet"
done

cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"
mkdir -p "$root/lib/modules"
for ko in "$kdir/modules/"*.ko; do
	[ -e "$ko" ] && cp "$ko" "$root/lib/modules/"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

cp -R "$top/tests/integration" "$root/frec/tests/"
# test_tool_outfile exports the fuzz corpus's snapshots.
mkdir -p "$root/frec/tests/fuzz"
cp -R "$top/tests/fuzz/corpus" "$root/frec/tests/fuzz/"
cp "$here/smoke.sh" "$root/frec/tests/vm/"
for f in frecd frec; do
	[ -f "$OUTPUT/$f" ] && cp "$OUTPUT/$f" "$root/frec/.output/"
done
[ -f "$OUTPUT/vm/smoke-bpf" ] || die "no $OUTPUT/vm/smoke-bpf: run 'make vm-smoke-bpf' (make test-vm does)"
cp "$OUTPUT/vm/smoke-bpf" "$root/frec/.output/vm/"
if [ -d "$OUTPUT/tests" ]; then
	for f in "$OUTPUT/tests/"*; do
		[ -e "$f" ] || continue
		name=${f##*/}
		# Unit tests (ASan builds, run on the host only) stay out.
		[ -f "$top/tests/unit/$name.c" ] && continue
		cp -R "$f" "$root/frec/.output/tests/"
	done
fi

# Host tools that tests use when present (test_tool_views decodes the
# Perfetto export with protoc): copied with their libraries when found.
extra=""
for tool in ${FREC_VM_HOST_TOOLS-protoc}; do
	path=$(command -v "$tool" 2>/dev/null) || continue
	mkdir -p "$root/usr/local/bin"
	cp -L "$path" "$root/usr/local/bin/$tool"
	extra="$extra $root/usr/local/bin/$tool"
done

is_elf() { [ "$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' ')" = 7f454c46 ]; }
libs=$(
	# shellcheck disable=SC2086
	find "$root/frec" $extra -type f | while read -r f; do
		is_elf "$f" || continue
		ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
	done | sort -u
)
for lib in $libs; do
	mkdir -p "$root${lib%/*}"
	cp -L "$lib" "$root$lib"
done

conf=$root/etc/frec-vm.conf
accel=${FREC_VM_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then accel=kvm; fi
fi
case $accel in
tcg) scale=${FREC_TEST_SCALE:-0.1} ;;
kvm) scale=${FREC_TEST_SCALE:-1} ;;
*) die "FREC_VM_ACCEL=$accel: use tcg or kvm" ;;
esac
for v in "$PASSES" "$TP_BTF_ARGS" "$RAW_TP_ARGS" "$TESTS" "${CI:-}" "$scale"; do
	case $v in *\'*) die "no single quotes in FREC_VM_* settings or test names: '$v'" ;; esac
done
{
	echo "CI='${CI:-}'"
	echo "FREC_VM=1"
	echo "FREC_TEST_SCALE='$scale'"
	echo "FREC_VM_KERNEL_RELEASE='$krel'"
	echo "FREC_VM_TP_BTF_ARGS='$TP_BTF_ARGS'"
	echo "FREC_VM_RAW_TP_ARGS='$RAW_TP_ARGS'"
	echo "FREC_VM_TESTS='$TESTS'"
	# The guest reports its state before the host kills it (boot takes ~10 s).
	echo "FREC_VM_WATCHDOG=$((TIMEOUT > 60 ? TIMEOUT - 30 : TIMEOUT / 2))"
} > "$conf"

initrd=$VM/initramfs.cpio.gz
( cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet ) | gzip -1 > "$initrd.tmp"
mv "$initrd.tmp" "$initrd"
t_built=$(now)
echo "test-vm: $kpkg (kernel $krel), accel $accel, initramfs $(($(wc -c < "$initrd") / 1024)) KiB, passes: ${PASSES:-smoke only}"

# --- 3. boot -------------------------------------------------------------------
if [ "$accel" = kvm ]; then
	accel_args="-accel kvm -cpu host"
else
	# Single-threaded TCG on purpose. With one host thread per vCPU, a vCPU
	# can keep running a stale translation of kernel text that the other has
	# just patched through text_poke_bp (every BPF attach and detach flips
	# tracepoint static keys): it re-executes the removed int3 forever with
	# interrupts off while the patching vCPU waits for its IPI. Multi-threaded
	# TCG hung that way within 40 attach cycles in each of 4 tries; one
	# thread ran 1200 cycles without a hang, at about the same speed.
	accel_args="-accel tcg,thread=single -cpu max"
fi

# The passes run in parallel VMs, one per host CPU at most: single-threaded
# TCG keeps one host CPU busy per VM. VM 1 also runs the smoke.
jobs=${FREC_VM_JOBS:-$(nproc)}
npasses=$(echo "$PASSES" | wc -w)
[ "$jobs" -le "$npasses" ] || jobs=$npasses
[ "$jobs" -ge 1 ] || jobs=1
i=0
for pass in $PASSES; do
	eval "vm_passes_$((i % jobs + 1))=\"\${vm_passes_$((i % jobs + 1)):-} $pass\""
	i=$((i + 1))
done

# boot N: run VM N; its console goes to stdout, minus the CRs of the guest's
# line ends, and qemu's exit status to $VM/qemu-N.rc.
boot() {
	eval "args=\"\${vm_passes_$1:-}\""
	[ "$1" -eq 1 ] && args="smoke$args"
	rc=0
	# Everything after "--" on the kernel command line is /init's argv.
	# shellcheck disable=SC2086
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 $accel_args \
		-m "${FREC_VM_MEM:-2G}" -smp "${FREC_VM_SMP:-2}" \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial stdio -kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet ${FREC_VM_APPEND:-} -- $args" < /dev/null || rc=$?
	echo "$rc" > "$VM/qemu-$1.rc"
}

rm -f "$VM"/qemu-*.rc "$VM"/console-*.log
n=2
while [ $n -le "$jobs" ]; do
	boot $n | sed -u 's/\r$//' > "$VM/console-$n.log" &
	n=$((n + 1))
done
# VM 1 streams; the others' consoles follow when it is done.
boot 1 | sed -u 's/\r$//' | tee "$VM/console-1.log"
wait
n=2
while [ $n -le "$jobs" ]; do
	echo "test-vm: console of VM $n"
	cat "$VM/console-$n.log"
	n=$((n + 1))
done
t_end=$(now)

boot=$(sed -n 's/^frec-vm: kernel .* up \([0-9.]*\)s.*/\1/p' "$VM/console-1.log" | head -n 1)
echo "test-vm: kernel $krel, $jobs VM(s), boot ${boot:-?}s, VMs $((t_end - t_built))s, total $((t_end - t_start))s"

bad=0 lost=0
n=1
while [ $n -le "$jobs" ]; do
	log=$VM/console-$n.log
	qrc=$(cat "$VM/qemu-$n.rc" 2>/dev/null || echo 1)
	result=$(sed -n 's/.*frec-vm: result \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		echo "test-vm: VM $n timed out after ${TIMEOUT}s (FREC_VM_TIMEOUT); console: $log" >&2
		lost=$((lost + 1))
	elif [ -z "$result" ]; then
		echo "test-vm: VM $n never reported a result (qemu exit $qrc); console: $log" >&2
		lost=$((lost + 1))
	elif [ "$result" -eq 124 ]; then
		echo "test-vm: VM $n: the guest watchdog stopped the suite (FREC_VM_TIMEOUT=${TIMEOUT}s); console: $log" >&2
		lost=$((lost + 1))
	elif [ "$result" -ne 0 ]; then
		echo "test-vm: VM $n failed (result $result); console: $log" >&2
		bad=1
	fi
	n=$((n + 1))
done

# Totals over smoke and every pass as the closing line; a VM that never
# finished its suite counts as one more failure.
awk -v lost="$lost" '
	match($0, /^(smoke|integration): [0-9]+ passed, [0-9]+ failed/) {
		split(substr($0, RSTART, RLENGTH + 40), w, /[ ,]+/)
		p += w[2]; f += w[4]
		if ($0 ~ /skipped/) s += w[6]
	}
	END { printf "test-vm: %d passed, %d failed, %d skipped\n", p, f + lost, s }
' "$VM"/console-*.log
[ "$bad" -eq 0 ] && [ "$lost" -eq 0 ]
