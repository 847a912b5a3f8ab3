#!/bin/sh
# make check-install: `make install` into a temporary DESTDIR puts every file
# in its place with its mode, a second install keeps an edited configuration,
# `make uninstall` removes every file (the configuration only while it is the
# example), for PREFIX=/usr/local and PREFIX=/usr; then the unit file of a real
# install passes `systemd-analyze verify` when systemd-analyze is there.
# Needs no root. Run from the top of the source tree (the Makefile does).
set -eu
MAKE=${MAKE:-make}
OUTPUT=${OUTPUT:-.output}
work=$(mktemp -d "${TMPDIR:-/tmp}/frec-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/log

fail() { echo "check-install: $*" >&2; [ -s "$log" ] && sed 's/^/#   /' "$log" >&2; exit 1; }

# mk TARGET VAR=VALUE...: run make quietly, its output kept in $log
mk() { "$MAKE" --no-print-directory "$@" > "$log" 2>&1 || fail "make $* failed"; }

# files ROOT: every regular file under ROOT as "MODE PATH", sorted
files() { (cd "$1" && find . -type f | sed 's|^\./||' | while read -r f; do
	echo "$(stat -c %a "$f") $f"; done | LC_ALL=C sort); }

# check_prefix P: install with PREFIX=P (P without the leading /), check, uninstall
check_prefix() {
	p=$1
	root=$work/root-$(echo "$p" | tr / _)
	mk install DESTDIR="$root" PREFIX="/$p"
	cat > "$work/want" <<-EOT
	644 $p/lib/systemd/system/frecd.service
	644 $p/share/man/man1/frec.1
	644 $p/share/man/man5/frec-snapshot.5
	644 $p/share/man/man8/frecd.8
	644 etc/frec/frecd.conf
	755 $p/bin/frec
	755 $p/sbin/frecd
	EOT
	LC_ALL=C sort "$work/want" > "$work/want.sorted"
	files "$root" > "$work/got"
	cmp -s "$work/want.sorted" "$work/got" ||
		fail "PREFIX=/$p: installed files differ: $(diff -u "$work/want.sorted" "$work/got" | grep '^[-+][0-9]' | tr '\n' ' ')"
	cmp -s "$OUTPUT/frec" "$root/$p/bin/frec" || fail "$p/bin/frec is not $OUTPUT/frec"
	cmp -s "$OUTPUT/frecd" "$root/$p/sbin/frecd" || fail "$p/sbin/frecd is not $OUTPUT/frecd"
	for m in 1:frec.1 5:frec-snapshot.5 8:frecd.8; do
		cmp -s "man/${m#*:}" "$root/$p/share/man/man${m%%:*}/${m#*:}" ||
			fail "man/${m#*:} is not installed as is in $p/share/man/man${m%%:*}"
	done
	cmp -s dist/frecd.conf "$root/etc/frec/frecd.conf" || fail "etc/frec/frecd.conf is not dist/frecd.conf"
	unit=$root/$p/lib/systemd/system/frecd.service
	exec_start=$(grep '^ExecStart=' "$unit")
	case "$exec_start" in
	"ExecStart=/$p/sbin/frecd") ;;
	*) fail "PREFIX=/$p: the unit says '$exec_start', not /$p/sbin/frecd" ;;
	esac
	! grep -n '@[A-Z]*@' "$unit" > "$log" || fail "placeholders left in the unit file"

	# an edited configuration survives install and uninstall
	echo "window = 30" >> "$root/etc/frec/frecd.conf"
	mk install DESTDIR="$root" PREFIX="/$p"
	grep -q '^window = 30$' "$root/etc/frec/frecd.conf" || fail "install replaced an edited frecd.conf"
	mk uninstall DESTDIR="$root" PREFIX="/$p"
	got=$(files "$root" | tr '\n' ' ')
	[ "$got" = "644 etc/frec/frecd.conf " ] || fail "PREFIX=/$p: after uninstall with an edited configuration, left: $got"
	grep -q '^window = 30$' "$root/etc/frec/frecd.conf" || fail "uninstall changed an edited frecd.conf"

	# the example, unedited, goes with everything else
	cp dist/frecd.conf "$root/etc/frec/frecd.conf"
	mk uninstall DESTDIR="$root" PREFIX="/$p"
	got=$(files "$root" | tr '\n' ' ')
	[ -z "$got" ] || fail "PREFIX=/$p: uninstall left: $got"
	[ ! -e "$root/etc/frec" ] || fail "uninstall left the empty directory etc/frec"
	nfiles=$(wc -l < "$work/want")
}

check_prefix usr/local
check_prefix usr

# A real install (no DESTDIR) under a scratch PREFIX, so that ExecStart= names
# an existing frecd and Documentation= man pages that man(1) finds.
verify="skipped: no systemd-analyze"
if command -v systemd-analyze > /dev/null; then
	mk install PREFIX="$work/prefix" SYSCONFDIR="$work/etc"
	unit=$work/prefix/lib/systemd/system/frecd.service
	grep -qx "ExecStart=$work/prefix/sbin/frecd --config $work/etc/frec/frecd.conf" "$unit" ||
		fail "SYSCONFDIR=$work/etc: the unit says '$(grep ExecStart= "$unit")'"
	out=$(MANPATH="$work/prefix/share/man" systemd-analyze verify "$unit" 2>&1) ||
		fail "systemd-analyze verify $unit: $out"
	[ -z "$out" ] || fail "systemd-analyze verify $unit: $out"
	mk uninstall PREFIX="$work/prefix" SYSCONFDIR="$work/etc"
	verify="systemd-analyze verify ok"
fi
echo "check-install: ok ($nfiles files for PREFIX=/usr/local and /usr, install, reinstall, uninstall; $verify)"
