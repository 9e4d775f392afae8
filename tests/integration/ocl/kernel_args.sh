#!/bin/bash
# Generated arguments of every kind reach the kernel unchanged: each test
# kernel writes its arguments back, compared with sibyl's --dump-args.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args"
CHECK=(/usr/bin/python3 "$(dirname "$0")/kernel_args_check.py")

for k in scalars vectors structs; do
	"$SIBYL" kernel "$K/$k.cl" -k $k -g 64 --seed 7 --dump-args --json > "$WORK/$k.json"
	"${CHECK[@]}" $k "$WORK/$k.json" 64
done
"$SIBYL" kernel "$K/structs.cl" -k padded -g 8 --dump-args --json > "$WORK/padded.json"
"${CHECK[@]}" padded "$WORK/padded.json" 8
"$SIBYL" kernel "$K/pointers.cl" -k pointers -g 64 -l 16 --seed 7 --dump-args --json \
	> "$WORK/pointers.json"
"${CHECK[@]}" pointers "$WORK/pointers.json" 64
"$SIBYL" kernel "$K/bools.cl" -k bools -g 64 --dump-args --json > "$WORK/bools.json"
"${CHECK[@]}" bools "$WORK/bools.json" 64

# The same seed gives the same values; another seed other values.
args_of() { json "j['samples'][0]['args']" "$1"; }
"$SIBYL" kernel "$K/scalars.cl" -k scalars -g 64 --seed 7 --dump-args --json > "$WORK/again.json"
expect_eq "same seed, same arguments" "$(args_of "$WORK/scalars.json")" "$(args_of "$WORK/again.json")"
"$SIBYL" kernel "$K/scalars.cl" -k scalars -g 64 --seed 8 --dump-args --json > "$WORK/other.json"
[ "$(args_of "$WORK/scalars.json")" != "$(args_of "$WORK/other.json")" ] ||
	fail "seeds 7 and 8 gave the same arguments"
# --elements sizes the buffers.
"$SIBYL" kernel "$K/pointers.cl" -k pointers -g 16 -l 16 --elements 32 --dump-args --json \
	> "$WORK/elements.json"
expect_eq "--elements 32" 32 "$(json "len(j['samples'][0]['args'][0]['data'])" "$WORK/elements.json")"

# -D reaches both compilers; an include next to the file is found by both.
"$SIBYL" kernel "$K/include.cl" -k scaled -g 8 -D SCALE=3 --dump-args --json > "$WORK/inc.json"
expect_eq "-D SCALE=3 and inc/scale.h" \
	"$(json "[3 * x for x in j['samples'][0]['args'][0]['data']]" "$WORK/inc.json")" \
	"$(json "j['samples'][0]['after'][1]['data']" "$WORK/inc.json")"
