#!/bin/bash
# Images and samplers: random CL_RGBA images of the argument's type, as
# large as the range, CL_FLOAT unless integer builtins use them, and a
# sampler; the same pixels on every path of one seed, and -i equal to
# Oclgrind on --spir.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/images/images.cl"

"$SIBYL" kernel "$K" -k copy2d -g 8,4 --seed 2 --dump-args --json > "$WORK/c.json"
expect_eq "image described" "{'width': 8, 'height': 4, 'depth': 1, 'format': 'CL_RGBA, CL_FLOAT'}" \
	"$(json "j['samples'][0]['args'][0]['image']" "$WORK/c.json")"
expect_eq "sampler described" True "$(json "'CLK_ADDRESS_CLAMP' in j['samples'][0]['args'][1]['sampler']" "$WORK/c.json")"
expect_eq "pixels in [0, 1), all different" "True 32" \
	"$(json "' '.join(str(x) for x in (all(0 <= c < 1 for p in j['samples'][0]['after'][2]['data'] for c in p), len(set(tuple(p) for p in j['samples'][0]['after'][2]['data']))))" "$WORK/c.json")"
"$SIBYL" kernel "$K" -k copy2d -g 8,4 --seed 2 --dump-args --json --spir > "$WORK/s.json"
expect_eq "same pixels through SPIR" "$(json "j['samples'][0]['after'][2]" "$WORK/c.json")" \
	"$(json "j['samples'][0]['after'][2]" "$WORK/s.json")"
"$SIBYL" kernel "$K" -k size3d -g 4,3,2 --dump-args --json > "$WORK/3.json"
expect_eq "3-D image as large as the range" 40302 "$(json "j['samples'][0]['after'][1]['data'][0]" "$WORK/3.json")"
"$SIBYL" kernel "$K" -k row1d -g 16 --dump-args --json > "$WORK/1.json"
expect_eq "1-D image" 16 "$(json "j['samples'][0]['args'][0]['image']['width']" "$WORK/1.json")"
"$SIBYL" kernel "$K" -k fill -g 8,8 > /dev/null || fail "write_only image"

listing() {	# the listing block of sibyl's or Oclgrind's output
	awk '/^Instructions executed for kernel/ { on = 1 } on { print } on && /^$/ { exit }'
}
"$SIBYL" kernel "$K" -k copy2d -g 8,4 --seed 2 -i | listing > "$WORK/i.txt"
LC_ALL=C oclgrind --inst-counts "$SIBYL" kernel "$K" -k copy2d -g 8,4 --seed 2 --spir | listing > "$WORK/o.txt"
grep -q read_imagef "$WORK/i.txt" || fail "no read_imagef counted"
diff -u "$WORK/o.txt" "$WORK/i.txt" || fail "-i differs from Oclgrind on --spir"
echo "ok: -i = oclgrind --inst-counts --spir ($(wc -l < "$WORK/i.txt") lines)"

# Integer builtins: integer channels of their signedness, said with -v
# and --json; Oclgrind then runs the kernel defined (on CL_FLOAT it
# stopped at "Unsupported image channel data type") and counts as -i.
"$SIBYL" kernel "$K" -k labels -g 8,4 --seed 2 --dump-args --json -v > "$WORK/u.json" 2> "$WORK/u.err"
expect_eq "read_imageui: format" "CL_RGBA, CL_UNSIGNED_INT32" \
	"$(json "j['samples'][0]['args'][0]['image']['format']" "$WORK/u.json")"
expect_eq "read_imageui: --json inferred" "img CL_RGBA, CL_UNSIGNED_INT32" \
	"$(json "' '.join(e['name'] + ' ' + e['format'] for e in j['inferred'] if 'format' in e)" "$WORK/u.json")"
grep -q "'img' is CL_RGBA, CL_UNSIGNED_INT32: its builtins are read_imageui" "$WORK/u.err" ||
	fail "-v does not say the format: $(cat "$WORK/u.err")"
expect_eq "unsigned pixels below g, not all equal" "True True" \
	"$(json "' '.join(str(x) for x in (all(0 <= v < 2 * 32 for v in j['samples'][0]['after'][2]['data']), len(set(j['samples'][0]['after'][2]['data'])) > 8))" "$WORK/u.json")"
"$SIBYL" kernel "$K" -k signs -g 8,4 --dump-args --json > "$WORK/i.json"
expect_eq "write_imagei through a helper: format" "CL_RGBA, CL_SIGNED_INT32" \
	"$(json "j['samples'][0]['args'][0]['image']['format']" "$WORK/i.json")"
"$SIBYL" kernel "$K" -k either -g 8 -v 2> "$WORK/e.err" > /dev/null
grep -q "'img' is CL_RGBA, CL_UNSIGNED_INT32: its builtins are both" "$WORK/e.err" ||
	fail "read_imagei and read_imageui: not unsigned: $(cat "$WORK/e.err")"
"$SIBYL" kernel "$K" -k copy2d -g 8,4 -v 2> "$WORK/f.err" > /dev/null
grep -q "'img' is CL_RGBA, CL_FLOAT: its builtins are read_imagef" "$WORK/f.err" ||
	fail "read_imagef: -v does not say CL_FLOAT: $(cat "$WORK/f.err")"
for k in labels signs; do
	"$SIBYL" kernel "$K" -k $k -g 8,4 --seed 2 -i | listing > "$WORK/i.txt"
	LC_ALL=C oclgrind --inst-counts "$SIBYL" kernel "$K" -k $k -g 8,4 --seed 2 --spir \
		2> "$WORK/o.err" | listing > "$WORK/o.txt"
	if grep -q "Unsupported image channel" "$WORK/o.err"; then
		fail "$k: Oclgrind refused the image: $(cat "$WORK/o.err")"
	fi
	grep -q "_image" "$WORK/i.txt" || fail "$k: no image builtin counted"
	diff -u "$WORK/o.txt" "$WORK/i.txt" || fail "$k: -i differs from Oclgrind on --spir"
	echo "ok: $k: -i = oclgrind --inst-counts --spir ($(wc -l < "$WORK/i.txt") lines)"
done
