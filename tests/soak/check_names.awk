# Check the thread names of `frec dump` text against pidchurn's log
# (tests/progs/pidchurn.c), for soak.sh --pid-wrap.
#
#   awk -f check_names.awk [-v slack_ns=N] [-v show=N] CHURN_LOG DUMPS
#
# CHURN_LOG: pidchurn's "C PID SEQ KIND J T0 T1" lines, sorted by PID then
# T0 (sort -k2,2n -k6,6n). DUMPS: the text of `frec dump` of each snapshot,
# oldest first, each after a line "#snapshot FILE". Snapshots overlap: an
# event is counted once, in the first snapshot that has it (its ts is past
# every ts checked before), but every event updates what the child has
# shown so far.
#
# An event names a churned thread when its pid was child SEQ's at its ts
# (T0 <= ts <= T1 + slack_ns: the final switch away from a dead child may
# come just after its parent reaped it; a pid comes back only after a wrap,
# far later). That child may carry, in this order, only:
#   kind c: pchurnJ (its parent's name, until its rename), cSEQ
#   kind x: pchurnJ, eSEQ, pidchurn (the exec), xSEQ
# Anything else is a wrong name (an earlier owner's, say); a name earlier
# in the list than one already shown is a stale name. "<...>" (no name) is
# counted apart. Events of a pid outside any child's life are other
# processes' and not checked.
#
# Prints "mismatch: ..." for the first 20 (show) wrong or stale names, then one line:
#   names: snapshots S events E names N mismatches M unnamed U other O span_s X
function stage(e, name,    k, s) {
	k = KIND[e]; s = SEQ[e]
	if (name == "pchurn" J[e]) return 0
	if (k == "c") return name == "c" s ? 1 : -1
	if (name == "e" s) return 1
	if (name == "pidchurn") return 2
	if (name == "x" s) return 3
	return -1
}
function chk(pid, name,    c, e, st) {
	if (!(pid in N)) return 0
	c = (pid in CUR) ? CUR[pid] : 1
	while (c < N[pid] && T0[pid, c + 1] <= ts) c++
	CUR[pid] = c
	e = pid SUBSEP c
	if (T0[e] > ts || ts > T1[e] + slack_ns) { if (count) other++; return 0 }
	if (name == "<...>") { if (count) unnamed++; return 1 }
	st = stage(e, name)
	if (count) names++
	if (st < 0 || ((e in MAXST) && st < MAXST[e])) {
		if (count) {
			mism++
			if (mism <= show)
				printf "mismatch: %s %s pid %s named %s, but child %s (kind %s of pchurn%s, pid from %.9f to %.9f) %s\n",
					$1, $3, pid, name, SEQ[e], KIND[e], J[e], T0[e] / 1e9, T1[e] / 1e9,
					st < 0 ? "never had that name" : "had already shown a later name"
		}
		return 1
	}
	if (!(e in MAXST) || st > MAXST[e]) MAXST[e] = st
	return 1
}
BEGIN { if (slack_ns == "") slack_ns = 20000000; if (show == "") show = 20; after = -1 }
FILENAME == ARGV[1] {
	if ($1 != "C") next
	i = ++N[$2]
	T0[$2, i] = $6 + 0; T1[$2, i] = $7 + 0
	SEQ[$2, i] = $3; KIND[$2, i] = $4; J[$2, i] = $5
	next
}
/^#dump-failed / { print "dump failed: " $2; next }
/^#snapshot / {
	# time starts again: where each pid's child is, and what it showed
	for (p in CUR) delete CUR[p]
	for (e in MAXST) delete MAXST[e]
	if (maxts > after) after = maxts
	nsnap++
	next
}
{
	split($1, tsp, ".")
	ts = tsp[1] * 1000000000 + tsp[2]
	count = ts > after
	if (count && ts > maxts) maxts = ts
	if (count && (first == "" || ts < first)) first = ts
	delete kv
	for (f = 4; f <= NF; f++) {
		eq = index($f, "=")
		if (eq) kv[substr($f, 1, eq - 1)] = substr($f, eq + 1)
	}
	t = $3; hit = 0
	if (t == "sched_switch") {
		hit += chk(kv["prev_pid"], kv["prev_comm"])
		hit += chk(kv["next_pid"], kv["next_comm"])
	} else if (t == "sched_process_fork") {
		hit += chk(kv["parent_pid"], kv["parent_comm"])
		hit += chk(kv["child_pid"], kv["child_comm"])
	} else if (t == "task_rename") {
		hit += chk(kv["pid"], kv["oldcomm"])
	} else if (t ~ /^sched_(waking|wakeup|wakeup_new|process_exec|process_exit|migrate_task)$/ || t == "cgroup") {
		hit += chk(kv["pid"], kv["comm"])
	}
	if (count && hit) events++
}
END {
	printf "names: snapshots %d events %d names %d mismatches %d unnamed %d other %d span_s %.1f\n",
		nsnap, events, names, mism, unnamed, other, first == "" ? 0 : (maxts - first) / 1e9
}
