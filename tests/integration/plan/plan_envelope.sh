#!/usr/bin/env bash
# plan envelope (docs/plan.md, "envelope and show"): a crossover within
# the profiles' noise is marked a tie, one beyond it is not; profiles of
# different work metrics are refused with one line and nothing written.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
QUICK=(--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"
for a in spin wobble kink; do
	"$SIBYL" plan run --adapter "$WORK/test.so:$a" "${QUICK[@]}" -o "$WORK/$a.json" > /dev/null
done

# wobble is spin within 3% up and down: where they cross, neither is
# faster beyond the noise of wobble's samples.
"$SIBYL" plan envelope "$WORK/spin.json" "$WORK/wobble.json" -o "$WORK/sw.json" > "$WORK/sw.txt"
grep -q "^tie at .*: spin and wobble are within the noise" "$WORK/sw.txt" ||
	{ cat "$WORK/sw.txt"; fail "no tie between spin and wobble"; }
expect_eq "every crossover a tie, with its noise" "True" \
	"$(json "all(c['tie'] and c['noise_pct'] > 0 for c in j['provenance']['crossovers']) and len(j['provenance']['crossovers']) > 0" "$WORK/sw.json")"
"$SIBYL" plan envelope "$WORK/spin.json" "$WORK/wobble.json" -o "$WORK/sw.json" --force --json \
	> "$WORK/sw.out"
expect_eq "pieces name whom they tie with" "True" \
	"$(json "all(p['ties_with'] for p in j)" "$WORK/sw.out")"
# kink leaves spin at 251 by far more than any noise: a crossover.
"$SIBYL" plan envelope "$WORK/kink.json" "$WORK/spin.json" -o "$WORK/ks.json" > "$WORK/ks.txt"
grep -q "tie" "$WORK/ks.txt" && fail "kink and spin tied: $(cat "$WORK/ks.txt")"
expect_eq "kink to spin is no tie" "[('kink', 'spin', False)]" \
	"$(json "[(c['from'], c['to'], c['tie']) for c in j['provenance']['crossovers']]" "$WORK/ks.json")"

# A profile of elements against one of microseconds: refused.
python3 - "$WORK/spin.json" "$WORK/bytes.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['name'], j['work_metric'] = 'spin-bytes', 'bytes'
json.dump(j, open(sys.argv[2], 'w'))
PY
status=0
"$SIBYL" plan envelope "$WORK/spin.json" "$WORK/bytes.json" -o "$WORK/mixed.json" \
	> "$WORK/out" 2> "$WORK/err" || status=$?
expect_eq "different work metrics: exit status" 1 "$status"
expect_eq "one line" 1 "$(wc -l < "$WORK/err")"
grep -q "^sibyl: plan envelope: spin is measured in 'microseconds' and spin-bytes in 'bytes'" \
	"$WORK/err" || fail "$(cat "$WORK/err")"
[ ! -e "$WORK/mixed.json" ] || fail "a refused envelope was written"
echo "ok: plan_envelope"
