# Helpers for the v1 cgroup tests (test_cgroup_v1*.sh); sourced after
# lib.sh. POSIX sh and busybox tools only.

# v1_pids_mount: mount a v1 pids hierarchy on $WORK/pids (on a host that
# has one, the same hierarchy again), or skip where no v1 hierarchy can have
# the pids controller. The caller's EXIT trap unmounts it.
v1_pids_mount() {
	_cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	if [ -n "$_cg2" ] && grep -qw pids "$_cg2/cgroup.subtree_control" 2>/dev/null; then
		skip "pids is a v2 controller here (in $_cg2/cgroup.subtree_control): no v1 hierarchy can have it"
	fi
	mkdir "$WORK/pids" || fail "mkdir $WORK/pids"
	mount -t cgroup -o pids frec-pids "$WORK/pids" 2>/dev/null || skip "cannot mount a v1 pids hierarchy"
}
