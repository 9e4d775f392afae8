#!/usr/bin/env bash
# sibyl plan end to end: listing, planning a built-in adapter and a user
# adapter object, evaluation, envelope and plots.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"

"$SIBYL" plan --list-adapters > "$WORK/list"
grep -q '^insertion-sort ' "$WORK/list" || fail "insertion-sort not listed"
"$SIBYL" plan --list-adapters --json > "$WORK/list.json"
range=$(json "[str(a['min'])+':'+str(a['max']) for a in j if a['name']=='insertion-sort'][0]" "$WORK/list.json")
grep -q "^insertion-sort  *$range " "$WORK/list" || fail "table and JSON disagree on the range ($range)"
expect_eq "adapters in the .so" "spin crash hang badinit flicker kink staircase bimodal millis wobble failrun failsetup device" \
	"$("$SIBYL" plan --list-adapters --adapter-so "$WORK/test.so" --json | /usr/bin/python3 -c 'import json,sys; print(" ".join(a["name"] for a in json.load(sys.stdin)))')"

# A built-in adapter on a small range; loose thresholds keep it quick on a
# busy machine.  Whether it completes or stops, the profile must be valid.
"$SIBYL" plan --adapter insertion-sort --range 1:3000 --segment-error 30 --sample-error 30 \
	--max-samples 800 --max-seconds 60 -o "$WORK/isort.json" > "$WORK/isort.out" || true
[ -s "$WORK/isort.json" ] || fail "no insertion-sort profile"
expect_eq "profile format" "sibyl-profile 1" "$(json "j['format']+' '+str(j['version'])" "$WORK/isort.json")"
expect_eq "points ascending" "True" \
	"$(json "all(a[0] <= b[0] for a, b in zip(j['points'], j['points'][1:]))" "$WORK/isort.json")"
# On a loaded machine it may stop before its first segment: then only samples.
expect_eq "profile starts at 1" "True" \
	"$(json "float(j['points'][0][0]) == 1 if j['points'] else len(j['samples']) > 0" "$WORK/isort.json")"
expect_eq "provenance adapter" "insertion-sort" "$(json "j['provenance']['adapter']['name']" "$WORK/isort.json")"

# The user adapter: a linear profile on a synthetic clock (see
# test_adapters.c), so completion and error do not depend on the load.
"$SIBYL" plan --adapter-so "$WORK/test.so:spin" --range 1:2000 --seed 3 -o "$WORK/spin.json" \
	--evaluate 30 --json --evaluate-csv "$WORK/spin.csv" > "$WORK/spin.eval"
# The CSV holds every evaluation point; its planner column gives the mean
# error the JSON reports.
expect_eq "evaluation CSV" "31 True" "$(/usr/bin/python3 - "$WORK/spin.csv" "$WORK/spin.eval" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
e = [abs(float(r['planner_s']) - float(r['measured_s'])) / float(r['measured_s']) for r in rows]
mean = 100 * sum(e) / len(e)
print(len(rows) + 1, abs(mean - json.load(open(sys.argv[2]))['mean_error_pct']) < 1e-6)
PY
)"
for key in mean_error_pct rmse_pct samples points seconds baselines; do
	json "j['$key']" "$WORK/spin.eval" > /dev/null || fail "--evaluate --json lacks $key"
done
expect_eq "spin profile complete" "True" "$(json "j['complete']" "$WORK/spin.json")"
# The speed guard (on by default) accounts for every sample, planning and
# evaluation alike, and says what it dropped; off, it says nothing.
expect_eq "speed guard counts the samples" "True" \
	"$(json "j['speed_guard']['samples'] >= j['samples'] + 2 * j['evaluated'] and \
	j['speed_guard']['dropped_runs'] >= 0 and \
	0 < j['speed_guard']['reference_best_ns'] and \
	(j['speed_guard']['reference_best_ns'] <= j['speed_guard']['reference_first_ns'] or \
	 j['speed_guard']['best_raised'] > 0)" \
	"$WORK/spin.eval")"
expect_eq "speed guard in the profile" "2.0 True" \
	"$(json "str(j['provenance']['parameters']['speed_guard_wait']) + ' ' + \
	str(j['stats']['speed_guard']['samples'] == j['stats']['samples'] + \
	    j['stats']['skipped_unguarded'])" "$WORK/spin.json")"
# The fit is recorded: relative residuals by default, the paper's with --fit ols.
"$SIBYL" plan --adapter-so "$WORK/test.so:spin" --range 1:2000 --speed-guard 0 --fit ols --rounds 1 \
	--evaluate 5 --json -o "$WORK/ols.json" > "$WORK/noguard.eval"
expect_eq "no speed guard" "False" "$(json "'speed_guard' in j" "$WORK/noguard.eval")"
expect_eq "fit recorded" "relative ols" "$(json "j['provenance']['parameters']['fit']" \
	"$WORK/spin.json") $(json "j['provenance']['parameters']['fit']" "$WORK/ols.json")"
expect_eq "rounds recorded" "3 1" "$(json "j['provenance']['parameters']['rounds']" \
	"$WORK/spin.json") $(json "j['provenance']['parameters']['rounds']" "$WORK/ols.json")"
# A sample is the fastest of its rounds: with one run per round, the
# flicker adapter's samples are its nominal times (slowed on two runs of
# three); in one round of three runs, the median is slowed.
for rounds in 3 1; do
	"$SIBYL" plan --adapter-so "$WORK/test.so:flicker" --range 1:2000 --speed-guard 0 \
		--repeat 3 --sample-time 0 --rounds $rounds --max-samples 30 \
		-o "$WORK/flicker-$rounds.json" > /dev/null || true
done
expect_eq "fastest round" "1.0 1.5" "$(for rounds in 3 1; do json \
	"' '.join(sorted({'%.1f' % (s[1] / (2e-6 + s[0] * 1e-6)) for s in j['samples']}))" \
	"$WORK/flicker-$rounds.json"; done | tr '\n' ' ' | sed 's/ $//')"
err=$(json "j['mean_error_pct']" "$WORK/spin.eval")
echo "spin: mean error $err%"
json "j['mean_error_pct'] < 25" "$WORK/spin.eval" | grep -q True || fail "spin mean error $err%"

# The matrix adapters are evaluated at random shapes (m, n, p), predicted
# through metric_of, unless --evaluate-metrics; other adapters at metrics.
# The profile evaluated is a stored one (--profile), written here: planning
# matmul to the end takes a quiet machine, which a test cannot ask for.
metric=$(json "[a['work_metric'] for a in j if a['name'] == 'matmul-paper'][0]" "$WORK/list.json")
cat > "$WORK/mm.json" <<JSON
{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "matmul-paper",
 "work_metric": "$metric", "range": [1, 300], "complete": true,
 "points": [[1, 1e-7], [300, 3e-5]], "stats": {"samples": 40, "seconds": 2.5}}
JSON
for mode in parameters metrics; do
	flag=; [ $mode = metrics ] && flag=--evaluate-metrics
	"$SIBYL" plan --adapter matmul-paper --profile "$WORK/mm.json" --evaluate 5 $flag --json \
		--speed-guard 0 > "$WORK/mm-$mode.eval"
	json "j['mean_error_pct'] >= 0 and j['evaluated'] == 5" "$WORK/mm-$mode.eval" |
		grep -q True || fail "matmul-paper at random $mode: no error figure"
	expect_eq "matmul-paper evaluated at" "$mode" "$(json "j['evaluated_at']" "$WORK/mm-$mode.eval")"
	expect_eq "baselines get the stored profile's samples" 40 \
		"$(json "j['baselines']['budget']" "$WORK/mm-$mode.eval")"
done
"$SIBYL" plan --adapter matmul --profile "$WORK/mm.json" --evaluate 5 2> "$WORK/mm.err" &&
	fail "a matmul-paper profile evaluated as matmul"
grep -q "a profile of matmul-paper, not of matmul" "$WORK/mm.err" ||
	fail "wrong adapter: $(cat "$WORK/mm.err")"
expect_eq "spin evaluated at" "metrics" "$(json "j['evaluated_at']" "$WORK/spin.eval")"
expect_eq "adapters evaluated at parameters" "matmul matmul-paper" \
	"$(json "' '.join(a['name'] for a in j if a['evaluates_parameters'])" "$WORK/list.json")"

# A stored profile evaluated again over part of its range: the spin
# profile predicts the synthetic clock exactly there too, and the
# baselines get the share of its samples the profile took there.
"$SIBYL" plan --adapter-so "$WORK/test.so:spin" --profile "$WORK/spin.json" --range 100:1000 \
	--evaluate 20 --speed-guard 0 --json > "$WORK/spin-again.eval"
expect_eq "stored profile re-evaluated" "True True" "$(json "j['mean_error_pct'] < 1e-6, \
	j['baselines']['budget'] == $(json "max(1, int(sum(100 <= s[0] <= 1000 for s in j['samples']) / len(j['samples']) * j['stats']['samples'] + 0.5))" "$WORK/spin.json")" "$WORK/spin-again.eval" | tr -d '(),')"

# The text output names the stored profile its figures come from.
"$SIBYL" plan --adapter-so "$WORK/test.so:spin" --profile "$WORK/spin.json" --range 100:1000 \
	--evaluate 5 --speed-guard 0 > "$WORK/spin-again.txt"
grep -q "^spin, planned in $WORK/spin.json: " "$WORK/spin-again.txt" ||
	fail "stored profile not named: $(head -1 "$WORK/spin-again.txt")"
# An incomplete stored profile is evaluated as planning evaluates one that
# stopped early: with one line saying so, and exit status 1.
/usr/bin/python3 - "$WORK/spin.json" "$WORK/partial.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['complete'] = False
json.dump(j, open(sys.argv[2], 'w'))
PY
if "$SIBYL" plan --adapter-so "$WORK/test.so:spin" --profile "$WORK/partial.json" --evaluate 5 \
	--speed-guard 0 --json > "$WORK/partial.eval" 2> "$WORK/partial.err"; then
	fail "an incomplete stored profile evaluated with exit 0"
fi
grep -q "an incomplete profile (its planning stopped early); its covered part is scored apart from the rest" \
	"$WORK/partial.err" || fail "incomplete profile: $(cat "$WORK/partial.err")"
expect_eq "incomplete profile still evaluated" "False 5" \
	"$(json "str(j['complete']) + ' ' + str(j['evaluated'])" "$WORK/partial.eval")"

# Same seed, same samples.
"$SIBYL" plan --adapter-so "$WORK/test.so:spin" --range 1:2000 --seed 3 --speed-guard 0 \
	-o "$WORK/spin2.json"
expect_eq "deterministic sample positions" \
	"$(json "[s[0] for s in j['samples']]" "$WORK/spin.json")" \
	"$(json "[s[0] for s in j['samples']]" "$WORK/spin2.json")"

# Envelope: the spin profile against itself shifted by a constant.
/usr/bin/python3 - "$WORK/spin.json" "$WORK/slow.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['name'] = 'slow'
j['points'] = [[x, y * 2 - 1e-3] for x, y in j['points']]
json.dump(j, open(sys.argv[2], 'w'))
PY
"$SIBYL" plan envelope "$WORK/spin.json" "$WORK/slow.json" -o "$WORK/env.json" --json > "$WORK/env.out"
expect_eq "envelope winners" "slow spin" "$(json "' '.join(p['implementation'] for p in j['pieces'])" "$WORK/env.json")"

"$SIBYL" plan show "$WORK/spin.json" -o "$WORK/spin.png"
expect_eq "png magic" "PNG" "$(head -c 4 "$WORK/spin.png" | tail -c 3)"
"$SIBYL" plan show "$WORK/env.json" -o "$WORK/env.svg"
grep -q '<svg' "$WORK/env.svg" || fail "no svg"
# Stopped before any segment (a segment needs three samples): the samples
# are still written, plotted, and refused by the envelope with a reason.
if "$SIBYL" plan --adapter-so "$WORK/test.so:spin" --range 1:2000 --max-samples 2 --speed-guard 0 \
	-o "$WORK/two.json" 2> "$WORK/two.err"; then
	fail "a plan stopped at 2 samples exited 0"
fi
grep -q "no segment yet, the samples are kept" "$WORK/two.err" || fail "$(cat "$WORK/two.err")"
expect_eq "samples-only profile" "False 0 2" \
	"$(json "' '.join(map(str, (j['complete'], len(j['points']), len(j['samples']))))" "$WORK/two.json")"
"$SIBYL" plan show "$WORK/two.json" -o "$WORK/two.svg"
grep -q '<svg' "$WORK/two.svg" || fail "no svg of the samples"
if "$SIBYL" plan envelope "$WORK/spin.json" "$WORK/two.json" -o "$WORK/env2.json" 2> "$WORK/env2.err"; then
	fail "envelope accepted a profile without points"
fi
grep -q "stopped before the first segment" "$WORK/env2.err" || fail "$(cat "$WORK/env2.err")"
# An adapter on the OpenCL device (PoCL, which brings its own LLVM) is
# sampled in sibyl-plan-worker, a process without sibyl's LLVM 14: the
# kernel builds and runs, and the samples are the device's.
status=0
"$SIBYL" plan --adapter inner-product-ocl --range 1000:20000 --max-samples 12 --speed-guard 0 \
	--repeat 1 --rounds 1 -o "$WORK/ocl.json" 2> "$WORK/ocl.err" || status=$?
[ "$status" -le 1 ] || fail "inner-product-ocl: status $status: $(cat "$WORK/ocl.err")"
grep -q "crashed\|init" "$WORK/ocl.err" && fail "inner-product-ocl: $(cat "$WORK/ocl.err")"
expect_eq "OpenCL adapter sampled" "True" "$(json "len(j['samples']) + len(j['points']) > 0" "$WORK/ocl.json")"
echo "ok: plan CLI"
