#!/bin/sh
# When --max-size cannot hold --window of history, frecd says so once, with
# the span it holds and the --max-size that would hold the window, and frec
# status shows the same (text and JSON). With room enough it says nothing.
# Also the rings' shape in frec status: --ring-size shared among the online
# CPUs, raised to --ring-min each.
. "$FREC_TEST_LIB"

# cpus FILE: how many CPUs a sysfs list ("0-3,8") names
cpus() {
	tr ',' '\n' < "$1" | awk -F- 'NF { n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n + 0 }'
}
online=$(cpus /sys/devices/system/cpu/online)
possible=$(cpus /sys/devices/system/cpu/possible)

WARN='frecd warn: the window holds [0-9]+\.[0-9]{3} s, not the 600 s of --window: --max-size 64K cuts it; about --max-size [0-9.]+[MGT] would hold it$'

# --- cut: 64K cannot hold 600 s of a busy machine --------------------------
mkdir cut
start_frecd -o "$WORK/cut" --window 600 --max-size 64K --period 100 --ring-size 64K
"$PROGS/pingpong" -s 2 < /dev/null > pp.out || fail "pingpong failed"
wait_for "$WORK/frecd.log" "$WARN" "the window warning"
"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
"$FREC" status --json --socket "$FRECD_SOCKET" > status.json || fail "frec status --json failed"
# once, not every tick
"$PROGS/pingpong" -s 1 < /dev/null > pp.out || fail "pingpong failed"
assert_eq "window warnings" 1 "$(grep -Ec "$WARN" "$WORK/frecd.log")"
# the text: the cut line repeats the window line's span
span=$(awk '$1 == "window" && $2 != "cut" { print $2; exit }' status.out)
cut=$(grep '^window cut ' status.out) || { cat status.out >&2; fail "no 'window cut' line in frec status"; }
echo "$cut" | grep -Eq "^window cut    $span s, not 600 s: --max-size cuts it; about [0-9]+ bytes would hold it\$" ||
	fail "the window cut line: $cut (window $span s)"
need=$(echo "$cut" | sed 's/.*about \([0-9]*\) bytes.*/\1/')
assert_eq "needed bytes are whole MiB" 0 $((need % 1048576))
[ "$need" -gt 65536 ] || fail "needed $need bytes, not more than --max-size"
grep -q '"window":{"span_s":[0-9.]*,"bytes":[0-9]*,"generations":[0-9]*,"min_age_s":600.000,"max_bytes":65536,"cut":true,"needed_bytes":[1-9][0-9]*}' status.json ||
	fail "status JSON's window: $(grep -o '"window":{[^}]*}' status.json)"
jspan=$(grep -o '"window":{"span_s":[0-9.]*' status.json | sed 's/.*://')
awk -v s="$jspan" 'BEGIN { exit !(s < 600) }' || fail "status JSON's span $jspan s is not below 600 s"
# the rings: 64K shared by the online CPUs is below the 256K floor
each=262144
total=$((online * each))
assert_eq "rings line" "rings         $total bytes: $online CPUs online of $possible possible, $each bytes each (--ring-size 65536, raised for --ring-min 262144)" \
	"$(grep '^rings ' status.out)"
grep -q "\"rings\":{\"cpus\":$online,\"possible\":$possible,\"bytes_each\":$each,\"bytes\":$total,\"ring_size\":65536,\"ring_min\":262144,\"late_cpus\":0}" status.json ||
	fail "status JSON's rings: $(grep -o '"rings":{[^}]*}' status.json)"
grep -q "\"rings_bytes\":$total," status.json || fail "the rings are not in the memory figures"
grep -Eq "frecd info: rings: $online CPUs online of $possible possible, 256K each, [0-9.]+[KM] in all: more than --ring-size 64K, for each CPU's ring to hold --ring-min\$" \
	"$WORK/frecd.log" || fail "no rings line at start"
stop_frecd

# --- not cut: room enough for a 1 s window ---------------------------------
mkdir room
start_frecd -o "$WORK/room" --window 1 --max-size 64M --period 100
"$PROGS/pingpong" -s 3 < /dev/null > pp.out || fail "pingpong failed"
"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
"$FREC" status --json --socket "$FRECD_SOCKET" > status.json || fail "frec status --json failed"
stop_frecd
assert_eq "warnings with room" 0 "$(grep -c 'frecd warn: the window holds' "$WORK/frecd.log")"
assert_eq "window cut lines with room" 0 "$(grep -c '^window cut ' status.out)"
grep -q '"cut":false,"needed_bytes":0}' status.json || fail "status JSON says cut with room: $(grep -o '"window":{[^}]*}' status.json)"
echo "ok"
