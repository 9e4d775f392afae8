#!/bin/bash
# Sizes the IR shows: scalars that are strides, offsets, scaled bounds
# or lengths counted down, and buffers of indices, get values that keep
# every access inside its buffers; buffers whose accesses reach further
# under the launch (constant blocks, loops of constant trips) get that
# long.  With random values (--no-infer) each kernel below crashes under
# --fence within 4 samples; clear_tiles, copy_rows and planes crashed
# with the sizes alone, before the buffers' lengths were bounded.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/sizes/inferred.cl"
inferred() {	# inferred FILE NAME FIELD: what --json says of one argument
	json "[a.get('$3') for a in j['inferred'] if a['name'] == '$2']" "$1"
}

crash_then_run() {	# crash_then_run NAME OPTIONS...: random crashes, inferred runs
	local k=$1 status=0
	shift
	"$SIBYL" kernel "$K" -k "$k" "$@" -n 4 --fence --no-infer > /dev/null 2>&1 || status=$?
	expect_eq "$k crashes with random arguments" 5 "$status"
	status=0
	"$SIBYL" kernel "$K" -k "$k" "$@" -n 4 --fence > /dev/null 2>&1 || status=$?
	expect_eq "$k runs with inferred arguments" 0 "$status"
}

for k in row_sums row_sums24 shifted gather clear_blocks row_copies; do
	crash_then_run $k -g 1024
done
for k in clear_tiles copy_rows planes; do
	crash_then_run $k -g 1024 -l 64
done
for k in antidiagonal antidiagonal_from; do
	crash_then_run $k -g 1024 -l 16
done
# Work-group * 256 + i, i < 256: 16 groups of 64 at -g 1024 -l 64.
"$SIBYL" kernel "$K" -k clear_tiles -g 1024 -l 64 --dump-args --json > "$WORK/t.json"
expect_eq "constant blocks: 16 * 256" "[4096]" "$(inferred "$WORK/t.json" a elements)"
expect_eq "generated that long" "[4096]" \
	"$(json "[len(a['data']) for a in j['samples'][0]['args'] if a['name'] == 'a']" "$WORK/t.json")"
expect_eq "why" "is indexed up to element 4095 (-g 1024 -l 64, the scalars' values above)" \
	"$(json "[a['why'] for a in j['inferred'] if a['name'] == 'a'][0]" "$WORK/t.json")"
# 64 rows of cols = 32 (the offset after the last one counted), and the
# __local tile of 64 x 64.
"$SIBYL" kernel "$K" -k copy_rows -g 1024 -l 64 -v --json 2> "$WORK/cr.txt" > "$WORK/cr.json"
expect_eq "rows: 64 * 32 + 64" "[2112]" "$(inferred "$WORK/cr.json" m elements)"
expect_eq "a __local tile: 64 * 64" "[4096]" "$(inferred "$WORK/cr.json" tile elements)"
expect_eq "out: the global size" "[]" "$(inferred "$WORK/cr.json" out elements)"
grep -q "kernel 'copy_rows': 'm' >= 2112 elements: it is indexed up to element 2111" "$WORK/cr.txt" ||
	fail "-v does not say why m is 2112 long: $(cat "$WORK/cr.txt")"
# A fixed stride stays as given; the rows follow it: 64 * 40 + 64.
"$SIBYL" kernel "$K" -k copy_rows -g 1024 -l 64 -A cols=40 --fence --dump-args --json > "$WORK/c40.json"
expect_eq "cols as given, m as long as its rows" "40 2624" \
	"$(json "[a['value'] for a in j['samples'][0]['args'] if a['name'] == 'cols'][0], [len(a['data']) for a in j['samples'][0]['args'] if a['name'] == 'm'][0]" "$WORK/c40.json" | tr -d '(),')"
# diag - 1 - bx with 64 work-groups: diag at least 64, not the root 32;
# the buffer then as long as block row 63 reaches.
"$SIBYL" kernel "$K" -k antidiagonal -g 1024 -l 16 --json > "$WORK/ad.json"
expect_eq "counted down by a work-group id: their number" "[64]" \
	"$(inferred "$WORK/ad.json" diag value)"
expect_eq "why" "bounds a loop or the work-items: the square root of the buffers' length, and at least 64 (not 32): values up to 63 are subtracted from it" \
	"$(json "[a['why'] for a in j['inferred'] if a['name'] == 'diag'][0]" "$WORK/ad.json")"
expect_eq "rows up to 1023 of 32" "[33760]" "$(inferred "$WORK/ad.json" a elements)"
"$SIBYL" kernel "$K" -k antidiagonal_from -g 1024 -l 16 --json > "$WORK/af.json"
expect_eq "an offset counted down, then by 1: 64, not 0" "[64]" \
	"$(inferred "$WORK/af.json" width value)"
"$SIBYL" kernel "$K" -k antidiagonal -g 1024 -l 16 -A diag=70 --json > "$WORK/ad70.json"
expect_eq "a fixed diag stays" "[]" "$(inferred "$WORK/ad70.json" diag value)"

# A file's buffer keeps the file's length (16 floats), whatever its
# accesses reach (the run then writes past it: it may crash).
head -c 64 /dev/zero > "$WORK/a.bin"
"$SIBYL" kernel "$K" -k clear_tiles -g 64 -l 64 -A a="file:$WORK/a.bin" --json > "$WORK/file.json" \
	2> /dev/null || true
expect_eq "a file's buffer does not grow" "[]" "$(inferred "$WORK/file.json" a elements)"
# Planes of nx * ny = 100 from the global size, nz = 10 of them.
"$SIBYL" kernel "$K" -k planes -g 1024 -l 64 --json > "$WORK/p.json"
expect_eq "planes past the work-items" "[2024]" "$(inferred "$WORK/p.json" in elements)"

"$SIBYL" kernel "$K" -k row_sums -g 1024 --json > "$WORK/r.json"
expect_eq "a stride: the square root" "[32]" "$(inferred "$WORK/r.json" n value)"
expect_eq "why" "multiplies an index of 'm': the square root of the buffers' length" \
	"$(json "[a['why'] for a in j['inferred'] if a['name'] == 'n'][0]" "$WORK/r.json")"
"$SIBYL" kernel "$K" -k row_sums -g 1024 -v 2> "$WORK/v.txt" > /dev/null
grep -q "kernel 'row_sums': 'n' = 32: it multiplies an index of 'm'" "$WORK/v.txt" ||
	fail "-v does not say why n is 32: $(cat "$WORK/v.txt")"
# The loop c < n bounded by n's value, though n is met first as the
# stride: 1024 rows of 32.
"$SIBYL" kernel "$K" -k row_copies -g 1024 --json > "$WORK/rc.json"
expect_eq "rows of the stride: 1024 * 32" "[32768]" "$(inferred "$WORK/rc.json" out elements)"
"$SIBYL" kernel "$K" -k shifted -g 1024 --json > "$WORK/s.json"
expect_eq "an offset: 0" "[0]" "$(inferred "$WORK/s.json" t value)"
"$SIBYL" kernel "$K" -k gather -g 1024 --dump-args --json > "$WORK/g.json"
expect_eq "indices: below a quarter" "[256]" "$(inferred "$WORK/g.json" idx below)"
expect_eq "indices generated in [0, 256)" True \
	"$(json "all(0 <= v < 256 for a in j['samples'][0]['args'] if a['name'] == 'idx' for v in a['data'])" "$WORK/g.json")"
"$SIBYL" kernel "$K" -k clear_blocks -g 1024 --json > "$WORK/c.json"
expect_eq "a bound scaled by 16: a 16th" "[64]" "$(inferred "$WORK/c.json" blocks value)"
"$SIBYL" kernel "$K" -k reversed -g 8 -A a=arange --dump-args --json > "$WORK/rev.json"
expect_eq "counted down from: the length" "[8]" "$(inferred "$WORK/rev.json" rows value)"
expect_eq "reversed" "[7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0]" \
	"$(json "[a['data'] for a in j['samples'][0]['after'] if a['name'] == 'b'][0]" "$WORK/rev.json")"

# -A stays authoritative: a fixed stride sizes the buffers (40 * 40);
# the guard r < n keeps the rows' reach within them too.
"$SIBYL" kernel "$K" -k row_sums -g 64 -A n=40 --fence --dump-args --json > "$WORK/a.json"
expect_eq "fixed n, nothing inferred" "40 []" \
	"$(json "[a['value'] for a in j['samples'][0]['args'] if a['name'] == 'n'][0], j['inferred']" "$WORK/a.json" | tr -d '(),')"
expect_eq "buffers of n * n" "1600 1600" \
	"$(json "' '.join(str(len(a['data'])) for a in j['samples'][0]['args'] if 'data' in a)" "$WORK/a.json")"
# A sweep: each global size its own root.
"$SIBYL" kernel "$K" -k row_sums -g 256:1024:768 --dump-args -o "$WORK/sweep.jsonl"
expect_eq "n follows the sweep" "16 32" \
	"$(python3 -c "import json,sys; print(' '.join(str([a['value'] for a in json.loads(l)['args'] if a['name'] == 'n'][0]) for l in open(sys.argv[1])))" "$WORK/sweep.jsonl")"
