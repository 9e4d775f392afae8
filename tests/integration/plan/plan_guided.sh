#!/usr/bin/env bash
# Plans guided by where a program calls (docs/plan.md, "Plan where the
# program calls"): a traced program's calls of testlib_sum guide a plan
# of an adapter of the same function; a list of work metrics guides the
# staircase test adapter; what cannot be planned so is refused with one
# line.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN="$SIBYL_SOURCE/tests/integration/golden"
TARGETS="$SIBYL_SOURCE/tests/integration/targets"
QUICK=(--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" -I"$TARGETS" "$HERE/sum_adapter.c" \
	-L"$TARGETS_LIB" -Wl,-rpath,"$TARGETS_LIB" -lsibyltest -o "$WORK/sum.so"

# The program sums 1, 10 and 100 values, traced with the work each call
# declares ("values summed", golden/testlib.defs).
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$TARGETS/testlib.h" \
	--defs "$GOLDEN/testlib.defs" --output "$WORK/libwrap-test.so" 2> "$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap"; }
"$SIBYL" trace --output "$WORK/calls.trace" --wrap "$WORK/libwrap-test.so" -- \
	"$TARGETS_BIN/fixed_calls" > /dev/null
"$SIBYL" plan run --adapter-so "$WORK/sum.so" --from-trace "$WORK/calls.trace" \
	--function testlib_sum "${QUICK[@]}" -o "$WORK/sum.json" --json > "$WORK/sum.out"
expect_eq "sampled where the program called" "[1, 10, 100]" \
	"$(json "j['coverage']['metrics']" "$WORK/sum.json")"
expect_eq "coverage names the trace and function" "trace testlib_sum" \
	"$(json "j['coverage']['kind'] + ' ' + j['coverage']['function']" "$WORK/sum.json")"
expect_eq "the profile spans the calls" "[1.0, 100.0] 3" \
	"$(json "[float(x) for x in j['range']], len(j['points'])" "$WORK/sum.json" | tr -d '()' | sed 's/, \([0-9]*\)$/ \1/')"
# Two measurements a metric, a third where those two disagree.
expect_eq "two or three measurements a metric" "True" "$(json "6 <= j['samples'] <= 9" "$WORK/sum.out")"
expect_eq "checked against the 3 calls, none extrapolated" "3 0 0 0" \
	"$(json "' '.join(str(j['trace_check'][k]) for k in ('calls', 'between_sampled', 'below_points', 'above_points'))" "$WORK/sum.out")"
# A stored profile is checked against the trace the same way, measuring
# nothing.
"$SIBYL" plan evaluate --adapter-so "$WORK/sum.so" --profile "$WORK/sum.json" \
	--from-trace "$WORK/calls.trace" --function testlib_sum > "$WORK/check.out"
grep -q "against the 3 traced calls of testlib_sum: predicted" "$WORK/check.out" ||
	{ cat "$WORK/check.out"; fail "stored profile not checked against the trace"; }
# The process's first call pays what the profile's first run paid beyond
# a warm one (a library's lazy set-up): with that made 1 s, the check
# predicts 1 s more, on the one first call.
python3 - "$WORK/sum.json" "$WORK/first.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
o = j['stats']['one_time']
o['first_call_seconds'] = o['first_call_sample_seconds'] + 1.0
json.dump(j, open(sys.argv[2], 'w'))
PY
for p in sum first; do
	"$SIBYL" plan evaluate --adapter-so "$WORK/sum.so" --profile "$WORK/$p.json" \
		--from-trace "$WORK/calls.trace" --function testlib_sum --json > "$WORK/$p.check"
done
expect_eq "the first call's cost added once" "1 True" \
	"$(python3 -c "import json, sys; a, b = (json.load(open(f))['trace_check'] for f in sys.argv[1:]); print(b['first_calls'], abs(b['predicted_s'] - a['predicted_s'] - 1.0) < 1e-6 and abs(b['first_call_s'] - 1.0) < 1e-6)" "$WORK/sum.check" "$WORK/first.check")"

# A call that is its process's first at a metric whose first call the
# profile records is predicted at the line there times that first call's
# ratio to its metric's other runs, timed alike in whatever base (here
# half of them, and they 100 times the line): never below zero, with no
# other clamp.
python3 - "$WORK/sum.json" "$WORK/half.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
line = [p[1] for p in j['points'] if p[0] == 10][0]
j['stats']['one_time']['first_calls'] = {'measured': 'by hand', 'metrics': [[10, 50 * line, 100 * line]]}
json.dump(j, open(sys.argv[2], 'w'))
PY
"$SIBYL" plan evaluate --adapter-so "$WORK/sum.so" --profile "$WORK/half.json" \
	--from-trace "$WORK/calls.trace" --function testlib_sum --json > "$WORK/half.check"
expect_eq "a first call at its metric: the line times its ratio" "1 True True" \
	"$(python3 -c "import json, sys; a, b = (json.load(open(f))['trace_check'] for f in sys.argv[1:3]); line = [p[1] for p in json.load(open(sys.argv[3]))['points'] if p[0] == 10][0]; print(b['first_at_calls'], abs(b['first_at_s'] + line / 2) < 1e-12, abs(b['predicted_s'] - a['predicted_s'] + line / 2) < 1e-12)" "$WORK/sum.check" "$WORK/half.check" "$WORK/sum.json")"

# A list of work metrics, weights as shares of time: with a budget too
# small for all of them (4 metrics for 9 samples), the ends, the heaviest
# and the median call are sampled.
printf '# size weight\n16 5\n17 1\n100\n101 30\n# a comment\n997 2\n1000\n' > "$WORK/list"
"$SIBYL" plan run --adapter-so "$WORK/test.so:staircase" --metrics "$WORK/list" "${QUICK[@]}" \
	--max-samples 9 -o "$WORK/stairs.json" > "$WORK/stairs.out"
expect_eq "ends, heaviest, median call" "[16, 100, 101, 1000]" \
	"$(json "j['coverage']['metrics']" "$WORK/stairs.json")"
# The staircase's points are its own times: prime 101 ten times 100's.
expect_eq "staircase kept" "True" \
	"$(json "[p[1] for p in j['points'] if p[0] == 101][0] > 5 * [p[1] for p in j['points'] if p[0] == 16][0]" "$WORK/stairs.json")"
grep -q "sampled 4 of the 6 work metrics" "$WORK/stairs.out" || fail "coverage line: $(cat "$WORK/stairs.out")"

expect_one_error "trace without function" 2 "go together" -- "$SIBYL" plan run \
	--adapter-so "$WORK/sum.so" --from-trace "$WORK/calls.trace" -o "$WORK/x.json"
expect_one_error "function not called" 1 "no call of testlib_nothing" -- "$SIBYL" plan run \
	--adapter-so "$WORK/sum.so" --from-trace "$WORK/calls.trace" --function testlib_nothing \
	-o "$WORK/x.json"
expect_one_error "other work metric" 1 "the trace's work counts 'values summed' but the adapter is measured in 'microseconds'" \
	-- "$SIBYL" plan run --adapter-so "$WORK/test.so:spin" --from-trace "$WORK/calls.trace" \
	--function testlib_sum -o "$WORK/x.json"
printf '10\nten\n' > "$WORK/bad"
expect_one_error "bad list line" 1 "bad:2: not a work metric" -- "$SIBYL" plan run \
	--adapter-so "$WORK/test.so:spin" --metrics "$WORK/bad" -o "$WORK/x.json"
printf '5\n5000\n' > "$WORK/wide"
expect_one_error "list outside the adapter's range" 1 "work metrics 5 to 5000, and spin's range is 1:2000" \
	-- "$SIBYL" plan run --adapter-so "$WORK/test.so:spin" --metrics "$WORK/wide" -o "$WORK/x.json"
expect_one_error "guided with --evaluate" 2 "checked against the calls themselves" -- "$SIBYL" plan run \
	--adapter-so "$WORK/test.so:spin" --metrics "$WORK/list" --evaluate 10 -o "$WORK/x.json"
[ ! -e "$WORK/x.json" ] || fail "a refused plan wrote a profile"
# --range plans the calls within it and says how many it left out.
"$SIBYL" plan run --adapter-so "$WORK/test.so:spin" --metrics "$WORK/wide" --range 1:2000 \
	"${QUICK[@]}" -o "$WORK/narrow.json" > /dev/null
expect_eq "calls outside --range left out" "[5] 1" \
	"$(json "j['coverage']['metrics'], j['coverage']['left_out_calls']" "$WORK/narrow.json" | tr -d '()' | sed 's/, / /')"
echo "ok: plan_guided"
