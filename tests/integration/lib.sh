# Shared helpers for the integration tests; sourced by each test_*.sh.
# Only POSIX sh and busybox tools. Every helper fails the test loudly.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
note() { echo "# $*"; }

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }
# assert_range WHAT LOW HIGH ACTUAL (integers, inclusive)
assert_range() {
	[ "$4" -ge "$2" ] 2>/dev/null && [ "$4" -le "$3" ] 2>/dev/null ||
		fail "$1: expected $2..$3, got '$4'"
}

FRECD_PID=""
cleanup_frecd() {
	if [ -n "$FRECD_PID" ] && kill -0 "$FRECD_PID" 2>/dev/null; then
		kill -TERM "$FRECD_PID" 2>/dev/null
		i=0; while kill -0 "$FRECD_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$FRECD_PID" 2>/dev/null
	fi
	FRECD_PID=""
}
trap cleanup_frecd EXIT
# run.sh stops a hung test with SIGTERM: exit through the EXIT trap then.
trap "exit 143" TERM INT

# start_frecd ARGS...: run frecd in the background, logging to $WORK/frecd.log,
# and wait until it says it is ready. $FREC_FRECD_EXTRA_ARGS (set by the kernel
# VM passes to force an attach path) come last, so they win. Each test's frecd
# has its own control socket, $FRECD_SOCKET, and reads no system-wide
# configuration file; a test's own --socket or --config, given in ARGS, wins.
# FRECD_WRAP, when set, runs frecd under a command that execs it (its pid
# stays frecd's), such as "taskset -c 0".
FRECD_SOCKET="$WORK/frecd.sock"
start_frecd() {
	: > "$WORK/frecd.log"
	# shellcheck disable=SC2086
	# fds 3-9 closed: frecd must not keep a test's fifo or pipe open
	# $FRECD_WRAP: a command that execs frecd (taskset -c LIST), or empty
	${FRECD_WRAP:-} "$FRECD" --socket "$FRECD_SOCKET" --config /dev/null "$@" ${FREC_FRECD_EXTRA_ARGS:-} \
		>> "$WORK/frecd.log" 2>&1 \
		3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	FRECD_PID=$!
	i=0
	# the line frecd logs once everything is attached: "... frecd info: ready: ..."
	while ! grep -q "frecd info: ready:" "$WORK/frecd.log"; do
		kill -0 "$FRECD_PID" 2>/dev/null || { cat "$WORK/frecd.log" >&2; fail "frecd exited before ready"; }
		[ $i -lt 300 ] || { cat "$WORK/frecd.log" >&2; fail "frecd not ready after 30 s"; }
		sleep 0.1; i=$((i + 1))
	done
}

# stop_frecd: SIGTERM and wait; fails unless frecd exits 0.
stop_frecd() {
	kill -TERM "$FRECD_PID" || fail "frecd is not running"
	wait "$FRECD_PID"; rc=$?
	FRECD_PID=""
	[ $rc -eq 0 ] || { cat "$WORK/frecd.log" >&2; fail "frecd exited $rc on SIGTERM"; }
}

# snapshot DIR: send SIGUSR1 and print the path of the new snapshot file.
snapshot() {
	dir=$1
	before=$(ls "$dir"/*.frec 2>/dev/null | wc -l)
	kill -USR1 "$FRECD_PID" || fail "frecd is not running"
	i=0
	while [ "$(ls "$dir"/*.frec 2>/dev/null | wc -l)" -le "$before" ]; do
		[ $i -lt 200 ] || { cat "$WORK/frecd.log" >&2; fail "no snapshot after 20 s"; }
		sleep 0.1; i=$((i + 1))
	done
	ls "$dir"/*.frec | sort | tail -n 1
}

# snapshots_status: frec status's snapshots line, "N written, M failed,
# one|none in progress" (the whole answer kept in status.out)
snapshots_status() {
	"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
	awk '$1 == "snapshots" { $1 = ""; sub(/^ +/, ""); print; exit }' status.out
}

# wait_idle: until no snapshot is in progress or pending (frecd starts a
# merged one as it finishes the first, in one step of its loop).
wait_idle() {
	i=0
	until snapshots_status | grep -q "none in progress\$"; do
		[ $i -lt 600 ] || { cat "$WORK/frecd.log" >&2; fail "frecd still writing after 60 s"; }
		sleep 0.1; i=$((i + 1))
	done
}

# status_field KEY: the first "KEY":number of frec status --json (the whole
# answer kept in status.json)
status_field() {
	"$FREC" status --json --socket "$FRECD_SOCKET" > status.json || fail "frec status failed"
	grep -o "\"$1\":[0-9][0-9]*" status.json | head -n 1 | cut -d: -f2
}

# scaled N: N times $FREC_TEST_SCALE (0.1 under the slow kernel VM), at least 1.
scaled() {
	awk -v n="$1" -v s="${FREC_TEST_SCALE:-1}" 'BEGIN { v = int(n * s); print (v < 1 ? 1 : v) }'
}

# no_bpf_cookies: true on a kernel without BPF cookies (before 5.15,
# bpf_get_attach_cookie()). libbpf then finds a USDT's spec by its address,
# which for every process works only in a fixed-address executable: the
# probe tests use their builds in nopie/ there (probe_lib.sh, trigger_lib.sh).
no_bpf_cookies() {
	case $(uname -r) in
	[0-4].*|5.[0-9].*|5.1[0-4].*) return 0 ;;
	esac
	return 1
}

# wait_for FILE REGEX [WHAT]: wait until a line of FILE matches REGEX (ERE).
# Not a timed assertion: the limit only keeps a broken test from hanging.
wait_for() {
	i=0
	while ! grep -Eq "$2" "$1" 2>/dev/null; do
		[ $i -lt 600 ] || { cat "$1" >&2; fail "${3:-$2}: not seen in $1 after 60 s"; }
		sleep 0.1; i=$((i + 1))
	done
}

# cmdline_of SNAPSHOT PID: the name of PID's process, as the Chrome export
# shows it in {"ph":"M","name":"process_name","pid":P,...,"args":{"name":N}}:
# its command line, or a comm when none is known; the last one given (a
# process named by a comm is named again once its command line is known,
# and the later name wins). (the name's " [CGROUP]" suffix, where cgroups
# are recorded, left out) Only objects that begin with "ph" start a line
# here, so a line may run on into slices and instants of other processes
# ("pid":PID among them): the match is anchored at the line's start and the
# name taken from its first "args".
cmdline_of() {
	"$FREC" export --format chrome "$1" > chrome.raw || fail "frec export --format chrome failed"
	tr -d '\n' < chrome.raw | sed 's/},[[:space:]]*{"ph"/}\n{"ph"/g' |
		grep "^{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":$2," | tail -n 1 |
		sed 's/^[^}]*"args":{"name":"\([^"]*\)".*/\1/; s/ \[[^]]*\]$//'
}

# wait_count FILE REGEX N [WHAT]: wait until N lines of FILE match REGEX.
wait_count() {
	i=0
	# A FILE not there yet counts 0 lines: grep -c prints nothing for it,
	# and [ "" -lt N ] is an error that would end the wait at once.
	while _wc_n=$(grep -Ec "$2" "$1" 2>/dev/null); [ "${_wc_n:-0}" -lt "$3" ]; do
		[ $i -lt 600 ] || { cat "$1" >&2; fail "${4:-$2}: fewer than $3 in $1 after 60 s"; }
		sleep 0.1; i=$((i + 1))
	done
}

# frecd_ids KEY: the KEY ids (prog_id, link_id) frecd holds fds for, one a line.
frecd_ids() {
	cat /proc/"$FRECD_PID"/fdinfo/* 2>/dev/null | awk -v k="$1:" '$1 == k { print $2 }' | sort -un
}

# bpf_gone KIND ID: true when no BPF object KIND (prog, link) has that id.
bpf_gone() {
	if command -v bpftool > /dev/null; then
		! bpftool "$1" show id "$2" > /dev/null 2>&1
	else
		# No bpftool (the kernel VM): then no process may hold it; frecd
		# pins nothing, so an object nobody holds is freed.
		! cat /proc/[0-9]*/fdinfo/* 2>/dev/null | grep -q "^$1_id:[[:space:]]*$2\$"
	fi
}

# eventually CMD...: true once CMD succeeds, trying for up to 10 s. The kernel
# frees a program after an RCU grace period once its last fd is closed.
eventually() {
	i=0
	until "$@"; do
		[ $i -lt 100 ] || return 1
		sleep 0.1; i=$((i + 1))
	done
}

# field FILE KEY: the word after KEY on the first line of FILE that starts
# with KEY ("ping 1234" -> 1234).
field() {
	awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# as_nobody PROG ARGS...: run PROG as nobody: util-linux setpriv; busybox's
# (the kernel VM) has no --reuid, then su.
as_nobody() {
	if setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		su -s /bin/sh nobody -c "$*"
	fi
}

# ctxt_switches PID TID: voluntary + involuntary switches the kernel counted.
ctxt_switches() {
	awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { n += $2 } END { print n + 0 }' \
		"/proc/$1/task/$2/status"
}

# dump_json SNAPSHOT OUT: frec dump --json into OUT, failing the test on error.
dump_json() {
	"$FREC" dump --json "$1" > "$2" 2> "$2.err" || { cat "$2.err" >&2; fail "frec dump --json $1 failed"; }
}

# JSON lines, one event per line, read with awk only (busybox has no jq).
# jq_awk holds jget(line, key): the value of "key" as a string (numbers as
# written, strings unquoted, escapes kept), or "\001" when the key is absent.
# frec dump --json writes "key":value: found with index(), which is plain
# text; the regular expression (compiled at each call by busybox's awk,
# slow under emulation) only for JSON written otherwise. A string without
# escapes is cut at its closing quote at once.
jq_awk='
function jget(line, key,    s, v, i, c) {
	i = index(line, "\"" key "\":")
	if (i)
		s = substr(line, i + length(key) + 3)
	else if (match(line, "\"" key "\"[ ]*:[ ]*"))
		s = substr(line, RSTART + RLENGTH)
	else
		return "\001"
	if (substr(s, 1, 1) == "\"") {
		i = index(substr(s, 2), "\"")
		v = substr(s, 2, i - 1)
		if (i && !index(v, "\\"))
			return v
		v = ""
		for (i = 2; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\\") { v = v substr(s, i, 2); i++; continue }
			if (c == "\"") break
			v = v c
		}
		return v
	}
	match(s, /^[^,}]*/)
	v = substr(s, 1, RLENGTH)
	gsub(/[ ]/, "", v)
	return v
}
# jmatch splits its conditions once, not at every line.
function jmatch(line, conds,    i, kv) {
	if (conds != jm_conds) {
		jm_n = split(conds, jm_a, "\002")
		for (i = 1; i <= jm_n; i++) {
			split(jm_a[i], kv, "=")
			jm_k[i] = kv[1]
			jm_v[i] = substr(jm_a[i], length(kv[1]) + 2)
		}
		jm_conds = conds
	}
	for (i = 1; i <= jm_n; i++) {
		if (jm_a[i] == "") continue
		if (jget(line, jm_k[i]) != jm_v[i]) return 0
	}
	return 1
}'
# conds KEY=VALUE...: the conditions joined for jmatch
jconds() { c=""; for a in "$@"; do c="$c$(printf '\002')$a"; done; printf '%s' "$c"; }

# jlines FILE KEY=VALUE...: FILE's lines that may match, for jmatch to
# judge: grep (fast) keeps those on which each of the first three keys is
# written with its value as frec dump --json writes it ("k":v, or "k":"v"
# for a string, escapes kept as jget keeps them). awk's parsing is what
# costs under emulation, and most of a dump's lines match no condition.
jgrep() {
	grep -F -e "\"${1%%=*}\":${1#*=}," -e "\"${1%%=*}\":${1#*=}}" -e "\"${1%%=*}\":\"${1#*=}\""
}
jlines() {
	f=$1; shift
	case $# in
	0) cat "$f" ;;
	1) jgrep "$1" < "$f" ;;
	2) jgrep "$1" < "$f" | jgrep "$2" ;;
	*) jgrep "$1" < "$f" | jgrep "$2" | jgrep "$3" ;;
	esac
	return 0
}

# jcount FILE KEY=VALUE...: number of lines where every KEY has VALUE.
jcount() {
	f=$1; shift
	jlines "$f" "$@" | awk -v conds="$(jconds "$@")" "$jq_awk"'
		jmatch($0, conds) { n++ } END { print n + 0 }'
}

# jvals FILE KEY KEY=VALUE...: KEY's value on every matching line.
jvals() {
	f=$1; k=$2; shift 2
	jlines "$f" "$@" | awk -v conds="$(jconds "$@")" -v k="$k" "$jq_awk"'
		jmatch($0, conds) { print jget($0, k) }'
}
