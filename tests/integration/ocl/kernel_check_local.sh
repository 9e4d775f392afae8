#!/bin/bash
# sibyl kernel --check on __local memory: planted data races and an
# uninitialised read are named with their source lines, exit status 7;
# correct reductions, scans, atomics and broadcasts give no finding.
# (test_races covers the log's analysis on its own.)
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/check/local.cl"

check() {	# check KERNEL EXPECTED-STATUS ARGS...: run --check, its status
	local k=$1 want=$2 got=0
	shift 2
	"$SIBYL" kernel "$K" -k "$k" -g 128 -l 32 --check "$@" > "$WORK/out" 2> "$WORK/err" ||
		got=$?
	expect_eq "$k: exit status" "$want" "$got"
}
finding() {	# finding KERNEL LINE: the first check line of the output
	expect_eq "$1" "kernel '$1': check: $2" "$(grep -m1 "check:" "$WORK/out")"
}

check neighbour_race 7
finding neighbour_race "data race on __local at $K:12 (read) and $K:11 (write): work-items 0 and 1 of work-group 0"
check same_slot 7
finding same_slot "data race on __local at $K:20 (write) and $K:20 (write): work-items 0 and 1 of work-group 0"
check upper_half 7
finding upper_half "uninitialised read of __local at $K:33 (read): work-item 0 of work-group 0 reads what nothing wrote"
check reduce_no_barrier 7 --json
expect_eq "reduce_no_barrier: json" "data-race [46, 46]" \
	"$(json "j['findings'][0]['kind'] + ' ' + str(j['findings'][0]['lines'])" "$WORK/out")"
# In a helper the kernel calls with its __local pointer.
check helper_race 7
finding helper_race "data race on __local at $K:53 (write) and $K:53 (write): work-items 0 and 1 of work-group 0"
# Two dimensions: work-items named by their global ids.
"$SIBYL" kernel "$K" -k same_slot -g 8,4 -l 4,2 --check > "$WORK/out" 2>&1 &&
	fail "same_slot 2-D: status 0"
finding same_slot "data race on __local at $K:20 (write) and $K:20 (write): work-items 0,0 and 1,0 of work-group 0"

# Clean: a barrier at every step, atomics on zeroed bins, one writer.
for k in reduce scan histogram broadcast; do
	check $k 0 -v
	finding $k "no finding"
	grep -q "race probe logged the __local accesses of 4 work-group(s), 0 of them cut short" \
		"$WORK/err" || fail "$k: the probe did not run: $(cat "$WORK/err")"
done

# A kernel without __local memory runs no probe.
"$SIBYL" kernel "$SIBYL_SOURCE/tests/kernels/check/outputs.cl" -k scale -g 64 -l 16 --check -v \
	> "$WORK/out" 2> "$WORK/err" || fail "scale: status $?"
grep -q "race probe" "$WORK/err" && fail "scale: a race probe ran"
exit 0
