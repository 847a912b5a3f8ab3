#!/bin/sh
# The window. With --window 2 --period 500, after 6 s of activity a snapshot
# spans at least 2 s and at most about 2.5 s: whole generations, so up to one
# generation more than 2 s, and a generation lasts the period plus up to one
# drain tick (50 ms). With a small --max-size the file stays within that size
# plus one generation.
. "$FREC_TEST_LIB"

# span FILE: ms between the first and the last event of a JSON dump
span_ms() {
	awk '{ if (match($0, /"ts"[ ]*:[ ]*[0-9]+/)) { t = substr($0, RSTART, RLENGTH);
		sub(/.*:[ ]*/, "", t); t += 0; if (n++ == 0 || t < lo) lo = t; if (t > hi) hi = t } }
		END { printf "%d\n", (hi - lo) / 1000000 }' "$1"
}

# --- by age -------------------------------------------------------------------
mkdir age
start_frecd -o "$WORK/age" --window 2 --period 500
"$PROGS/pingpong" -s 6 < /dev/null > pp.out || fail "pingpong failed"
snap=$(snapshot "$WORK/age")
stop_frecd
dump_json "$snap" age.json
ms=$(span_ms age.json)
note "window 2 s, period 500 ms: the snapshot spans $ms ms"
assert_range "span (ms) with --window 2 --period 500" 2000 2650 "$ms"

# --- by size ------------------------------------------------------------------
# --max-size bounds all of the recorder's event memory (the window, the open
# generation and the one being sealed), so a snapshot, which seals first,
# holds at most that much besides its header.
max=$((256 * 1024))
mkdir size
start_frecd -o "$WORK/size" --max-size 256K --period 100
"$PROGS/pingpong" -s 6 < /dev/null > pp.out || fail "pingpong failed"
snap=$(snapshot "$WORK/size")
stop_frecd
bytes=$(wc -c < "$snap")
note "--max-size 256K: the snapshot holds $bytes bytes"
assert_range "snapshot bytes with --max-size 256K" $((max / 2)) $((max + 4096)) "$bytes"
"$FREC" info "$snap" > info.out || fail "frec info failed on $snap"
exit 0
