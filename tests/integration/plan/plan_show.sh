#!/usr/bin/env bash
# plan show -o (docs/plan.md, "envelope and show"): log axes where the
# data span decades, linear with --linear or where they do not; a legend
# naming samples and profile, or an envelope's implementations; an
# incomplete profile plotted over the range it covers, and said so in
# the title.  Profiles planned by the test adapters; the SVG's text read
# back.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
QUICK=(--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"
"$SIBYL" plan run --adapter "$WORK/test.so:kink" "${QUICK[@]}" -o "$WORK/kink.json" > /dev/null
"$SIBYL" plan run --adapter "$WORK/test.so:spin" "${QUICK[@]}" -o "$WORK/spin.json" > /dev/null
"$SIBYL" plan run --adapter "$WORK/test.so:spin" --range 1000:2000 "${QUICK[@]}" \
	-o "$WORK/narrow.json" > /dev/null
"$SIBYL" plan envelope "$WORK/kink.json" "$WORK/spin.json" -o "$WORK/env.json" > /dev/null
# The staircase is diagnosed after a few samples: a partial profile.
"$SIBYL" plan run --adapter "$WORK/test.so:staircase" --range 16:200000 "${QUICK[@]}" \
	-o "$WORK/stairs.json" 2> /dev/null && fail "staircase planned whole"

# texts FILE.svg: the SVG's text, one piece a line.
texts() {
	python3 -c 'import html, re, sys
for t in re.findall(r">([^<>]+)</tspan>", open(sys.argv[1]).read()):
    print(html.unescape(t))' "$1"
}
for p in kink env stairs narrow; do
	"$SIBYL" plan show "$WORK/$p.json" -o "$WORK/$p.svg" 2> "$WORK/err" || fail "plan show $p"
	[ ! -s "$WORK/err" ] || { cat "$WORK/err"; fail "plan show $p: wrote to stderr"; }
	texts "$WORK/$p.svg" > "$WORK/$p.txt"
done
"$SIBYL" plan show "$WORK/kink.json" -o "$WORK/kink.png" || fail "plan show PNG"
expect_eq "PNG" "PNG" "$(head -c 4 "$WORK/kink.png" | tail -c 3)"

# 1 to 2000 work metrics, 3 us to 15 ms: decades on both axes, ticks at
# powers of ten (PLplot draws each as 10 and a raised exponent, which is
# what the text holds: 0 to 3 and -2 to 1).
expect_eq "kink: legend" "samples profile profile points" \
	"$(grep -x -e samples -e profile -e 'profile points' "$WORK/kink.txt" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "kink: log axes, ticks 10^0 to 10^3" "True" \
	"$(python3 -c "t = open('$WORK/kink.txt').read().split('\n'); print('3' in t and '-2' in t and '500' not in t and '2000' not in t)")"
# --linear: ticks at 500, 1000, ... instead.
"$SIBYL" plan show "$WORK/kink.json" -o "$WORK/lin.svg" --linear || fail "--linear"
grep -qx 2000 <(texts "$WORK/lin.svg") || fail "--linear: no tick at 2000"
# 1000 to 2000 is not decades: linear without asking.
grep -qx 2000 "$WORK/narrow.txt" || fail "narrow range: no linear tick at 2000"
# The envelope's legend names its implementations.
expect_eq "envelope: legend" "kink spin" "$(grep -x -e kink -e spin "$WORK/env.txt" | tr '\n' ' ' | sed 's/ $//')"
# The partial profile: the range it covers, in its title and on its axis.
covered=$(json "'%g to %g' % (j['points'][0][0], j['points'][-1][0])" "$WORK/stairs.json")
grep -qx "staircase (partial: covers $covered of 16 to 200000)" "$WORK/stairs.txt" ||
	{ cat "$WORK/stairs.txt"; fail "partial: title"; }
grep -qx "200000\|100000\|1e+05\|2e+05" "$WORK/stairs.txt" && fail "partial: plotted over the whole range"

status=0
"$SIBYL" plan show "$WORK/kink.json" --linear > /dev/null 2> "$WORK/err" || status=$?
expect_eq "--linear without -o" 2 "$status"
grep -q "^sibyl: plan show: --linear is for a plot" "$WORK/err" || fail "$(cat "$WORK/err")"
echo "ok: plan_show"
