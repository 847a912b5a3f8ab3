#!/bin/sh
# -p PID keeps only the events that concern that process and its threads:
# two identical workloads run, frecd follows one; the snapshot holds the
# followed one's switches and wakeups and nothing about the other.
. "$FREC_TEST_LIB"
. "$(dirname "$FREC_TEST_LIB")/sched_lib.sh"

pid_filter_pair
mkdir snaps
# -p takes a thread id too: it means the thread's process.
start_frecd -o "$WORK/snaps" -p "$(field a.out ping)"
grep -q "filtered by -p" "$WORK/frecd.log" || fail "the ready line does not mention the filter"
pid_filter_check
exit 0
