#!/bin/bash
# OpenCL 1.0's atom_* builtins: the source build runs them, and so do
# the SPIR paths (--spir, -i), with the same results (instcount_e2e
# checks -i against Oclgrind on the same kernel).
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/control/legacy_atomics.cl"

for how in source --spir -i; do
	"$SIBYL" kernel "$K" -k legacy_atomics -g 128 -l 32 -A hist=zeros --seed 3 \
		--dump-args --json ${how#source} > "$WORK/$how.json"
	expect_eq "atom_* results ($how)" "[128, 470, -128, 127, -125, 255, 5, 9, -128]" \
		"$(json "j['samples'][0]['after'][0]['data'][:9]" "$WORK/$how.json")"
done
"$SIBYL" kernel "$K" -k legacy_atomics -g 128 -l 32 -i > "$WORK/i.txt"
grep -q "call _Z8atom_incPU3AS1Vi()" "$WORK/i.txt" || fail "no atom_inc call counted"
grep -q "call _Z10atomic_incPU3AS1Vi()" "$WORK/i.txt" || fail "atom_inc not by atomic_inc"

# mem_fence and its read/write forms: the same three ways, same results.
K="$SIBYL_SOURCE/tests/kernels/control/legacy_fences.cl"
for how in source --spir -i; do
	"$SIBYL" kernel "$K" -k legacy_fences -g 64 -l 16 -A flag=zeros --seed 3 \
		--dump-args --json ${how#source} > "$WORK/f$how.json"
	expect_eq "fenced results ($how)" "True [1, 1, 1]" \
		"$(json "str(all(d == 3 * i + 1 for d, i in zip(j['samples'][0]['after'][0]['data'], j['samples'][0]['after'][2]['data']))) + ' ' + str(j['samples'][0]['after'][1]['data'][:3])" "$WORK/f$how.json")"
done
"$SIBYL" kernel "$K" -k legacy_fences -g 64 -l 16 -i > "$WORK/fi.txt"
grep -q "call _Z9mem_fencej()" "$WORK/fi.txt" || fail "no mem_fence call counted"
grep -Eq "^ +192 - fence$" "$WORK/fi.txt" || fail "the fences not counted as LLVM fences"
