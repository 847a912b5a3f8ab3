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

# thread_names DUMP TID NAME: the names a `frec dump --json` gives thread
# TID, in time order, for a thread born "pingpong" (a new thread takes its
# creator's name) that renames itself NAME once. A thread may run, be
# preempted or sleep (a page fault waiting for the mmap lock) any number of
# times before it renames itself; under emulation it often does. Checks:
# exactly one task_rename of TID, from pingpong to NAME; every event that
# names TID before it (fork, wakeup_new, switches out and in, wakings,
# wakeups, migrations) says pingpong, every one after says NAME, with at
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
	awk -v tid="$2" -v new="$3" -v birth=pingpong "$jq_awk"'
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

# assert_names DUMP TID NAME: thread_names, failing the test unless ok.
assert_names() {
	r=$(thread_names "$@")
	case $r in
	ok*) note "$3 ($2): $(echo "$r" | awk '{ print $2 }') events named pingpong, then its rename, then $(echo "$r" | awk '{ print $3 }') named $3" ;;
	*) fail "names of $3 ($2): $r" ;;
	esac
}
