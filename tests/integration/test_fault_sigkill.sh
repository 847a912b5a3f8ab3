#!/bin/sh
# SIGKILL of frecd, in the middle of writing a snapshot:
#  - no BPF program or link of frecd remains: the kernel releases them with
#    its file descriptors (frecd pins nothing); the ids are frecd's own, from
#    /proc/PID/fdinfo, so other BPF users on the machine do not matter;
#  - the temporary file it was writing stays behind (when the kill lands
#    before the rename), and the next frecd on that directory removes it at
#    start, with every other file of frecd's temporary-name pattern (some
#    planted), and nothing else;
#  - the next frecd starts (the directory lock died with the first) and
#    writes valid snapshots.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/fault_lib.sh"
. "$(dirname "$FREC_TEST_LIB")/probe_lib.sh"

mkdir snaps
# An older leftover of frecd's (two names of its pattern), and files that
# are not frecd's temporary files, however close their names.
old=".frec-20200101T000000.000Z.frec.tmp"
old2=".frec-20200101T000000.000Z_03.frec.tmp"
others=".frec-notes.tmp frec-notes.frec.tmp other.tmp .frec-20200101T000000.000Z.frec .frec-20200101T000000.000Z.frec.tmp.1"
for f in "$old" "$old2" $others; do echo data > "snaps/$f"; done
chmod 0700 snaps

# Fill the window so that a snapshot takes a while to write, then kill frecd
# as soon as a snapshot's temporary file is seen. On a fast file system (a
# tmpfs) the file may live too briefly to be seen, or be renamed before the
# kill lands: after 20 snapshots frecd is killed anyway, and the planted
# leftovers stand for the real one (a leftover is a regular file with
# frecd's temporary name either way).
start_frecd -o "$WORK/snaps" --probe "func:$TARGET:frec_target_fp"
assert_eq "temporary files removed at the first start" 2 \
	"$(grep -c "frecd info: removed " "$WORK/frecd.log")"
for f in "$old" "$old2"; do [ ! -e "snaps/$f" ] || fail "$f not removed at start"; done
progs=$(frecd_ids prog_id)
links=$(frecd_ids link_id)
# the 8 scheduler programs and links, and the probe's entry and return
# (before 5.15, without BPF cookies, the probes are perf events, no links)
assert_range "programs held" 9 100 "$(echo "$progs" | grep -c .)"
case $(uname -r) in
[0-4].*|5.[0-9].*|5.1[0-4].*) assert_range "links held" 8 100 "$(echo "$links" | grep -c .)" ;;
*) assert_range "links held" 10 100 "$(echo "$links" | grep -c .)" ;;
esac
"$PROGS/pingpong" "$(scaled 200000)" < /dev/null > pp.out 2>&1 || fail "pingpong failed"
tries=0
tmp=""
while [ -z "$tmp" ] && [ $tries -lt 20 ]; do
	tries=$((tries + 1))
	before=$(grep -Ec "snapshot .*: [0-9]+ events" "$WORK/frecd.log")
	kill -USR1 "$FRECD_PID"
	while :; do
		tmp=$(ls -A snaps | grep '^\.frec-.*Z\(_[0-9][0-9]\)\?\.frec\.tmp$')
		[ -n "$tmp" ] && break
		[ "$(grep -Ec "snapshot .*: [0-9]+ events" "$WORK/frecd.log")" -gt "$before" ] && break
	done
done
kill -KILL "$FRECD_PID"
wait "$FRECD_PID"; rc=$?
FRECD_PID=""
assert_eq "exit status of a killed frecd" 137 "$rc"
assert_ids_gone "SIGKILL" "$progs" "$links"
if [ -n "$tmp" ] && [ -e "snaps/$tmp" ]; then
	note "killed during snapshot $tries, leaving $tmp ($(wc -c < "snaps/$tmp") bytes)"
else
	note "no temporary file caught in $tries snapshots (renamed before the kill); the planted ones stand in"
	tmp=""
fi

# The next frecd removes frecd's temporary files, and only those.
echo data > "snaps/$old2"
echo data > "snaps/$old"
start_frecd -o "$WORK/snaps"
for f in $tmp "$old" "$old2"; do
	[ ! -e "snaps/$f" ] || fail "$f not removed at start"
	grep -q "removed $WORK/snaps/$f, left by a frecd" "$WORK/frecd.log" || fail "removal of $f not logged"
done
removed=2
[ -n "$tmp" ] && removed=3
assert_eq "temporary files removed at the restart" $removed "$(grep -c "frecd info: removed " "$WORK/frecd.log")"
for f in $others; do
	[ -e "snaps/$f" ] || fail "$f removed, but it is not one of frecd's temporary files"
done
snap=$(snapshot "$WORK/snaps")
stop_frecd
"$FREC" info "$snap" > info.out || fail "frec info $snap failed after the restart"
assert_eq "temporary files left" "" "$(ls -A snaps | grep '^\.frec-.*\.frec\.tmp$')"
for f in snaps/frec-*.frec; do
	"$FREC" info "$f" > /dev/null 2>&1 || fail "$f, a snapshot renamed before a kill, is not valid"
done
exit 0
