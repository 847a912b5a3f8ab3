#!/bin/sh
# func:PATH:FUNC>DUR fires once, at the slow call: slow_call calls
# frec_slow_fn 5 times and the 3rd call sleeps 60 ms. With
# func:...>30ms (which attaches the func: probe itself, no --probe): one
# snapshot, one trigger record, for slow_call's thread, stamped at the 3rd
# call's return (after its uretprobe record, before the 4th call's entry),
# its value between 60 ms and the call's time as the program measured it
# and equal to the entry-to-return time of the snapshot's records; and the
# snapshot holds all 5 calls' entries and returns, the 3rd with its
# arguments (3, 3, 60).
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/trigger_lib.sh"

fn="func:$SLOW:frec_slow_fn"
t="$fn>30ms,comm=slow_call,delay=0.5s"
calls=5 slow_at=3
# The value against the records' entry-to-return time: the same clock
# reads in BPF, so equal.
slack_ns=0

mkdir snaps
start_frecd -o "$WORK/snaps" --trigger "$t"
"$SLOW" "$calls" "$slow_at" > slow.out 2>&1 || { cat slow.out >&2; fail "slow_call failed"; }
grep -q '^done$' slow.out || fail "slow_call did not finish"
tid=$(field slow.out tid)
one_snapshot "$t" "tid $tid comm slow_call value "

assert_eq "trigger records" 1 "$(jcount dump.json type=trigger)"
assert_eq "trigger records that fired" 1 "$(jcount dump.json type=trigger suppressed="$TRIG_NO")"
assert_eq "the trigger's name" "$t" "$(jvals dump.json name type=trigger)"
assert_eq "the trigger's tid" "$tid" "$(jvals dump.json tid type=trigger)"
assert_eq "the trigger's comm" slow_call "$(jvals dump.json comm type=trigger)"
value=$(jvals dump.json value_ns type=trigger)
tts=$(jvals dump.json ts type=trigger)

# Every call's entry and return is in the snapshot, in order.
assert_eq "entries of frec_slow_fn" "$calls" "$(jcount dump.json type=uprobe probe="$fn" tid="$tid")"
assert_eq "returns of frec_slow_fn" "$calls" "$(jcount dump.json type=uretprobe probe="$fn" tid="$tid")"
jvals dump.json ts type=uprobe probe="$fn" tid="$tid" | sort -n > entries
jvals dump.json ts type=uretprobe probe="$fn" tid="$tid" | sort -n > returns
e3=$(sed -n "${slow_at}p" entries)
r3=$(sed -n "${slow_at}p" returns)
e4=$(sed -n "$((slow_at + 1))p" entries)
args_of() {
	awk -v conds="$(jconds "$@")" "$jq_awk"'
		jmatch($0, conds) && match($0, /"args":[ ]*\[[^]]*\]/) {
			s = substr($0, RSTART, RLENGTH); sub(/^"args":[ ]*\[/, "", s); sub(/\]$/, "", s)
			gsub(/ /, "", s); print s
		}' dump.json
}
assert_eq "the slow call's arguments" "$slow_at,$slow_at,60" "$(args_of type=uprobe probe="$fn" tid="$tid" ts="$e3")"

# The trigger fired at the slow call's return, once.
set -- $(awk -v i="$slow_at" '$1 == "call" && $2 == i { print $4, $6 }' slow.out)
entry=$1 ret=$2
note "call $slow_at: entry $e3, return $r3 ($(( (r3 - e3) / 1000 )) us; the program measured $(( (ret - entry) / 1000 )) us); trigger at $tts, value $value"
assert_range "the trigger's time (the slow call's return .. the next entry)" $((r3 - slack_ns)) "$e4" "$tts"
assert_range "the trigger's value (ns)" 60000000 $((ret - entry)) "$value"
assert_range "the trigger's value against the records" $((r3 - e3 - slack_ns)) $((r3 - e3 + slack_ns)) "$value"
exit 0
