#!/bin/bash
# sibyl kernel --check on the device: a kernel that writes nothing or
# ignores its input is reported, exit status 7, the findings a list in
# --json; clean kernels give no finding; barrier divergence, data races
# and uninitialised reads on __local memory, races on __global memory are
# named with their lines.
# (Nondeterminism depends on the schedule: test_check covers its logic.)
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/check/outputs.cl"

check() {	# check KERNEL EXPECTED-STATUS ARGS...: run --check, its status
	local k=$1 want=$2 got=0
	shift 2
	"$SIBYL" kernel "$K" -k "$k" -g 256 -l 32 --check "$@" > "$WORK/out" 2> "$WORK/err" ||
		got=$?
	expect_eq "$k: exit status" "$want" "$got"
}

check ignores_input 7
grep -qx "kernel 'ignores_input': check: output does not depend on input: 'out' equal after seeds 0 and 1" \
	"$WORK/out" || fail "ignores_input: $(cat "$WORK/out")"
check writes_nothing 7 --json
expect_eq "writes_nothing: findings" "['no-output']" "$(json "[f['kind'] for f in j['findings']]" "$WORK/out")"
expect_eq "writes_nothing: message" "no output written: 'out' as generated after seeds 0 to 1" \
	"$(json "j['findings'][0]['message']" "$WORK/out")"
expect_eq "two samples by default" 2 "$(json "len(j['samples'])" "$WORK/out")"

# Clean kernels: no finding, status 0, an empty list in --json.
check scale 0
grep -qx "kernel 'scale': check: no finding" "$WORK/out" || fail "scale: $(cat "$WORK/out")"
"$SIBYL" kernel "$SIBYL_SOURCE/tests/kernels/control/barrier.cl" -k reduce -g 256 -l 32 --check \
	> "$WORK/out" || fail "reduce: status $?"
grep -qx "kernel 'reduce': check: no finding" "$WORK/out" || fail "reduce: $(cat "$WORK/out")"
check scale 0 --json -n 3
expect_eq "scale: findings" "[]" "$(json "j['findings']" "$WORK/out")"
# Every argument fixed: two equal inputs, nothing to compare, no finding.
check ignores_input 0 -A in=ones -A out=zeros

# Barriers not every work-item of a group reaches: PoCL crashes on
# these (status 5), the probe names the divergence.
B="$SIBYL_SOURCE/tests/kernels/check/barriers.cl"
"$SIBYL" kernel "$B" -k half_barrier -g 64 -l 16 --check > "$WORK/out" 2> "$WORK/err" ||
	expect_eq "half_barrier: exit status" 5 $?
expect_eq "half_barrier: finding" "kernel 'half_barrier': check: barrier divergence at $B:11: work-items 0 and 8 of work-group 0 reached 1 and 0 barriers (4 of 4 groups diverge)" \
	"$(cat "$WORK/out")"
"$SIBYL" kernel "$B" -k loop_barrier -g 32,2 -l 8,2 --check --json > "$WORK/out" 2> "$WORK/err" ||
	expect_eq "loop_barrier: exit status" 5 $?
expect_eq "loop_barrier: json" "crash barrier-divergence 22" \
	"$(json "j['status'] + ' ' + j['findings'][0]['kind'] + ' ' + str(j['findings'][0]['line'])" "$WORK/out")"
grep -q "work-items 0,0 and 1,0 of work-group 0 reached 0 and 1 barriers (4 of 4 groups" \
	"$WORK/out" || fail "loop_barrier: $(cat "$WORK/out")"
"$SIBYL" kernel "$B" -k uniform_barrier -g 64 -l 16 --check > "$WORK/out" ||
	fail "uniform_barrier: status $?"
grep -qx "kernel 'uniform_barrier': check: no finding" "$WORK/out" || fail "uniform_barrier"

# Without SPIR (--source-counters, or a device without cl_khr_spir) the
# barrier probe counts through the marked OpenCL C source, its barriers
# defined away: the same findings, at the same lines, as through SPIR.
"$SIBYL" kernel "$B" -k half_barrier -g 64 -l 16 --check --source-counters -v > "$WORK/out" \
	2> "$WORK/err" || expect_eq "half_barrier, source: exit status" 5 $?
expect_eq "half_barrier, source: finding" "kernel 'half_barrier': check: barrier divergence at $B:11: work-items 0 and 8 of work-group 0 reached 1 and 0 barriers (4 of 4 groups diverge)" \
	"$(cat "$WORK/out")"
grep -q "^sibyl: kernel: --check: the barrier probe counted through the marked source" \
	"$WORK/err" || fail "half_barrier, source: $(cat "$WORK/err")"
"$SIBYL" kernel "$B" -k loop_barrier -g 32,2 -l 8,2 --check --source-counters --json \
	> "$WORK/out" 2> "$WORK/err" || expect_eq "loop_barrier, source: exit status" 5 $?
expect_eq "loop_barrier, source: json" "crash barrier-divergence 22" \
	"$(json "j['status'] + ' ' + j['findings'][0]['kind'] + ' ' + str(j['findings'][0]['line'])" "$WORK/out")"
"$SIBYL" kernel "$B" -k uniform_barrier -g 64 -l 16 --check --source-counters -v > "$WORK/out" \
	2> "$WORK/err" || fail "uniform_barrier, source: status $?"
grep -qx "kernel 'uniform_barrier': check: no finding" "$WORK/out" || fail "uniform_barrier, source"
grep -q "the race probe did not run: its log needs SPIR" "$WORK/err" ||
	fail "uniform_barrier, source: $(cat "$WORK/err")"

# A device without cl_khr_spir: this runner answers the device probe as
# NVIDIA's and AMD's drivers would and refuses SPIR; --check alone then
# counts the barriers through the source.
no_spir_runner "$WORK/no-spir-runner"
SIBYL_KERNEL_RUNNER="$WORK/no-spir-runner" "$SIBYL" kernel "$B" -k data_after_half -g 64 -l 16 \
	--check -v > "$WORK/out" 2> "$WORK/err" || expect_eq "no SPIR: exit status" 5 $?
grep -q "barrier divergence at $B:72: work-items 0 and 8" "$WORK/out" ||
	fail "no SPIR: $(cat "$WORK/out") $(cat "$WORK/err")"
SIBYL_KERNEL_RUNNER="$WORK/no-spir-runner" "$SIBYL" kernel "$B" -k uniform_barrier -g 64 -l 16 \
	--check -v > "$WORK/out" 2> "$WORK/err" || fail "no SPIR, uniform_barrier: status $?"
grep -q "the barrier probe counted through the marked source" "$WORK/err" &&
	grep -q "the race probe did not run: its log needs SPIR (cl_khr_spir), which the device does not take" \
	"$WORK/err" || fail "no SPIR, uniform_barrier: $(cat "$WORK/err")"

# A __local flag decides the loop's barriers (Rodinia leukocyte): run one
# by one the work-items would not share it, so the barrier probe does
# not judge (-v says so) and the race probe runs; a branch on __local
# data that decides no barrier leaves the probe its verdict.
"$SIBYL" kernel "$B" -k local_flag -g 64 -l 16 --check -v > "$WORK/out" 2> "$WORK/err" ||
	fail "local_flag: status $?"
grep -qx "kernel 'local_flag': check: no finding" "$WORK/out" || fail "local_flag: $(cat "$WORK/out")"
grep -q "the barrier probe did not run: the branch at line 53 decides" "$WORK/err" ||
	fail "local_flag: $(cat "$WORK/err")"
grep -q "the race probe logged" "$WORK/err" || fail "local_flag: no race probe: $(cat "$WORK/err")"
# The same through a private flag set under a __local test.
"$SIBYL" kernel "$B" -k private_stop -g 64 -l 16 --check -v > "$WORK/out" 2> "$WORK/err" ||
	fail "private_stop: status $?"
grep -qx "kernel 'private_stop': check: no finding" "$WORK/out" || fail "private_stop: $(cat "$WORK/out")"
grep -q "the barrier probe did not run: the branch at line 90 decides" "$WORK/err" ||
	fail "private_stop: $(cat "$WORK/err")"
"$SIBYL" kernel "$B" -k data_after_half -g 64 -l 16 --check > "$WORK/out" 2> "$WORK/err" ||
	expect_eq "data_after_half: exit status" 5 $?
grep -q "barrier divergence at $B:72: work-items 0 and 8" "$WORK/out" ||
	fail "data_after_half: $(cat "$WORK/out")"

# The runtime's groups: which work-items go together is unknown.
"$SIBYL" kernel "$B" -k uniform_barrier -g 64 --check -v > "$WORK/out" 2> "$WORK/err" ||
	fail "no -l: status $?"
grep -q "^sibyl: kernel: --check: barriers not checked: no -l" "$WORK/err" || fail "no -l: $(cat "$WORK/err")"

# --all: the findings counted, status 7 when any.
"$SIBYL" kernel "$K" --all -g 256 -l 32 --check > "$WORK/all" 2>&1 && fail "--all: status 0"
# 2 or 3: tickets is nondeterministic only when the schedule says so.
summary=$(tail -1 "$WORK/all")
case $summary in
"$K: 4 kernels: 4 ran, 0 failed, 0 unsupported, "[23]" with findings") echo "ok: --all summary: $summary" ;;
*) fail "--all summary: $summary" ;;
esac

# __local memory (the race probe): planted data races and an
# uninitialised read named with their lines; correct reductions, scans,
# atomics and broadcasts give no finding.  (test_races: the analysis.)
K="$SIBYL_SOURCE/tests/kernels/check/local.cl"
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

# Clean: a barrier at every step, atomics on zeroed bins, one writer,
# and a helper named atom... that is no atomic.
for k in reduce scan histogram broadcast atom_named; do
	check $k 0 -v
	finding $k "no finding"
	grep -q "race probe logged the __local and __global accesses of 8 work-group(s), 0 of them cut short" \
		"$WORK/err" || fail "$k: the probe did not run: $(cat "$WORK/err")"
done

# __global memory: races within a group (no barrier, or one that fences
# __local memory only) and across groups (no barrier orders two groups),
# named with their lines; own elements, a fenced reduction in place,
# atomics and equal stores give no finding.
K="$SIBYL_SOURCE/tests/kernels/check/global.cl"
check neighbour_no_barrier 7
finding neighbour_no_barrier "data race on __global at $K:12 (write) and $K:13 (read): work-items 0 and 31 of work-group 0"
check local_fence_only 7
finding local_fence_only "data race on __global at $K:22 (write) and $K:24 (read): work-items 0 and 31 of work-group 0"
check same_slots 7
finding same_slots "data race on __global across work-groups at $K:30 (write) and $K:30 (write): work-item 0 of work-group 0 and work-item 32 of work-group 1"
check halo_across_groups 7 --json
expect_eq "halo_across_groups: json" "data-race global [40, 42] [0, 7]" \
	"$(json "' '.join(str(j['findings'][0][k]) for k in ('kind', 'memory', 'lines', 'groups'))" "$WORK/out")"
for k in own_element global_reduce atomic_total; do
	check $k 0
	finding $k "no finding"
done
# A log cut short is said, -v or not: 8 groups of 32 work-items reading
# 8192 elements each, more than a group's 2^17 entries.
check read_all 0 -A n=8192
finding read_all "no finding"
grep -q "^sibyl: kernel: --check: the race probe's log was cut short in 8 of 8 work-group(s)" \
	"$WORK/err" || fail "read_all: $(cat "$WORK/err")"
K="$SIBYL_SOURCE/tests/kernels/check/outputs.cl"

# Past a buffer's end: --check fences every buffer (the probes' too), so
# the read faults at once and by name, in the probe and in the run, on
# every run (unfenced it corrupted the runner's heap: Rodinia myocyte
# aborted in malloc now and then, its verdict changing from run to run).
P="$SIBYL_SOURCE/tests/kernels/args/bounds.cl"
for i in 1 2; do
	rc=0
	"$SIBYL" kernel "$P" -k past_end -g 1024 --no-infer --check -v > "$WORK/out" 2> "$WORK/err" ||
		rc=$?
	expect_eq "past_end, run $i: exit status" 5 "$rc"
	expect_eq "past_end, run $i: the probe and the run" "2" \
		"$(grep -c "crashed (signal 11) with seed 0 (gsize 1024): it read or wrote past the end of 'in'$" "$WORK/err")"
	grep -q "^sibyl: kernel: --check: the race probe did not run: kernel past_end crashed" \
		"$WORK/err" || fail "past_end: the probe: $(cat "$WORK/err")"
done
rc=0
"$SIBYL" kernel "$P" -k past_end -g 1024 --no-infer --check --json > "$WORK/out" 2> "$WORK/err" ||
	rc=$?
expect_eq "past_end --json" "5 crash kernel past_end crashed (signal 11) with seed 0 (gsize 1024): it read or wrote past the end of 'in'" \
	"$rc $(json "j['status'] + ' ' + j['message']" "$WORK/out")"

# Far past the end and before the start: 64 MiB of inaccessible address
# space on each side catch these too (Rodinia's GICOV_kernel and
# b+tree's findRangeK index so, and aborted in malloc now and then).
cat > "$WORK/far.cl" <<'CL'
__kernel void far_past(__global const float *in, __global float *out)
{
	size_t g = get_global_id(0);
	out[g] = in[g + 100000];
}
__kernel void before_start(__global const float *in, __global float *out)
{
	size_t g = get_global_id(0);
	out[g] = in[(long)g - 5000];
}
CL
for kw in "far_past:past the end" "before_start:before the start"; do
	rc=0
	"$SIBYL" kernel "$WORK/far.cl" -k "${kw%%:*}" -g 1024 --no-infer --check 2> "$WORK/err" || rc=$?
	expect_eq "${kw%%:*}" "5 sibyl: kernel ${kw%%:*} crashed (signal 11) with seed 0 (gsize 1024): it read or wrote ${kw#*:} of 'in'" \
		"$rc $(sort -u "$WORK/err")"
done

# Usage: not with a sweep, --static or -o.
check scale 2 -g 64:128:64
grep -q "check runs one global size" "$WORK/err" || fail "sweep: $(cat "$WORK/err")"
check scale 2 --static
exit 0
