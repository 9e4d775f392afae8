#!/usr/bin/env bash
# --evaluate's baselines (docs/plan.md, "--evaluate N"): the per-size
# history model joins uniform and power with the same budget, in the
# text, the JSON and the CSV; the evaluation's progress line on a
# terminal ends with an ETA.  Real adapters: a built-in sort and the
# test adapters' spin; no timing is asserted.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
QUICK=(--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"

# Over 64 work metrics, 100 points meet the history's metrics often.
# Sorts of a few elements take about a microsecond and scatter under the
# load of a parallel make check: wide errors, so that the scatter
# diagnosis (plan_diagnose tests it) does not stop the plan.
"$SIBYL" plan evaluate --adapter insertion-sort --range 1:64 -e 100 --speed-guard 0 \
	--segment-error 30 --sample-error 30 \
	-o "$WORK/sort.json" --evaluate-csv "$WORK/sort.csv" --json > "$WORK/sort.out"
expect_eq "history is a baseline with the keys of the others" "True" \
	"$(json "all(k in j['baselines']['history'] for k in ('mean_error_pct', 'rmse_pct', 'metrics_seen', 'points_seen'))" "$WORK/sort.out")"
expect_eq "history metrics: within the budget, some met again" "True True" \
	"$(json "j['baselines']['history']['metrics_seen'] <= j['baselines']['budget'], j['baselines']['history']['points_seen'] > 0" "$WORK/sort.out" | tr -d '(),')"
expect_eq "the CSV has a history column" "history_s" "$(head -1 "$WORK/sort.csv" | cut -d, -f8)"
# A point the history has seen is predicted by its own measurements: the
# mean of them, never the regression's curve through all.
expect_eq "history predictions positive" "True" \
	"$(python3 -c "import csv; print(all(float(r['history_s']) > 0 for r in csv.DictReader(open('$WORK/sort.csv'))))")"

# The text names it, and the budget line stays one for all three.
"$SIBYL" plan evaluate --adapter insertion-sort --profile "$WORK/sort.json" -e 20 --speed-guard 0 \
	> "$WORK/sort.txt"
grep -q "^per-size history (StarPU-style) .*of the points seen before" "$WORK/sort.txt" ||
	{ cat "$WORK/sort.txt"; fail "no history row"; }
grep -q "baselines had [0-9]* samples each" "$WORK/sort.txt" || fail "no budget line"

# On a terminal the evaluation's line counts measurements and ends with
# an ETA; in a pipe (above) nothing.
if command -v script > /dev/null; then
	script -qec "'$SIBYL' plan evaluate --adapter-so '$WORK/test.so:spin' --range 1:2000 -e 300 ${QUICK[*]}" \
		/dev/null > "$WORK/tty.txt"
	tr '\r' '\n' < "$WORK/tty.txt" | grep -q "sibyl: evaluate spin: [0-9]* of [0-9]* measurements  [0-9]*%  ETA [0-9]*:[0-9][0-9]" ||
		{ tr '\r' '\n' < "$WORK/tty.txt" | cat -v | tail -5; fail "no ETA on the evaluation's line"; }
	echo "ok: evaluation progress with an ETA"
fi
grep -q "sibyl: evaluate" "$WORK/sort.out" && fail "progress in a pipe"
echo "ok: plan_baselines"
