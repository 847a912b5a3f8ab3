#!/bin/sh
# Every option the programs' --help texts name is documented: in frecd(8),
# in frec(1) for every frec command, and, for the options that are also
# configuration keys, in the example dist/frecd.conf. Run by `make lint-man`.
#   check_options.sh FRECD FREC MANDIR
set -eu
frecd=$1 frec=$2 man=$3
conf=$(dirname "$0")/../dist/frecd.conf
bad=0

# opts: every --long and -s option a usage text on stdin names, one a line
opts() { grep -oE -- '(^|[ ,[(])--?[a-zA-Z][a-z0-9-]*' | sed 's/^[ ,[(]*//' | sort -u; }

# has PAGE OPT: the page names OPT as roff writes it (\-\-max\-size)
has() { grep -qF -- "$(printf '%s' "$2" | sed 's/-/\\-/g')" "$1"; }

missing() { echo "lint-man: $1" >&2; bad=1; }

for o in $("$frecd" --help | opts); do
	has "$man/frecd.8" "$o" || missing "frecd --help names $o, frecd.8 does not"
done

# Options that only make sense on the command line, not in frecd.conf
# (frecd refuses them there); every other option of the OPTIONS section is a
# key of the example file.
cli_only=" help version dry-run config check "
for o in $("$frecd" --help | awk '/^OPTIONS/ { on = 1; next } on && /^[A-Z]/ { exit } on' |
		opts | grep '^--' | sed 's/^--//'); do
	case "$cli_only" in *" $o "*) continue ;; esac
	grep -qE "^#? ?$o = " "$conf" || missing "frecd --help names --$o, dist/frecd.conf has no '#$o = ' line"
done

cmds=$("$frec" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
[ -n "$cmds" ] || missing "no commands in frec --help"
for c in $cmds; do
	grep -q "^\.SS \"frec $c" "$man/frec.1" || missing "frec.1 has no section .SS \"frec $c ...\""
	for o in $("$frec" "$c" --help | opts); do
		has "$man/frec.1" "$o" || missing "frec $c --help names $o, frec.1 does not"
	done
done
exit $bad
