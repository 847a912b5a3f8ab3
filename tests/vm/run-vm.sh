#!/bin/sh
# Run the integration suite inside Debian's 6.1, 6.12 and 5.10 kernels under
# qemu.
#
#   sh tests/vm/run-vm.sh [TEST...]     (what `make test-vm` runs)
#
# 1. Kernels: for each series of FREC_VM_KERNELS, `apt-get download` the
#    newest Debian package of it (linux-image-6.1.0-N-amd64,
#    linux-image-6.12.N+deb12-amd64, linux-image-5.10.0-N-amd64) through an
#    apt configuration of our own under $OUTPUT/vm/apt whose sources.list
#    names the host's Debian mirrors; unpack it with `dpkg-deb -x` (never
#    installed on the host) and keep vmlinuz under $OUTPUT/vm/kernel/. A
#    cached kernel is used as it is: a second run downloads nothing.
# 2. initramfs, one per kernel: busybox-static with its applet links,
#    tests/integration, tests/vm/smoke.sh, tests/soak, frecd, frec, the test programs
#    ($OUTPUT/tests minus the unit tests), the smoke BPF loader, the kernel's
#    fuse module and every shared library they need (ldd, dynamic loader
#    included), at the same paths under /frec as in the checkout;
#    tests/vm/init.sh is /init.
# 3. qemu-system-x86_64 boots one VM per kernel and pass (single-threaded TCG
#    unless the CPU shows vmx/svm and /dev/kvm is usable), from a queue, as
#    many at once as the host has CPUs. The first VM of each kernel runs
#    smoke.sh first, then FREC_VM_SOAK_SECONDS (40; 0: none) of
#    tests/soak/soak.sh --pid-wrap. Each guest runs the suite with frecd
#    forced to its pass's attach path, prints the results on its serial
#    console and powers
#    off. Then every console, one line per VM and the totals.
#    Exit status: 0 only when every kernel was had and every guest printed
#    "frec-vm: result 0".
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
# Host knobs (tests/vm/README): FREC_VM_KERNELS ("5.10 6.1 6.12"),
# FREC_VM_PASSES ("tp_btf raw_tp"; "none" = smoke only), FREC_VM_SOAK_SECONDS
# (40; 0: no pid-wrap soak), FREC_VM_TP_BTF_ARGS
# ("--attach tp_btf"), FREC_VM_RAW_TP_ARGS ("--attach raw_tp"),
# FREC_VM_TIMEOUT (seconds per VM, 1500), FREC_VM_ACCEL (tcg|kvm, detected),
# FREC_VM_JOBS (VMs at once, nproc), FREC_VM_MEM (2G per VM), FREC_VM_SMP
# ("2 6.12:tp_btf=8"), FREC_VM_APPEND (more kernel command line),
# FREC_VM_KERNEL_PKG (linux-image packages instead of FREC_VM_KERNELS),
# FREC_VM_MIRROR, FREC_VM_SECURITY_MIRROR (default: the host's),
# FREC_VM_HOST_TOOLS (host programs to copy in, "protoc"), FREC_TEST_SCALE.
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
# The pid-wrap soak's seconds in the first VM of each kernel (0: none).
SOAK_SECONDS=${FREC_VM_SOAK_SECONDS-40}
case $SOAK_SECONDS in ''|*[!0-9]*) echo "test-vm: FREC_VM_SOAK_SECONDS '$SOAK_SECONDS' is not a number of seconds" >&2; exit 2 ;; esac
TESTS="$*"

die() { echo "test-vm: $*" >&2; exit 1; }
now() { date +%s; }
t_start=$(now)

for tool in qemu-system-x86_64 busybox cpio gzip dpkg-deb apt-get ldd; do
	command -v "$tool" > /dev/null ||
		die "$tool not found: install qemu-system-x86 busybox-static cpio (make test-vm does)"
done
mkdir -p "$VM/kernel" "$VM/deb"

# --- 1. kernels -----------------------------------------------------------------
# The kernels come from Debian's archive through an apt configuration of the
# harness's own under $VM/apt (its sources.list, lists and cache): the host's
# sources, lists and cache are only read, never changed. The archive's base
# URLs are the ones the host's apt already uses.
APT=$VM/apt
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
apt_opts="-o Dir::Etc::sourcelist=$APT/sources.list -o Dir::Etc::sourceparts=-"
apt_opts="$apt_opts -o Dir::State::Lists=$APT/lists -o Dir::Cache=$APT/cache"
apt_opts="$apt_opts -o Acquire::Languages=none -o APT::Get::List-Cleanup=false"
# As root, apt would drop to its sandbox user, which cannot write here.
[ "$(id -u)" -eq 0 ] && apt_opts="$apt_opts -o APT::Sandbox::User=root"

# host_uri SUITE: the URI of the host's apt entry (one-line or deb822) that
# names SUITE, if any.
host_uri() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		case $f in
		*.sources)
			awk -v want="$1" '
				function flush() { if (deb && has && uri != "") { print uri; found = 1; exit } deb = 1; has = 0; uri = "" }
				BEGIN { deb = 1 }
				/^[ \t]*$/ { flush(); next }
				/^[ \t]*#/ { next }
				tolower($1) == "types:" { deb = 0; for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				tolower($1) == "uris:" { uri = $2 }
				tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == want) has = 1 }
				tolower($1) == "enabled:" && tolower($2) == "no" { deb = 0 }
				END { if (!found) flush() }' "$f" ;;
		*)
			awk -v want="$1" '
				$1 == "deb" {
					i = 2
					if ($i ~ /^\[/) while ($i !~ /\]$/) i++
					if ($i ~ /^\[/ || $i ~ /\]$/) i++
					if ($(i + 1) == want) { print $i; exit }
				}' "$f" ;;
		esac
	done | head -n 1
}

# apt_sources: write $APT/sources.list: Debian 12 (bookworm, -security) and
# Debian 11 (bullseye, -security) from the host's Debian mirrors
# (FREC_VM_MIRROR, FREC_VM_SECURITY_MIRROR override them).
apt_sources() {
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	mirror=${FREC_VM_MIRROR:-}
	security=${FREC_VM_SECURITY_MIRROR:-}
	for suite in "$codename" bookworm bullseye trixie; do
		[ -n "$mirror" ] || [ -z "$suite" ] || mirror=$(host_uri "$suite")
		[ -n "$security" ] || [ -z "$suite" ] || security=$(host_uri "$suite-security")
	done
	[ -n "$mirror" ] || die "no Debian archive in /etc/apt/sources.list*: set FREC_VM_MIRROR to one (its URL ending in /debian)"
	# A host without a security entry: the archive's own layout puts it
	# beside the main one.
	[ -n "$security" ] || security=${mirror%/}-security
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$key" ] || die "no $key: install debian-archive-keyring"
	{
		echo "deb [signed-by=$key] $mirror bookworm main"
		echo "deb [signed-by=$key] $security bookworm-security main"
		echo "deb [signed-by=$key] $mirror bullseye main"
		echo "deb [signed-by=$key] $security bullseye-security main"
	} > "$APT/sources.list.tmp"
	mv "$APT/sources.list.tmp" "$APT/sources.list"
}

# apt_update: once a run (kernel_fetch runs in subshells: the mark is a
# file named after this shell).
apt_update() {
	[ ! -e "$APT/updated.$$" ] || return 0
	: > "$APT/updated.$$"
	apt_sources
	echo "test-vm: apt-get update (the harness's own lists under $APT)" >&2
	# shellcheck disable=SC2086
	apt-get -qq $apt_opts update >&2 || echo "test-vm: apt-get update failed: the kernel lists may be stale or missing" >&2
}

# series_re SERIES: the package names of a Debian kernel series: 6.1 and
# 5.10 number their ABI (linux-image-6.1.0-N-amd64), 6.12 in Debian 12 its
# upstream version (linux-image-6.12.N+deb12-amd64).
series_re() {
	printf '^linux-image-%s(\\.0-[0-9]+|\\.[0-9]+\\+deb[0-9]+)-amd64$' "$(echo "$1" | sed 's/\./\\./g')"
}

newest_pkg() {
	[ -s "$APT/sources.list" ] || return 0
	# shellcheck disable=SC2086
	apt-cache $apt_opts search --names-only "$(series_re "$1")" 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1
}

# Download into the harness's cache.
download() {
	# shellcheck disable=SC2086
	( cd "$VM/deb" && apt-get -q $apt_opts download "$1" )
}

# kernel_fetch SERIES: make $VM/kernel/PKG (vmlinuz, config, release,
# modules/) for SERIES and print PKG, or say why not on stderr and fail.
kernel_fetch() {
	series=$1
	kpkg=
	case $series in
	linux-image-*) kpkg=$series ;;	# a package named outright
	*)
		# A cached kernel wins, so that a second run downloads nothing.
		kpkg=$(ls "$VM/kernel" | grep -E "$(series_re "$series")" | sort -V | tail -n 1)
		if [ -z "$kpkg" ]; then
			kpkg=$(newest_pkg "$series")
			[ -n "$kpkg" ] || { apt_update; kpkg=$(newest_pkg "$series"); }
			[ -n "$kpkg" ] || { echo "test-vm: kernel $series: no $(series_re "$series" | tr -d '^$\\') in Debian 11/12's lists ($APT/sources.list): check the host's access to Debian's archive" >&2; return 1; }
		fi ;;
	esac
	kdir=$VM/kernel/$kpkg
	# modules.ok: the kernel's modules the suite needs were taken too (fuse,
	# for test_fault_proc_stuck); a cache from before is unpacked again.
	if [ ! -s "$kdir/vmlinuz" ] || [ ! -e "$kdir/modules.ok" ]; then
		deb=$(ls "$VM/deb/${kpkg}_"*.deb 2>/dev/null | tail -n 1 || true)
		if [ -z "$deb" ]; then
			echo "test-vm: downloading $kpkg" >&2
			[ -s "$APT/sources.list" ] || apt_update
			if ! download "$kpkg" >&2; then
				# Stale lists can name a kernel the archive has dropped
				# since: refresh them once and take the newest again.
				apt_update
				case $series in linux-image-*) ;; *) kpkg=$(newest_pkg "$series") ;; esac
				kdir=$VM/kernel/$kpkg
				[ -n "$kpkg" ] && download "$kpkg" >&2 ||
					{ echo "test-vm: kernel $series: apt-get download ${kpkg:-of it} failed: check the host's access to Debian's archive" >&2; return 1; }
			fi
			deb=$(ls "$VM/deb/${kpkg}_"*.deb | tail -n 1)
		fi
		rm -rf "$VM/unpack"
		dpkg-deb -x "$deb" "$VM/unpack" || { echo "test-vm: kernel $series: cannot unpack $deb" >&2; return 1; }
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
	if ! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$kdir/config"; then
		echo "test-vm: kernel $series: $kpkg has no BTF (CONFIG_DEBUG_INFO_BTF): frecd cannot run on it; drop it from FREC_VM_KERNELS" >&2
		return 1
	fi
	echo "$kpkg"
}

# The kernels that cannot be had are counted as failures at the end.
kernels="" kfail=0
for series in ${FREC_VM_KERNEL_PKG:-${FREC_VM_KERNELS-5.10 6.1 6.12}}; do
	if kpkg=$(kernel_fetch "$series"); then
		kernels="$kernels $series=$kpkg"
	else
		kfail=$((kfail + 1))
	fi
done

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
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

cp -R "$top/tests/integration" "$root/frec/tests/"
# test_tool_outfile exports the fuzz corpus's snapshots.
mkdir -p "$root/frec/tests/fuzz"
cp -R "$top/tests/fuzz/corpus" "$root/frec/tests/fuzz/"
cp "$here/smoke.sh" "$root/frec/tests/vm/"
cp -R "$top/tests/soak" "$root/frec/tests/"
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

# One initramfs per kernel: the same tree, with that kernel's modules and
# its release in /etc/frec-vm.conf.
conf=$root/etc/frec-vm.conf
for k in $kernels; do
	series=${k%%=*} kpkg=${k#*=}
	kdir=$VM/kernel/$kpkg
	krel=$(cat "$kdir/release")
	rm -f "$root/lib/modules/"*.ko
	for ko in "$kdir/modules/"*.ko; do
		[ -e "$ko" ] && cp "$ko" "$root/lib/modules/"
	done
	{
		echo "CI='${CI:-}'"
		echo "FREC_VM=1"
		echo "FREC_TEST_SCALE='$scale'"
		echo "FREC_VM_KERNEL_RELEASE='$krel'"
		echo "FREC_VM_TP_BTF_ARGS='$TP_BTF_ARGS'"
		echo "FREC_VM_RAW_TP_ARGS='$RAW_TP_ARGS'"
		echo "FREC_VM_TESTS='$TESTS'"
		echo "FREC_VM_SOAK_SECONDS=$SOAK_SECONDS"
		# The guest reports its state before the host kills it (boot takes ~10 s).
		echo "FREC_VM_WATCHDOG=$((TIMEOUT > 60 ? TIMEOUT - 30 : TIMEOUT / 2))"
	} > "$conf"
	initrd=$VM/initramfs-$krel.cpio.gz
	( cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet ) | gzip -1 > "$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	echo "test-vm: $kpkg (kernel $krel), initramfs $(($(wc -c < "$initrd") / 1024)) KiB"
done
t_built=$(now)

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
	# thread ran 1200 cycles without a hang, at about the same speed. One
	# thread also emulates 8 vCPUs (round robin), which FREC_VM_SMP uses.
	accel_args="-accel tcg,thread=single -cpu max"
fi

# vm_smp SERIES PASS: the vCPUs of that VM. FREC_VM_SMP is a list of "N"
# (every VM) and "SERIES:PASS=N" (that one VM), the last match winning.
vm_smp() {
	smp=2
	for w in ${FREC_VM_SMP-2 6.12:tp_btf=8}; do
		case $w in
		"$1:$2="*) smp=${w#*=} ;;
		*[!0-9]*) ;;
		*) smp=$w ;;
		esac
	done
	echo "$smp"
}

# The queue: one VM per kernel and pass, in the order of FREC_VM_KERNELS
# then FREC_VM_PASSES. The first VM of each kernel runs the smoke first.
nvm=0
for k in $kernels; do
	series=${k%%=*} kpkg=${k#*=}
	first=smoke
	[ "$SOAK_SECONDS" -eq 0 ] || first="smoke soak"
	for pass in ${PASSES:-none}; do
		nvm=$((nvm + 1))
		args=$first
		[ "$pass" = none ] || args="$args $pass"
		first=
		eval "vm_kpkg_$nvm=\$kpkg vm_args_$nvm=\"\$args\" vm_pass_$nvm=\$pass"
		eval "vm_smp_$nvm=$(vm_smp "$series" "$pass")"
	done
done

# boot N: run VM N; its console goes to $VM/console-N.log, minus the CRs of
# the guest's line ends, qemu's exit status to $VM/qemu-N.rc and its run
# time in seconds to $VM/time-N.
boot() {
	eval "kpkg=\$vm_kpkg_$1 args=\$vm_args_$1 smp=\$vm_smp_$1 pass=\$vm_pass_$1"
	kdir=$VM/kernel/$kpkg
	krel=$(cat "$kdir/release")
	t0=$(now)
	echo "test-vm: VM $1 starts: kernel $krel, $smp CPUs, $pass"
	rc=0
	# Everything after "--" on the kernel command line is /init's argv.
	# shellcheck disable=SC2086
	{ timeout -k 10 "$TIMEOUT" qemu-system-x86_64 $accel_args \
		-m "${FREC_VM_MEM:-2G}" -smp "$smp" \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial stdio -kernel "$kdir/vmlinuz" -initrd "$VM/initramfs-$krel.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet ${FREC_VM_APPEND:-} -- $args" < /dev/null || rc=$?; } |
		sed -u 's/\r$//' > "$VM/console-$1.log"
	echo $(($(now) - t0)) > "$VM/time-$1"
	echo "$rc" > "$VM/qemu-$1.rc"
	echo "test-vm: VM $1 done in $(cat "$VM/time-$1")s: kernel $krel, $pass"
}

# worker: take the next unclaimed VM until none is left (mkdir is the
# atomic claim), so that a short VM frees its slot for the next one.
worker() {
	n=1
	while [ $n -le $nvm ]; do
		mkdir "$VM/claim/$n" 2>/dev/null && boot $n
		n=$((n + 1))
	done
}

# Single-threaded TCG keeps one host CPU busy per VM: as many VMs at once
# as the host has CPUs.
jobs=${FREC_VM_JOBS:-$(nproc)}
[ "$jobs" -le "$nvm" ] || jobs=$nvm
[ "$jobs" -ge 1 ] || jobs=1
echo "test-vm: $nvm VM(s), $jobs at once, accel $accel, passes: ${PASSES:-smoke only}"
rm -rf "$VM"/qemu-*.rc "$VM"/console-*.log "$VM"/time-* "$VM/claim"
mkdir "$VM/claim"
w=1
while [ $w -le "$jobs" ]; do
	worker &
	w=$((w + 1))
done
wait
rm -rf "$VM/claim" "$APT/updated.$$"
n=1
while [ $n -le $nvm ]; do
	echo "test-vm: console of VM $n"
	cat "$VM/console-$n.log"
	n=$((n + 1))
done
t_end=$(now)

# One line per VM (its kernel, CPUs, pass, counts and time), then the totals
# over every VM; a VM that never finished its suite counts as one more
# failure, and so does a kernel that could not be had.
counts() { # counts LOG KIND: "P F S" of the guest's KIND line (smoke|soak|integration)
	awk -v kind="$2" '
		match($0, "^" kind ": [0-9]+ passed, [0-9]+ failed") {
			split(substr($0, RSTART, RLENGTH + 40), w, /[ ,]+/)
			p += w[2]; f += w[4]
			if ($0 ~ /skipped/) s += w[6]
		}
		END { printf "%d %d %d\n", p, f, s }' "$1"
}
bad=0 lost=0 tp=0 tf=$kfail ts=0
n=1
while [ $n -le $nvm ]; do
	eval "kpkg=\$vm_kpkg_$n smp=\$vm_smp_$n pass=\$vm_pass_$n"
	krel=$(cat "$VM/kernel/$kpkg/release")
	log=$VM/console-$n.log
	qrc=$(cat "$VM/qemu-$n.rc" 2>/dev/null || echo 1)
	result=$(sed -n 's/.*frec-vm: result \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	set -- $(counts "$log" soak)
	kp=$1 kf=$2
	set -- $(counts "$log" smoke)
	sp=$1 sf=$2 ss=$3
	set -- $(counts "$log" integration)
	tp=$((tp + sp + kp + $1)) tf=$((tf + sf + kf + $2)) ts=$((ts + ss + $3))
	t=$(cat "$VM/time-$n" 2>/dev/null || echo ?)
	soak=""
	[ "$kp$kf" = 00 ] || soak=", pid-wrap soak: $kp passed, $kf failed"
	if [ "$pass" = none ]; then
		line="test-vm: kernel $krel, $smp CPUs, smoke: $sp passed, $sf failed, 0 skipped$soak, ${t}s"
	else
		smoke=""
		[ "$sp$sf" = 00 ] && [ -z "$soak" ] || smoke=" (smoke: $sp passed, $sf failed$soak)"
		line="test-vm: kernel $krel, $smp CPUs, $pass: $1 passed, $2 failed, $3 skipped, ${t}s$smoke"
	fi
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		line="$line; timed out after ${TIMEOUT}s (FREC_VM_TIMEOUT), console: $log"
		lost=$((lost + 1))
	elif [ -z "$result" ]; then
		line="$line; never reported a result (qemu exit $qrc), console: $log"
		lost=$((lost + 1))
	elif [ "$result" -eq 124 ]; then
		line="$line; the guest watchdog stopped the suite (FREC_VM_TIMEOUT=${TIMEOUT}s), console: $log"
		lost=$((lost + 1))
	elif [ "$result" -ne 0 ]; then
		line="$line; result $result, console: $log"
		bad=1
	fi
	echo "$line"
	n=$((n + 1))
done
echo "test-vm: $nvm VM(s), $jobs at once, VMs $((t_end - t_built))s, total $((t_end - t_start))s"
echo "test-vm: $tp passed, $((tf + lost)) failed, $ts skipped"
[ "$bad" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$kfail" -eq 0 ] && [ "$nvm" -gt 0 ]
