#!/bin/sh
# Retention: after each snapshot the oldest snapshots go until at most --keep
# files of at most --keep-size bytes are left; the newest always stays, and
# nothing but frecd's own snapshot names is ever removed.
. "$FREC_TEST_LIB"

# old NAME...: a fake snapshot from 2020 (sorts before any new one), 1000 bytes
old() {
	for f in "$@"; do
		head -c 1000 /dev/zero > "snaps/$f"
	done
}
# snaps: the regular files named as frecd names its snapshots, in order
snaps() {
	find snaps -maxdepth 1 -type f -name 'frec-*' | sed 's|.*/||' |
		grep -E '^frec-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z(_[0-9]{2})?\.frec$' | sort | tr '\n' ' ' | sed 's/ $//'
}

mkdir -m 700 snaps
old frec-20200101T000001.000Z.frec frec-20200101T000002.000Z.frec frec-20200101T000002.000Z_01.frec \
	frec-20200101T000003.000Z.frec frec-20200101T000004.000Z.frec
# what frecd must leave alone
echo notes > snaps/notes.txt
old frec-important.frec frec-20200101T000000.000Z.frec.bak
mkdir snaps/frec-20200101T000000.000Z.frec
echo target > target
ln -s "$WORK/target" snaps/frec-20200101T000000.001Z.frec

# --- by count -----------------------------------------------------------------
start_frecd -o "$WORK/snaps" --keep 3
s1=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "snapshot 1 failed"
wait_for "$WORK/frecd.log" "frecd info: retention: removed the 3 oldest snapshots \(3000 bytes\) from $WORK/snaps; 3 kept \([0-9]+ bytes\), --keep 3, --keep-size 1G$" \
	"the first retention line"
assert_eq "after snapshot 1" "frec-20200101T000003.000Z.frec frec-20200101T000004.000Z.frec ${s1##*/}" "$(snaps)"
s2=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "snapshot 2 failed"
wait_count "$WORK/frecd.log" "frecd info: retention: removed the 1 oldest snapshots \(1000 bytes\)" 1 "the second retention line"
assert_eq "after snapshot 2" "frec-20200101T000004.000Z.frec ${s1##*/} ${s2##*/}" "$(snaps)"
# (lib's snapshot helper waits for one more file: with retention there is not)
kill -USR1 "$FRECD_PID"
wait_count "$WORK/frecd.log" "frecd info: snapshot $WORK/snaps/frec-" 3 "the SIGUSR1 snapshot"
s3=$(grep "frecd info: snapshot $WORK/snaps/frec-" "$WORK/frecd.log" | tail -n 1 | sed 's/.*frecd info: snapshot //; s/: .*//')
wait_count "$WORK/frecd.log" "frecd info: retention: removed the 1 oldest snapshots \(1000 bytes\)" 2 "the third retention line"
assert_eq "after snapshot 3 (SIGUSR1)" "${s1##*/} ${s2##*/} ${s3##*/}" "$(snaps)"
for f in notes.txt frec-important.frec frec-20200101T000000.000Z.frec.bak; do
	[ -f "snaps/$f" ] || fail "snaps/$f was removed"
done
[ -d snaps/frec-20200101T000000.000Z.frec ] || fail "a directory named like a snapshot was removed"
[ -L snaps/frec-20200101T000000.001Z.frec ] || fail "a symlink named like a snapshot was removed"
[ -f target ] || fail "the symlink's target was removed"
"$FREC" status --socket "$FRECD_SOCKET" > status.out || fail "frec status failed"
assert_eq "status: retention" "retention     keep 3 snapshots, 1073741824 bytes at most" "$(grep '^retention' status.out)"
stop_frecd

# --- by size: smaller than one snapshot keeps only the newest ------------------------
old frec-20200101T000001.000Z.frec frec-20200101T000002.000Z.frec
start_frecd -o "$WORK/snaps" --keep 0 --keep-size 1
s4=$("$FREC" snapshot --socket "$FRECD_SOCKET") || fail "snapshot 4 failed"
wait_for "$WORK/frecd.log" "frecd info: retention: removed the 5 oldest snapshots \([0-9]+ bytes\) from $WORK/snaps; 1 kept" \
	"the size retention line"
assert_eq "only the newest" "${s4##*/}" "$(snaps)"
grep -q "frecd info: retention: removed the 5 oldest snapshots ([0-9]* bytes) from $WORK/snaps; 1 kept ([0-9]* bytes), --keep 0, --keep-size 1$" \
	"$WORK/frecd.log" || fail "the size retention line: $(grep retention: "$WORK/frecd.log")"
stop_frecd

# --- no limits: nothing is removed ---------------------------------------------------
old frec-20200101T000001.000Z.frec
start_frecd -o "$WORK/snaps" --keep 0 --keep-size 0
"$FREC" snapshot --socket "$FRECD_SOCKET" > /dev/null || fail "snapshot 5 failed"
stop_frecd
assert_eq "no limits: snapshots" 3 "$(snaps | wc -w)"
grep -q "retention:" "$WORK/frecd.log" && fail "retention ran without limits: $(grep retention: "$WORK/frecd.log")"
exit 0
