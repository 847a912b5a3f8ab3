# Helpers for the trigger tests (test_trigger_*.sh); sourced after
# "$FREC_TEST_LIB". POSIX sh and busybox tools only. Every wait is bounded
# (a broken frecd must not hang the test) and none is a timed assertion.

SPIKE="$PROGS/runq_spike"
SLOW="$PROGS/slow_call"
# its USDT probe for every process: the -no-pie build without BPF cookies
no_bpf_cookies && SLOW="$PROGS/nopie/slow_call"
[ -x "$SPIKE" ] && [ -x "$SLOW" ] || fail "no $SPIKE or $SLOW: run make progs"

# The names of frecd's and frec's trigger interface the tests read
# (frecd(8), frec(1)), in one place:
TRIG_LIST=triggers		# frec status --json: the list of triggers
TRIG_FIRED=fired		# ... and its counters
TRIG_SNAPS=snapshots
TRIG_SUPP_DELAY=suppressed_delay
TRIG_SUPP_COOLDOWN=suppressed_cooldown
TRIG_SUPP_RATE=suppressed_rate
TRIG_NO="false"			# frec dump --json: "suppressed" of a record that fired
TRIG_YES="true"			# ... and of an aggregate of suppressed firings

# Processes a test started and must not leave behind: killed on exit.
TRIG_PIDS=""
trap 'for p in $TRIG_PIDS; do kill "$p" 2>/dev/null; done; cleanup_frecd' EXIT

# nsnaps DIR: the number of snapshot files in DIR (a file being written is
# a dot file, which ls does not list)
nsnaps() {
	ls "$1" 2>/dev/null | grep -c '^frec-.*\.frec$'
}

# snaps DIR: the snapshot files, oldest first (their names sort by time)
snaps() {
	ls "$1" 2>/dev/null | grep '^frec-.*\.frec$' | sort | sed "s|^|$1/|"
}

# wait_snaps DIR N: wait until DIR holds N snapshot files, then until frecd
# writes nothing more (a second one would be in progress). On a timeout,
# after frecd's log, frec status and runq_spike's outputs, runs
# $WAIT_SNAPS_DIAG (a test's function) when set.
wait_snaps() {
	i=0
	while [ "$(nsnaps "$1")" -lt "$2" ]; do
		[ $i -lt 600 ] || {
			msg="$(nsnaps "$1") snapshots in $1 after 60 s, expected $2"
			cat "$WORK/frecd.log" >&2
			# what frecd counted (the triggers' firings and
			# suppressions, drops, recursion misses), then the
			# spikes runq_spike made, then a test's own account
			"$FREC" status --socket "$FRECD_SOCKET" >&2
			for f in spike*.out; do
				[ -e "$f" ] && { echo "$f:"; cat "$f"; } >&2
			done
			[ -z "${WAIT_SNAPS_DIAG:-}" ] || $WAIT_SNAPS_DIAG >&2
			fail "$msg"
		}
		sleep 0.1; i=$((i + 1))
	done
	wait_idle
}

# trig_field NAME KEY: KEY of the trigger named NAME in frec status --json
# (the whole answer kept in status.json); "no-trigger" when there is none.
trig_field() {
	"$FREC" status --json --socket "$FRECD_SOCKET" > status.json || fail "frec status failed"
	awk -v name="$1" -v key="$2" -v list="$TRIG_LIST" "$jq_awk"'
	{
		i = index($0, "\"" list "\":[")
		if (!i) { print "no-list"; exit }
		s = substr($0, i + length(list) + 4)
		n = split(s, obj, /\}[ ]*,[ ]*\{/)
		for (k = 1; k <= n; k++)
			if (jget(obj[k], "name") == name) { print jget(obj[k], key); exit }
		print "no-trigger"
	}' status.json
}

# assert_trig NAME KEY EXPECTED: the status counter KEY of trigger NAME
assert_trig() {
	assert_eq "frec status: trigger '$1' $2" "$3" "$(trig_field "$1" "$2")"
}

# last_ts DUMP: the time of the last event of a frec dump --json
last_ts() {
	awk "$jq_awk"'{ t = jget($0, "ts"); if (t + 0 > m + 0) m = t } END { printf "%.0f\n", m }' "$1"
}

# runq_waits DUMP TID MIN_NS: every run-queue wait of TID in DUMP longer
# than MIN_NS, as "SWITCH_TS WAIT_NS", one a line: the time from its
# sched_waking (or sched_wakeup_new, or a switch-out while still runnable,
# prev_state 0: preempted) to its next switch-in. The definition frecd's
# runq> trigger measures (and runqlat's).
runq_waits() {
	awk -v tid="$2" -v min="$3" "$jq_awk"'
	{ type = jget($0, "type"); ts = jget($0, "ts") + 0 }
	(type == "sched_waking" || type == "sched_wakeup_new") && jget($0, "pid") == tid {
		since[tid] = ts
		next
	}
	type != "sched_switch" { next }
	jget($0, "prev_pid") == tid {
		if (jget($0, "prev_state") == "0") since[tid] = ts; else delete since[tid]
	}
	jget($0, "next_pid") == tid && (tid in since) {
		w = ts - since[tid]; delete since[tid]
		if (w > min) printf "%.0f %.0f\n", ts, w
	}' "$1"
}

# spike_run OUT ARGS...: runq_spike ARGS in the foreground, its output in
# OUT; fails unless it finishes. Sets victim (its tid).
spike_run() {
	out=$1; shift
	"$SPIKE" "$@" > "$out" 2> "$out.err"
	rc=$?
	[ $rc -eq 3 ] && skip "runq_spike cannot spike here: $(cat "$out.err")"
	[ $rc -eq 0 ] || { cat "$out.err" >&2; fail "runq_spike $* exited $rc"; }
	grep -q '^done$' "$out" || fail "runq_spike did not finish"
	victim=$(field "$out" victim)
}

# spike_waits OUT: "WOKEN RAN" of each spike runq_spike printed
spike_waits() {
	awk '$1 == "spike" { print $4, $6 }' "$1"
}

# wait_trig NAME KEY N: wait until the status counter KEY of trigger NAME
# reaches N (frecd counts BPF's suppressed firings at its next drain), then
# require exactly N. On a timeout, frec status and $WAIT_SNAPS_DIAG first.
wait_trig() {
	i=0
	while v=$(trig_field "$1" "$2") && ! [ "$v" -ge "$3" ] 2>/dev/null; do
		[ $i -lt 100 ] || {
			"$FREC" status --socket "$FRECD_SOCKET" >&2
			[ -z "${WAIT_SNAPS_DIAG:-}" ] || $WAIT_SNAPS_DIAG >&2
			fail "frec status: trigger '$1' $2 is '$v' after 10 s, expected $3"
		}
		sleep 0.1; i=$((i + 1))
	done
	assert_trig "$1" "$2" "$3"
}

# suppressed_count DUMP NAME: the firings of trigger NAME the suppressed
# records of DUMP count, summed, and the number of such records
suppressed_count() {
	awk -v name="$2" -v yes="$TRIG_YES" "$jq_awk"'
	jget($0, "type") == "trigger" && jget($0, "name") == name && jget($0, "suppressed") == yes {
		n += jget($0, "count"); k++
	}
	END { print n + 0, k + 0 }' "$1"
}

# one_snapshot T REASON: wait for the one snapshot trigger T takes in
# $WORK/snaps, check that T fired once and took it, stop frecd and leave the
# snapshot in $snap, its dump in dump.json and its info in info.json; its
# reason must start with "trigger T: REASON".
one_snapshot() {
	wait_snaps "$WORK/snaps" 1
	assert_eq "snapshots" 1 "$(nsnaps "$WORK/snaps")"
	assert_trig "$1" "$TRIG_FIRED" 1
	assert_trig "$1" "$TRIG_SNAPS" 1
	snap=$(snaps "$WORK/snaps")
	stop_frecd
	dump_json "$snap" dump.json
	"$FREC" info --json "$snap" > info.json || fail "frec info --json failed"
	assert_reason "$(jvals info.json reason)" "$1" "$2"
}

# assert_reason REASON T FACTS: REASON is "trigger T: FACTS...", T's middle
# replaced by "..." if it is too long for the 127 bytes (its ends kept).
assert_reason() {
	local head tail
	head=$(printf %.16s "$2")
	tail=$(printf %s "$2" | tail -c 16)
	case $1 in
	"trigger $2: $3"*) return ;;
	"trigger $head"*"..."*"$tail: $3"*) [ ${#1} -le 127 ] && return ;;
	esac
	fail "reason: '$1', expected 'trigger $2: $3...'"
}
