#!/bin/sh
# Every bad --trigger is a usage error: frecd exits 2 before it records
# anything, with one line on stderr naming the trigger, the cause and the
# fix, and writes nothing to -o (not even the directory).
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

n=0
# bad PATTERN ARGS...: frecd ARGS exits 2 and prints exactly one line, which
# matches PATTERN (a shell pattern)
bad() {
	pat=$1; shift
	n=$((n + 1))
	out="$WORK/out.$n"
	# not a timed assertion: a spec frecd took would make it record forever
	timeout 30 "$FRECD" -o "$out" --socket "$WORK/bad.sock" --config /dev/null "$@" > stdout 2> stderr
	rc=$?
	[ "$rc" -eq 2 ] || { cat stderr >&2; fail "frecd $*: exit $rc, expected 2"; }
	[ ! -s stdout ] || fail "frecd $*: printed on stdout: $(cat stdout)"
	[ "$(wc -l < stderr)" -eq 1 ] || { cat stderr >&2; fail "frecd $*: expected one line on stderr"; }
	# shellcheck disable=SC2254
	case $(cat stderr) in
	$pat) ;;
	*) fail "frecd $*: got '$(cat stderr)', expected $pat" ;;
	esac
	[ ! -e "$out" ] || fail "frecd $*: created $out"
	note "$(cat stderr)"
}

good="runq>20ms,comm=victim"
bad "frecd: trigger 'runqq>20ms': *runq>*" --trigger "$good" --trigger "runqq>20ms"
bad "frecd: trigger 'runq>20xs': *ms*" --trigger "runq>20xs"
bad "frecd: trigger 'runq>fast': *ms*" --trigger "runq>fast"
bad "frecd: trigger 'offcpu>': *ms*" --trigger "offcpu>"
bad "frecd: trigger 'runq>20ms,colour=red': *comm=*" --trigger "runq>20ms,colour=red"
bad "frecd: trigger 'runq>20ms,delay=20s': *--window*" --window 10 --trigger "runq>20ms,delay=20s"
bad "frecd: trigger 'runq>20ms,cgroup=/frec-no-such.$$': cgroup=/frec-no-such.$$: *" --trigger "runq>20ms,cgroup=/frec-no-such.$$"
bad "frecd: *no function 'no_such_fn' in *nm*" --trigger "func:$SLOW:no_such_fn>30ms"
bad "frecd: *$WORK/nonexistent does not exist*" --trigger "func:$WORK/nonexistent:f>30ms"
bad "frecd: *'x'*" --trigger "runq>20ms,name=x" --trigger "offcpu>20ms,name=x"
set --
i=0
while [ $i -lt 33 ]; do set -- "$@" --trigger "runq>$((i + 1))ms"; i=$((i + 1)); done
bad "frecd: *32*" "$@"
exit 0
