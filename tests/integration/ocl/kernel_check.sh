#!/bin/bash
# sibyl kernel --check on the device: a kernel that writes nothing or
# ignores its input is reported, exit status 7, the findings a list in
# --json; clean kernels give no finding.  (Nondeterminism depends on the
# schedule: test_check covers its logic.)
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

# The runtime's groups: which work-items go together is unknown.
"$SIBYL" kernel "$B" -k uniform_barrier -g 64 --check -v > "$WORK/out" 2> "$WORK/err" ||
	fail "no -l: status $?"
grep -q "^sibyl: kernel: --check: barriers not checked: no -l" "$WORK/err" || fail "no -l: $(cat "$WORK/err")"

# --all: the findings counted, status 7 when any.
"$SIBYL" kernel "$K" --all -g 256 -l 32 --check > "$WORK/all" 2>&1 && fail "--all: status 0"
expect_eq "--all summary" "$K: 4 kernels: 4 ran, 0 failed, 0 unsupported, 2 with findings" \
	"$(tail -1 "$WORK/all")"

# Usage: not with a sweep, --static or -o.
check scale 2 -g 64:128:64
grep -q "check runs one global size" "$WORK/err" || fail "sweep: $(cat "$WORK/err")"
check scale 2 --static
exit 0
