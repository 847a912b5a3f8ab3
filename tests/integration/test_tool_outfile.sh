#!/bin/sh
# frec export -o OUT never harms OUT: for a good snapshot, a damaged one
# (exit 3: the intact generations are a complete trace, which is kept) and
# one that cannot be read (exit 1), written to /dev/null (still a character
# device afterwards), to an existing file (replaced only on success,
# byte-identical after a failure), to a FIFO (its reader gets the trace)
# and to "-"; never a temporary file left behind; an unwritable directory
# named in one line with the fix.
. "$FREC_TEST_LIB"

seeds=$(cd "$(dirname "$FREC_TEST_LIB")/../fuzz/corpus/seeds" && pwd)
good="$seeds/known.frec"
damaged="$seeds/damaged-crc.frec"
printf 'not a snapshot at all, just some text\n' > bad.frec
bad="$WORK/bad.frec"

# the reference traces, on standard output
for in in good damaged; do
	eval f=\$$in
	"$FREC" export --format perfetto "$f" > "ref.$in" 2> /dev/null
	rc=$?
	[ $in = good ] && want=0 || want=3
	assert_eq "export of the $in snapshot to stdout: exit" "$want" "$rc"
	[ -s "ref.$in" ] || fail "export of the $in snapshot wrote nothing"
done
cmp -s ref.good ref.damaged && fail "the damaged snapshot exports as the good one"

mkdir out
# no_temp: nothing in out/ but what the test put there
no_temp() {
	assert_eq "files in out/ ($1)" "$2" "$(ls -A out | tr '\n' ' ' | sed 's/ $//')"
}

# --- an existing file -------------------------------------------------
printf 'an existing trace\n' > out/trace
chmod 640 out/trace
cp out/trace keep
"$FREC" export --format perfetto -o out/trace "$bad" 2> err
assert_eq "bad input to an existing file: exit" 1 "$?"
assert_eq "bad input: message" "frec: $bad: not a frec snapshot (no frec header); give a .frec file written by frecd" "$(cat err)"
cmp -s keep out/trace || fail "the existing file changed when the export failed"
no_temp "after a failure" "trace"
"$FREC" export --format perfetto -o out/trace "$WORK/missing.frec" 2> /dev/null
assert_eq "missing input to an existing file: exit" 1 "$?"
cmp -s keep out/trace || fail "the existing file changed when the input was missing"

"$FREC" export --format perfetto -o out/trace "$damaged" 2> err
assert_eq "damaged input to an existing file: exit" 3 "$?"
cmp -s ref.damaged out/trace || fail "the damaged snapshot's trace was not kept"
grep -q "skipped$" err || fail "damaged input: $(cat err)"
no_temp "after a damaged input" "trace"
assert_eq "mode kept" "-rw-r-----" "$(ls -l out/trace | cut -c1-10)"

"$FREC" export --format perfetto -o out/trace "$good" || fail "good input to an existing file failed"
cmp -s ref.good out/trace || fail "the existing file was not replaced by the trace"
no_temp "after a success" "trace"

# a new file: there only once complete
"$FREC" export --format perfetto -o out/new "$bad" 2> /dev/null
assert_eq "bad input to a new file: exit" 1 "$?"
no_temp "no new file after a failure" "trace"
"$FREC" export --format perfetto -o out/new "$good" || fail "good input to a new file failed"
cmp -s ref.good out/new || fail "the new file is not the trace"
no_temp "a new file" "new trace"

# the snapshot itself is never the output
cp "$good" out/snap.frec
"$FREC" export --format perfetto -o out/snap.frec out/snap.frec 2> err
assert_eq "-o the input: exit" 2 "$?"
assert_eq "-o the input: message" "frec export: out/snap.frec is the snapshot being exported; name another -o file" "$(cat err)"
cmp -s "$good" out/snap.frec || fail "the snapshot changed"
rm out/snap.frec

# --- /dev/null ----------------------------------------------------------
for in in good damaged bad; do
	eval f=\$$in
	"$FREC" export --format perfetto -o /dev/null "$f" 2> /dev/null
	rc=$?
	case $in in good) want=0 ;; damaged) want=3 ;; bad) want=1 ;; esac
	assert_eq "$in input to /dev/null: exit" "$want" "$rc"
	[ -c /dev/null ] || fail "/dev/null is no longer a character device after the $in input"
done
[ -z "$(ls -A /dev | grep '^\.null\.')" ] || fail "a temporary file in /dev: $(ls -A /dev | grep '^\.null\.')"

# --- a FIFO, with a reader ----------------------------------------------
mkfifo out/fifo
for in in good damaged bad; do
	eval f=\$$in
	cat out/fifo > "got.$in" &
	reader=$!
	"$FREC" export --format perfetto -o out/fifo "$f" 2> /dev/null
	rc=$?
	wait $reader
	case $in in good) want=0 ;; damaged) want=3 ;; bad) want=1 ;; esac
	assert_eq "$in input to a FIFO: exit" "$want" "$rc"
	[ -p out/fifo ] || fail "the FIFO is gone after the $in input"
	if [ $in = bad ]; then
		[ ! -s got.bad ] || fail "the FIFO's reader got something from a bad input"
	else
		cmp -s "ref.$in" "got.$in" || fail "the FIFO's reader did not get the $in trace"
	fi
done
no_temp "beside the FIFO" "fifo new trace"

# --- "-" ------------------------------------------------------------------
"$FREC" export --format perfetto -o - "$good" > dash.good || fail "-o - failed"
cmp -s ref.good dash.good || fail "-o - is not the trace"
"$FREC" export --format perfetto -o - "$bad" > dash.bad 2> /dev/null
assert_eq "bad input to -o -: exit" 1 "$?"
[ ! -s dash.bad ] || fail "-o - wrote something for a bad input"

# --- an unwritable directory ---------------------------------------------
pub=$(mktemp -d /tmp/frec-pub.XXXXXX)
chmod 755 "$pub"
cp "$FREC" "$good" "$pub/"
mkdir "$pub/ro"
chmod 755 "$pub/ro"
as_nobody "$pub/frec" export --format perfetto -o "$pub/ro/trace" "$pub/known.frec" > /dev/null 2> err
rc=$?
left=$(ls -A "$pub/ro")
rm -rf "$pub"
assert_eq "unwritable directory: exit" 1 "$rc"
assert_eq "unwritable directory: message" \
	"frec: cannot write $pub/ro/trace: no new file can be created in $pub/ro (Permission denied); name a file in a writable directory, or write to standard output with -o -" \
	"$(cat err)"
assert_eq "unwritable directory: nothing in it" "" "$left"
exit 0
