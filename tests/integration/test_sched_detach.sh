#!/bin/sh
# After SIGTERM frecd exits 0 and none of its BPF programs or links remains,
# whichever attach path it took. The ids come from frecd's own file
# descriptors (/proc/PID/fdinfo), so that other BPF users on the machine (or
# another frecd) do not matter.
. "$FREC_TEST_LIB"

for attach in auto raw_tp; do
	mkdir "snaps-$attach"
	start_frecd -o "$WORK/snaps-$attach" --attach "$attach"
	progs=$(frecd_ids prog_id)
	links=$(frecd_ids link_id)
	note "attach $attach: programs $(echo $progs), links $(echo $links)"
	# The 8 default tracepoints, one program and one link each.
	assert_eq "links ($attach)" 8 "$(echo "$links" | grep -c .)"
	assert_eq "programs ($attach)" 8 "$(echo "$progs" | grep -c .)"
	if command -v bpftool > /dev/null; then
		for id in $progs; do
			bpftool prog show id "$id" | grep -q "name frec_" ||
				fail "program $id is not one of frec's"
		done
	fi
	for id in $progs; do ! bpf_gone prog "$id" || fail "program $id is not loaded while frecd runs"; done
	stop_frecd
	# The kernel frees a program once its last fd and link are closed, after
	# an RCU grace period: give it a moment (not a timed assertion).
	for id in $progs; do eventually bpf_gone prog "$id" || fail "program $id left behind after SIGTERM ($attach)"; done
	for id in $links; do eventually bpf_gone link "$id" || fail "link $id left behind after SIGTERM ($attach)"; done
	grep -q "stopped" "$WORK/frecd.log" || fail "no 'stopped' line in the log"
done
exit 0
