#!/bin/sh
# The window. With --window 2 --period 500, after 6 s of activity a snapshot
# covers at least the 2 s before it was taken and at most about 2.5 s: whole
# generations, so up to one generation more than 2 s, and a generation lasts
# the period plus up to one drain tick (50 ms). Coverage is measured from the
# first event to the snapshot's own time (its header), not to its last
# event: the machine may be quiet for a few ms before the request, and the
# window promises time, not events. With a small --max-size the file stays
# within that size plus one generation.
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
"$FREC" info --json "$snap" > age-info.json || fail "frec info failed on $snap"
first=$(jvals age-info.json first_ts)
taken=$(( $(jvals age-info.json created_ns) - $(jvals age-info.json boottime_to_realtime_ns) ))
cover=$(( (taken - first) / 1000000 ))
note "window 2 s, period 500 ms: the snapshot covers $cover ms before it was taken; its events span $ms ms"
assert_range "coverage (ms) with --window 2 --period 500" 2000 2650 "$cover"
assert_range "span of the events (ms)" 1 "$cover" "$ms"

# --- by size ------------------------------------------------------------------
# --max-size bounds all of the recorder's event memory (the window, the open
# generation and the one being sealed), so a snapshot, which seals first,
# holds at most that much besides its header: its blocks as the recorder
# held them, each with its 32-byte block header (frec info's raw bytes:
# with --compress zstd the file itself is smaller).
max=$((256 * 1024))
mkdir size
start_frecd -o "$WORK/size" --max-size 256K --period 100
"$PROGS/pingpong" -s 6 < /dev/null > pp.out || fail "pingpong failed"
snap=$(snapshot "$WORK/size")
stop_frecd
"$FREC" info --json "$snap" > info.json || fail "frec info failed on $snap"
raw=$(sed -n 's/.*"raw_bytes":\([0-9]*\).*/\1/p' info.json)
gens=$(sed -n 's/.*"generations":\([0-9]*\).*/\1/p' info.json)
bytes=$((raw + 32 * gens))
note "--max-size 256K: the snapshot holds $bytes bytes as recorded, $(wc -c < "$snap") in the file"
assert_range "snapshot bytes with --max-size 256K" $((max / 2)) $((max + 4096)) "$bytes"
exit 0
