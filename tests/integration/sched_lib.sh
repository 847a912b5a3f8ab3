# Helpers for the scheduler tests that follow pingpong's threads
# (test_sched_*.sh); sourced after "$FREC_TEST_LIB". POSIX sh and busybox
# tools only. Every wait here is bounded and fails naming what it waited for.

# Processes a test started and must not leave behind: killed on exit.
SCHED_PIDS=""
trap 'for p in $SCHED_PIDS; do kill "$p" 2>/dev/null; done; cleanup_frecd' EXIT

# gone PID: PID has exited (a zombie not yet waited for counts as exited).
gone() {
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	case ${s%% *} in ''|Z|X) return 0 ;; esac
	return 1
}

# wait_gone PID WHAT: wait at most 60 s for PID, a child of the test, to
# exit; then return its exit status. On time out, print the state and wait
# channel of each of its threads and fail. Not a timed assertion: the limit
# only keeps a hung process from hanging the test until the run's limit.
wait_gone() {
	i=0
	while ! gone "$1"; do
		if [ $i -ge 600 ]; then
			for t in /proc/"$1"/task/*; do
				echo "# $2: thread ${t##*/} state $(sed 's/.*) //; s/ .*//' "$t/stat" 2>/dev/null), in $(cat "$t/wchan" 2>/dev/null)" >&2
			done
			fail "$2 (pid $1) has not exited 60 s after it was told to"
		fi
		sleep 0.1; i=$((i + 1))
	done
	SCHED_PIDS=$(echo " $SCHED_PIDS " | sed "s/ $1 / /")
	wait "$1"
}

# frecd_stop: lib.sh's stop_frecd with a bounded wait: SIGTERM, frecd must
# exit within 60 s, and with 0.
frecd_stop() {
	kill -TERM "$FRECD_PID" || fail "frecd is not running"
	wait_gone "$FRECD_PID" "frecd, after SIGTERM"; rc=$?
	FRECD_PID=""
	[ $rc -eq 0 ] || { cat "$WORK/frecd.log" >&2; fail "frecd exited $rc on SIGTERM"; }
}

# thread_names DUMP TID NAME [BIRTH]: the names a `frec dump --json` gives
# thread TID, in time order, for a thread born BIRTH ("pingpong": a new
# thread takes its creator's name) that is renamed NAME once. A thread may run, be
# preempted or sleep (a page fault waiting for the mmap lock) any number of
# times before it renames itself; under emulation it often does. Checks:
# exactly one task_rename of TID, from BIRTH to NAME; every event that
# names TID before it (fork, wakeup_new, switches out and in, wakings,
# wakeups, migrations) says BIRTH, every one after says NAME, with at
# least one on each side. Prints "ok BEFORE AFTER" (the counts of such
# events) or the first event that breaks the rule.
#
# frec's reader names a thread from its generation's task table and the
# rename events, in time order, so "before" and "after" split exactly at the
# rename event. The kernel's records agree: __set_task_comm() copies the new
# name under task_lock, so the thread cannot be switched out between the
# tracepoint and the copy. Since 6.13 ("exec: Make sure task->comm is always
# NUL-terminated") the copy is lockless, and a preemptible kernel can switch
# the thread out in between, with the old name, until it runs again; the
# dump shows that only if a generation starts inside that window, since a
# generation names each thread after its first record.
thread_names() {
	awk -v tid="$2" -v new="$3" -v birth="${4:-pingpong}" "$jq_awk"'
	function seen(name) {
		if (renames) after++; else before++
		if (name != (renames ? new : birth)) {
			printf "%s its rename, %s names it %s: %s\n",
				renames ? "after" : "before", type, name, $0
			bad = 1; exit
		}
	}
	{
		type = jget($0, "type")
		if (type == "task_rename") {
			if (jget($0, "pid") != tid) next
			if (++renames > 1 || jget($0, "oldcomm") != birth || jget($0, "newcomm") != new) {
				printf "task_rename %d: %s\n", renames, $0
				bad = 1; exit
			}
		} else if (type == "sched_switch") {
			if (jget($0, "prev_pid") == tid) seen(jget($0, "prev_comm"))
			if (jget($0, "next_pid") == tid) seen(jget($0, "next_comm"))
		} else if (type == "sched_process_fork") {
			if (jget($0, "child_pid") == tid) seen(jget($0, "child_comm"))
		} else if (jget($0, "pid") == tid && jget($0, "comm") != "\001") {
			seen(jget($0, "comm"))
		}
	}
	END {
		if (bad) exit
		if (renames != 1) print renames " task_rename events"
		else if (!before || !after) print before " events before the rename, " after " after"
		else print "ok " before " " after
	}' "$1"
}

# assert_names DUMP TID NAME [BIRTH]: thread_names, failing the test unless ok.
assert_names() {
	r=$(thread_names "$@")
	case $r in
	ok*) note "$3 ($2): $(echo "$r" | awk '{ print $2 }') events named ${4:-pingpong}, then its rename, then $(echo "$r" | awk '{ print $3 }') named $3" ;;
	*) fail "names of $3 ($2): $r" ;;
	esac
}

# wake_pairs DUMP TID: check, in time order, that the thread's sched_waking
# and sched_wakeup events alternate, starting with a waking and ending with a
# wakeup. Prints "ok N" (N pairs) or the first event that breaks the rule.
#
# What the kernel guarantees (try_to_wake_up(), kernel/sched/core.c, 6.1 and
# later): sched_waking is emitted only once the sleeping task's state has
# matched, under p->pi_lock, and that same call moves the task to
# TASK_WAKING or TASK_RUNNING, so no other waking can match before the task
# has had its wakeup and set a sleeping state again. From there every path
# ends in ttwu_do_wakeup(), which emits sched_wakeup: at once (the task was
# still on a runqueue: ttwu_runnable(); the task woke itself, p == current),
# or after the enqueue, on the waker's CPU (ttwu_queue()) or later on the
# task's CPU from its wake list (ttwu_queue_wakelist(), sched_ttwu_pending(),
# by IPI or from the idle loop). And the task cannot run before its
# sched_wakeup. So one waking, then its wakeup, then the next waking.
#
# A snapshot keeps that only when it holds the thread's whole life and the
# thread's last wakeup happened before the snapshot: the tests start the
# thread after frecd is ready (every program attached), keep frecd's window
# longer than the test, and take the snapshot once the thread blocks for
# good with no waker left, after a wakeup that let it run. Otherwise the rule
# can break at the edges: an evicted first generation can take a waking and
# leave its wakeup (a wakeup comes first), and a waking just before the
# snapshot can have its wakeup, from another CPU's wake list, after the seal
# (a waking comes last). And frec must lose none of them: a failed ring
# reserve is counted as lost (the tests require none); the kernel also skips
# a program, counting it only in the program's recursion_misses, when it
# fires while the same program runs on that CPU (an interrupt during
# sched_wakeup's program where it runs with interrupts on, p == current),
# which has not been seen in any run of these tests.
wake_pairs() {
	awk -v tid="$2" "$jq_awk"'
	{ type = jget($0, "type") }
	(type != "sched_waking" && type != "sched_wakeup") || jget($0, "pid") != tid { next }
	type == "sched_waking" {
		if (open) { print "a second sched_waking before a sched_wakeup: " $0; bad = 1; exit }
		open = 1; n++; next
	}
	{
		if (!open) { print "a sched_wakeup without a sched_waking before it: " $0; bad = 1; exit }
		open = 0
	}
	END {
		if (bad) exit
		if (open) print "the last sched_waking has no sched_wakeup"
		else print "ok " n + 0
	}' "$1"
}

# Two identical workloads for the -p tests, one followed (test_sched_pid_filter,
# test_trigger_reload_pids). pid_filter_pair starts pingpongs a and b, ready
# and waiting ($a, $b: their pids); start frecd following a, then
# pid_filter_check runs both and checks that the snapshot holds a's switches
# and wakeups and nothing about b (a reload's gap aside), and that frecd
# counted what it filtered out.
pid_filter_pair() {
	# Every wait is bounded and says what it waited for (sched_lib.sh): the
	# fifos are opened read-write first (Linux never blocks that open, whereas a
	# write-only open waits for a reader, forever if a pingpong never starts);
	# the pingpongs do not inherit the test's ends (3>&- 4>&-), so they see EOF
	# when the test closes them; a process that should exit gets 60 s.
	n=$(scaled 500)
	mkfifo ina inb
	exec 3<> ina 4<> inb
	"$PROGS/pingpong" -w "$n" < ina > a.out 3>&- 4>&- &
	pa=$!
	"$PROGS/pingpong" -w "$n" < inb > b.out 3>&- 4>&- &
	pb=$!
	SCHED_PIDS="$SCHED_PIDS $pa $pb"
	wait_for a.out '^pong ' "pingpong a ready"
	wait_for b.out '^pong ' "pingpong b ready"
	a=$(field a.out pid)
	b=$(field b.out pid)
}

pid_filter_check() {
	echo go >&3
	echo go >&4
	wait_for a.out '^done ' "pingpong a done"
	wait_for b.out '^done ' "pingpong b done"
	snap=$(snapshot "$WORK/snaps")
	exec 3>&- 4>&-
	wait_gone "$pa" "pingpong a, its stdin closed" || fail "pingpong a failed"
	wait_gone "$pb" "pingpong b, its stdin closed" || fail "pingpong b failed"
	frecd_stop
	dump_json "$snap" dump.json

	tids_a="$a $(field a.out ping) $(field a.out pong)"
	tids_b="$b $(field b.out ping) $(field b.out pong)"
	# followed: both threads' switches and wakeups are there
	for t in ping pong; do
		tid=$(field a.out $t)
		[ "$(jcount dump.json type=sched_switch prev_pid="$tid")" -gt 0 ] || fail "no switch of a's $t"
		[ "$(jcount dump.json type=sched_waking pid="$tid")" -gt 0 ] || fail "no waking of a's $t"
	done
	# every event concerns a: a switch has a's thread on one side, any other
	# event names one of a's threads as its pid
	bad=$(awk -v a="$tids_a" "$jq_awk"'
		BEGIN { split(a, t, " "); for (i in t) keep[t[i]] = 1 }
		{
			type = jget($0, "type")
			if (type == "sched_switch")
				ok = (jget($0, "prev_pid") in keep) || (jget($0, "next_pid") in keep)
			else if (type == "sched_process_fork")
				ok = (jget($0, "parent_pid") in keep) || (jget($0, "child_pid") in keep)
			else if (type == "lost" || type == "gap")
				ok = 1
			else
				ok = jget($0, "pid") in keep
			if (!ok) { print; exit }
		}' dump.json)
	[ -z "$bad" ] || fail "an event that does not concern $a: $bad"
	# b's threads appear only on the other side of a switch with one of a's
	for tid in $tids_b; do
		assert_eq "wakings of b's $tid" 0 "$(jcount dump.json type=sched_waking pid="$tid")"
	done
	b_alone=$(($(jcount dump.json type=sched_switch prev_pid="$(field b.out ping)") + \
		$(jcount dump.json type=sched_switch prev_pid="$(field b.out pong)")))
	note "switches from b's ping and pong (to one of a's threads): $b_alone"
	filtered=$(sed -n 's/.* lost, \([0-9]*\) filtered out.*/\1/p' "$WORK/frecd.log")
	[ "${filtered:-0}" -gt 0 ] || fail "frecd counted no filtered events"
}
