#!/bin/sh
# Runs the root integration tests: every tests/integration/test_*.sh, or the
# ones named on the command line. Each test is a POSIX sh script that uses
# only what busybox also has (so the same suite runs in the kernel VM), exits
# 0 when it passes, 77 when it cannot run here, anything else when it fails.
# A skip counts as a failure under CI: the BPF tests must really run there.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=$(cd "${OUTPUT:-$top/.output}" && pwd)
export OUTPUT
export FRECD="${FRECD:-$OUTPUT/frecd}" FREC="${FREC:-$OUTPUT/frec}" PROGS="${PROGS:-$OUTPUT/tests}"
export FREC_TEST_LIB="$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "integration tests load BPF programs: run them as root (sudo make test)" >&2
	exit 1
fi

if [ $# -gt 0 ]; then
	tests=""
	for t in "$@"; do tests="$tests $here/${t%.sh}.sh"; done
else
	tests=$(ls "$here"/test_*.sh 2>/dev/null | sort)
fi

limit=${FREC_TEST_TIMEOUT:-300}
pass=0 fail=0 skip=0 n=0
for t in $tests; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	work=$(mktemp -d "${TMPDIR:-/tmp}/frec-it.XXXXXX")
	start=$(date +%s)
	# A hung test must not cost the rest of the run: each gets a limit
	# (not a timed assertion; a healthy test takes a fraction of it).
	( cd "$work" && WORK="$work" timeout -k 10 "$limit" sh "$t" ) > "$work/log" 2>&1
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] || [ $rc -eq 143 ] && echo "test stopped after ${limit}s" >> "$work/log"
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok $n - $name (${secs}s)"
	elif [ $rc -eq 77 ] && [ -z "${CI:-}" ]; then
		skip=$((skip + 1)); echo "ok $n - $name # SKIP $(tail -n 1 "$work/log")"
	else
		fail=$((fail + 1)); echo "not ok $n - $name (exit $rc, ${secs}s)"
		sed 's/^/#   /' "$work/log" | tail -n 80
	fi
	[ $rc -eq 0 ] && rm -rf "$work"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
