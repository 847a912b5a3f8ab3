#!/bin/sh
# frecd runs as root and writes where it is told; what it creates is private
# and a symbolic link planted by someone who can write in the directory
# cannot redirect a write:
#  - the directory it creates is 0700, its snapshots are 0600 regular files;
#  - at start it refuses (exit 2, one line naming the directory, the cause and
#    the fix) a directory writable by group or others (sticky or not), one
#    owned by another user, a symbolic link, and one another frecd uses;
#    and it creates nothing in them;
#  - symbolic links planted at every name its next snapshot could take, at
#    the temporary name (to a file that does not exist: O_CREAT alone would
#    create it) or at the final name (to an existing file: a rename would
#    replace the link): the snapshot goes to the next free name (_01), a
#    regular 0600 file, and neither link target is created or changed.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/fault_lib.sh"

# refused DIR LINE: frecd -o DIR exits 2 printing exactly LINE, and leaves
# nothing in DIR.
refused() {
	before=$(ls -A "$1" 2>/dev/null | wc -l)
	"$FRECD" -o "$1" > out 2> err
	rc=$?
	[ "$rc" -eq 2 ] || { cat err >&2; fail "frecd -o $1: exit $rc, expected 2"; }
	[ "$(wc -l < err)" -eq 1 ] || { cat err >&2; fail "frecd -o $1: expected one line on stderr"; }
	assert_eq "frecd -o $1" "$2" "$(cat err)"
	assert_eq "files frecd left in refused $1" "$before" "$(ls -A "$1" 2>/dev/null | wc -l)"
}

# --- what frecd creates ---------------------------------------------------------
umask 000	# frecd must not depend on the umask it inherits
start_frecd -o "$WORK/new"
umask 022
assert_eq "mode of the directory frecd creates" drwx------ "$(ls -ld new | cut -c1-10)"
snap=$(snapshot "$WORK/new")
assert_eq "mode of a snapshot" -rw------- "$(ls -l "$snap" | cut -c1-10)"
assert_eq "owner of a snapshot" "0" "$(stat -c %u "$snap")"

# --- refused at start -------------------------------------------------------------
refused "$WORK/new" "frecd: -o $WORK/new: another frecd writes its snapshots there; stop it or choose another -o"
stop_frecd
for mode in 0777 1777 0770 0722; do
	mkdir "m$mode"
	chmod "$mode" "m$mode"
	refused "$WORK/m$mode" "frecd: -o $WORK/m$mode: writable by group or others (mode $mode), who could plant or swap files there; chmod go-w $WORK/m$mode or choose another -o"
done
mkdir nobody
chmod 0700 nobody
chown 65534:65534 nobody
refused "$WORK/nobody" "frecd: -o $WORK/nobody: owned by uid 65534, not by root, so its owner can replace the snapshots; chown root $WORK/nobody or choose another -o"
ln -s "$WORK/new" link
refused "$WORK/link" "frecd: -o $WORK/link: is a symbolic link, which frecd does not follow; give the directory itself (e.g. -o \"\$(realpath $WORK/link)\")"
refused "$WORK/link/" "frecd: -o $WORK/link: is a symbolic link, which frecd does not follow; give the directory itself (e.g. -o \"\$(realpath $WORK/link)\")"

# --- symbolic links at the names of the next snapshot -------------------------------
# On a tmpfs: 10000 symbolic links take milliseconds there, seconds on a
# busy disk file system.
mkdir snaps
mount -t tmpfs -o size=64m,mode=0700 frec-test "$WORK/snaps" || fail "cannot mount a tmpfs"
trap '[ -n "$FRECD_PID" ] && kill -CONT "$FRECD_PID" 2>/dev/null; cleanup_frecd; umount "$WORK/snaps" 2>/dev/null' EXIT
echo "precious" > victim
start_frecd -o "$WORK/snaps"
written=0
for kind in temp final; do
	if [ $kind = temp ]; then target="$WORK/created-through-link"; else target="$WORK/victim"; fi
	tries=0
	while :; do
		tries=$((tries + 1))
		[ $tries -le 5 ] || fail "$kind: no snapshot taken while the links stood, in 5 tries"
		# 10 s of names from now; the snapshot below is normally taken
		# well within them, but a busy machine may take longer: then
		# its name is past the last link, and it is tried again.
		"$PROGS/plant_links" "$WORK/snaps" $kind "$target" 10 > planted || fail "plant_links failed"
		kill -USR1 "$FRECD_PID"
		written=$((written + 1))
		wait_count "$WORK/frecd.log" "snapshot .*: [0-9]+ events" $written "the snapshot among $kind links"
		name=$(sed -n 's/.*snapshot .*\/\(frec-[^/]*\.frec\): [0-9]* events.*/\1/p' "$WORK/frecd.log" | tail -n 1)
		note "$kind: $(cat planted); the snapshot is $name"
		last=$(awk '{ print $4 }' planted)
		case $name in
		frec-*Z_01.frec) break ;;
		esac
		awk -v n="$name" -v l="frec-$last" 'BEGIN { exit !(n > l) }' ||
			fail "$kind: snapshot $name took a name where a link stood (links up to $last)"
		find snaps -type l -delete
	done
	[ -f "snaps/$name" ] && [ ! -L "snaps/$name" ] || fail "$kind: snaps/$name is not a regular file"
	assert_eq "$kind: mode of $name" -rw------- "$(ls -l "snaps/$name" | cut -c1-10)"
	"$FREC" info "snaps/$name" > /dev/null || fail "$kind: frec info $name failed"
	[ ! -e created-through-link ] || fail "$kind: a file was created through a planted link"
	assert_eq "$kind: the existing link target" "precious" "$(cat victim)"
	# the planted link at attempt 0's name is still a link, untouched
	planted=${name%_01.frec}.frec
	[ $kind = temp ] && planted=".$planted.tmp"
	[ -L "snaps/$planted" ] || fail "$kind: the planted link $planted was replaced"
	find snaps -type l -delete
done
stop_frecd
umount "$WORK/snaps"
assert_eq "failed snapshots" 0 "$(grep -c "snapshot[^;]* failed:" "$WORK/frecd.log")"
exit 0
