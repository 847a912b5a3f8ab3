#!/bin/sh
# The tools' outputs on every fuzz corpus file, as SHA-256 sums: frec info
# (text and JSON), dump --json, report --json and both exports. A change
# that only moves code (docs/ARCHITECTURE.md) must leave every one of them
# byte for byte as it was:
#
#   sh tests/golden/outputs.sh check    compare with tests/golden/outputs.sha256
#   sh tests/golden/outputs.sh update   write it anew (a change of output on purpose)
#
# FREC is the frec binary (default .output/frec). Run from the top of the tree:
# the file names in the outputs are relative to it.
set -u
mode=${1:-check}
FREC=${FREC:-.output/frec}
sums=tests/golden/outputs.sha256
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

[ -x "$FREC" ] || { echo "golden: $FREC not built: run make" >&2; exit 1; }
for f in $(find tests/fuzz/corpus -name '*.frec' | LC_ALL=C sort); do
	for view in info info-json dump-json report-json perfetto chrome; do
		case $view in
		info) "$FREC" info "$f" ;;
		info-json) "$FREC" info --json "$f" ;;
		dump-json) "$FREC" dump --json "$f" ;;
		report-json) "$FREC" report --json "$f" ;;
		perfetto) "$FREC" export --format perfetto -o - "$f" ;;
		chrome) "$FREC" export --format chrome -o - "$f" ;;
		esac > "$tmp/out" 2> "$tmp/err"
		rc=$?
		printf '%s  %s %s exit %s stderr %s\n' "$(sha256sum < "$tmp/out" | cut -d' ' -f1)" \
			"$f" "$view" "$rc" "$(sha256sum < "$tmp/err" | cut -c1-16)"
	done
done > "$tmp/now"

case $mode in
update)
	cp "$tmp/now" "$sums"
	echo "golden: $(wc -l < "$sums") outputs written to $sums"
	;;
check)
	[ -f "$sums" ] || { echo "golden: no $sums: run 'sh tests/golden/outputs.sh update'" >&2; exit 1; }
	if ! diff -u "$sums" "$tmp/now" > "$tmp/diff"; then
		cat "$tmp/diff"
		echo "golden: the outputs above changed; if on purpose, run 'sh tests/golden/outputs.sh update' and say why in the commit" >&2
		exit 1
	fi
	echo "golden: $(wc -l < "$sums") outputs as before"
	;;
*)
	echo "usage: outputs.sh check|update" >&2
	exit 2
	;;
esac
