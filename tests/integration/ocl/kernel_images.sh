#!/bin/bash
# Images and samplers: random CL_RGBA, CL_FLOAT images of the argument's
# type, as large as the range, and a sampler; the same pixels on every
# path of one seed, and -i equal to Oclgrind on --spir.
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
