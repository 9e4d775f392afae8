#!/usr/bin/env bash
# sibyl plan's subcommands (run, evaluate, envelope, show, list) and
# today's spellings side by side; -s is no longer --seed; plan evaluate
# shows a progress line on a terminal and nothing elsewhere.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"
# One run a sample of the test adapter that spends and reports a
# synthetic time: the same samples on any machine.
FAST=(--adapter-so "$WORK/test.so:kink" --range 1:2000 --repeat 1 --rounds 1 --sample-time 0
      --speed-guard 0)

"$SIBYL" plan list > "$WORK/list.new"
"$SIBYL" plan --list-adapters > "$WORK/list.old"
cmp -s "$WORK/list.new" "$WORK/list.old" || fail "plan list and plan --list-adapters differ"
expect_eq "plan list --adapter-so" "spin crash hang badinit flicker kink staircase bimodal millis wobble failrun failsetup device" \
	"$("$SIBYL" plan list --adapter-so "$WORK/test.so" --json | /usr/bin/python3 -c \
	'import json,sys; print(" ".join(a["name"] for a in json.load(sys.stdin)))')"

# plan run is today's `plan -a ...`: same seed, same samples.
"$SIBYL" plan run "${FAST[@]}" --seed 5 -o "$WORK/run.json" > "$WORK/run.out"
"$SIBYL" plan "${FAST[@]}" --seed 5 -o "$WORK/old.json" > /dev/null
expect_eq "plan run and plan -a sample alike" \
	"$(json "[s[0] for s in j['samples']]" "$WORK/old.json")" \
	"$(json "[s[0] for s in j['samples']]" "$WORK/run.json")"
grep -q "^kink: [0-9]* samples, .* -> $WORK/run.json$" "$WORK/run.out" || fail "$(cat "$WORK/run.out")"

# -s was --seed's; -s is to mean --sort in every command.
status=0
"$SIBYL" plan "${FAST[@]}" -s 5 -o "$WORK/s.json" 2> "$WORK/s.err" || status=$?
expect_eq "plan -s refused" 2 "$status"
grep -q "unknown option '-s'" "$WORK/s.err" || fail "plan -s: $(cat "$WORK/s.err")"
[ ! -e "$WORK/s.json" ] || fail "plan -s wrote a profile"
status=0
"$SIBYL" plan run --list-adapters 2> "$WORK/list.err" || status=$?
expect_eq "plan run --list-adapters refused" 2 "$status"

# plan evaluate: 100 points unless -e, of a stored profile or of one
# planned now (saved with -o).
"$SIBYL" plan evaluate "${FAST[@]}" --profile "$WORK/run.json" --json > "$WORK/eval.json"
expect_eq "plan evaluate's default points" 100 "$(json "j['evaluated']" "$WORK/eval.json")"
"$SIBYL" plan evaluate "${FAST[@]}" -e 7 -o "$WORK/planned.json" --json > "$WORK/eval2.json"
expect_eq "plan evaluate, planned now" "7 True" \
	"$(json "str(j['evaluated']) + ' ' + str(j['output'] == '$WORK/planned.json')" "$WORK/eval2.json")"
[ -s "$WORK/planned.json" ] || fail "plan evaluate -o wrote no profile"

# An incomplete profile is scored over the part its points cover; the
# evaluation points beyond them (extrapolated) are scored apart.
/usr/bin/python3 - "$WORK/run.json" "$WORK/half.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['complete'] = False
j['points'] = [[1, 3e-6], [400, 402e-6]]
json.dump(j, open(sys.argv[2], 'w'))
PY
status=0
"$SIBYL" plan evaluate "${FAST[@]}" --profile "$WORK/half.json" --range 1:1000 -e 40 --json \
	--evaluate-csv "$WORK/half.csv" > "$WORK/half.eval" 2> "$WORK/half.err" || status=$?
expect_eq "incomplete profile: exit status" 1 "$status"
expect_eq "points beyond the covered part scored apart" \
	"$(/usr/bin/python3 -c 'import csv,sys; print(sum(float(r["work_metric"]) > 400 for r in csv.DictReader(open(sys.argv[1]))))' "$WORK/half.csv")" \
	"$(json "j['outside_points']" "$WORK/half.eval")"
# kink is linear up to 500, so the covered part is predicted exactly and
# the extrapolation beyond 500 misses (ten times as steep there).
expect_eq "covered part exact, extrapolation not" "True True" \
	"$(json "j['mean_error_pct'] < 1, j['outside']['mean_error_pct'] > 20" "$WORK/half.eval" | tr -d '(),')"

# plan show: a text view without -o, the plot with it.
"$SIBYL" plan show "$WORK/run.json" > "$WORK/show.txt"
expect_eq "plan show names the profile" "kink: microseconds over 1:2000, complete, planning complete" \
	"$(head -1 "$WORK/show.txt")"
expect_eq "plan show's points" "$(json "len(j['points'])" "$WORK/run.json")" \
	"$(sed -n 's/^[0-9]* samples, \([0-9]*\) points.*/\1/p' "$WORK/show.txt")"
"$SIBYL" plan show "$WORK/run.json" -o "$WORK/run.svg" > "$WORK/plot.out"
grep -q '<svg' "$WORK/run.svg" || fail "plan show -o: no svg"
[ ! -s "$WORK/plot.out" ] || fail "plan show -o printed: $(cat "$WORK/plot.out")"

# Progress of an evaluation: on a terminal (script(1) gives it one) a
# line redrawn in place, counting the measurements; in a pipe nothing.
script -qec "'$SIBYL' plan evaluate ${FAST[*]} --profile '$WORK/run.json' --range 1:100 -e 2000 > /dev/null" \
	/dev/null > "$WORK/tty.out" < /dev/null
grep -q "sibyl: evaluate kink: [0-9]* of [0-9]* measurements" "$WORK/tty.out" ||
	fail "no progress line on a terminal: $(head -c 300 "$WORK/tty.out" | od -c | head)"
"$SIBYL" plan evaluate "${FAST[@]}" --profile "$WORK/run.json" --range 1:100 -e 2000 > /dev/null 2> "$WORK/pipe.err"
[ ! -s "$WORK/pipe.err" ] || fail "progress written to a pipe: $(head -c 200 "$WORK/pipe.err")"

# sibyl help plan names the subcommands.
# (Into a file first: grep -q stops reading at the match, and the
# pipeline would fail on sibyl's SIGPIPE under pipefail.)
"$SIBYL" help plan >"$WORK/help-plan"
grep -q "^usage: sibyl plan COMMAND ... (run, evaluate, envelope, show or list" "$WORK/help-plan" ||
	fail "sibyl help plan does not name the subcommands"
echo "ok: plan commands"
