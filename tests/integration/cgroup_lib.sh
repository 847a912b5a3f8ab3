# Helpers for the cgroup tests (test_cgroup_*.sh); sourced after sched_lib.sh.
# POSIX sh and busybox tools only.
#
# The test cgroups are made at the root of the v2 hierarchy (exempt from the
# no-internal-process rule, so whole processes can be moved in through
# cgroup.procs): on a hybrid host that is /sys/fs/cgroup/unified, in the
# kernel VM /sys/fs/cgroup. The EXIT trap moves what is left in them back to
# the root and removes them.

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG" ] || skip "no cgroup2 hierarchy mounted"
[ -w "$CG/cgroup.procs" ] || skip "cannot move processes in $CG"

# Every test cgroup is named frec-it.$$.NAME, so that the cleanup finds
# them all: cg_make runs in a command substitution, whose variables are lost.
cg_cleanup() {
	for d in "$CG"/frec-it.$$.*; do
		[ -d "$d" ] || continue
		# a process that is exiting may still be listed: try a few times
		i=0
		while [ -s "$d/cgroup.procs" ] && [ $i -lt 50 ]; do
			while read -r p; do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done < "$d/cgroup.procs"
			sleep 0.1; i=$((i + 1))
		done
		rmdir "$d" 2>/dev/null || echo "# could not remove $d" >&2
	done
}
trap 'for p in $SCHED_PIDS; do kill "$p" 2>/dev/null; done; cleanup_frecd; cg_cleanup' EXIT

# cg_make NAME: make $CG/frec-it.PID.NAME; print the path frecd gives it
# (as /proc/PID/cgroup shows it at the root: /frec-it.PID.NAME).
cg_make() {
	d="$CG/frec-it.$$.$1"
	mkdir "$d" || fail "mkdir $d"
	echo "/frec-it.$$.$1"
}

# cg_dir PATH: the directory of the cgroup at PATH.
cg_dir() { echo "$CG$1"; }

# cg_id PATH: the cgroup's id, its directory's inode number.
cg_id() { stat -c %i "$CG$1"; }

# cg_of PID: the v2 path /proc/PID/cgroup gives (its 0:: line).
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }

# sh -c "$IN_CGROUP" DIR PROG ARGS...: exec PROG ARGS in the cgroup at DIR
# (the shell moves itself first, so that PROG, as the same process, and
# every thread it makes start there). $! of it in the background is PROG's.
IN_CGROUP='echo $$ > "$0/cgroup.procs" && exec "$@"'

# switch_cgroups DUMP TID: the cgroup paths the dump gives thread TID at each
# switch out and in, one a line, in time order.
switch_cgroups() {
	awk -v tid="$2" "$jq_awk"'
	jget($0, "type") == "sched_switch" {
		if (jget($0, "prev_pid") == tid) print jget($0, "prev_cgroup")
		if (jget($0, "next_pid") == tid) print jget($0, "next_cgroup")
	}' "$1"
}
