#!/usr/bin/env bash
# Plans that replay a program's calls in their order (docs/plan.md,
# "Replay: the calling context"): with an adapter whose run time is set
# by the call before it, the replayed profile shows what the program's
# order made of each call (small calls after large ones are slow), which
# a plan measuring each metric apart cannot; the profile says it was
# measured in traced order; a long trace is replayed in windows within
# the budget; what cannot be replayed is refused with one line.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN="$SIBYL_SOURCE/tests/integration/golden"
TARGETS="$SIBYL_SOURCE/tests/integration/targets"
QUICK=(--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/history_adapter.c" -o "$WORK/history.so"
cc -O2 -I"$TARGETS" "$HERE/order_calls.c" -L"$TARGETS_LIB" -Wl,-rpath,"$TARGETS_LIB" \
	-lsibyltest -o "$WORK/order_calls"
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$TARGETS/testlib.h" \
	--defs "$GOLDEN/testlib.defs" --output "$WORK/libwrap-test.so" 2> "$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap"; }
trace() {	# trace NAME SIZES...
	local name=$1
	shift
	"$SIBYL" trace --output "$WORK/$name.trace" --wrap "$WORK/libwrap-test.so" -- \
		"$WORK/order_calls" "$@" > /dev/null
}

# 40 calls alternating small (100..119 values) and large (2000..2019):
# each small call follows a large one, each large call a small one.
sizes=()
for i in $(seq 0 19); do sizes+=($((100 + i)) $((2000 + i))); done
trace alt "${sizes[@]}"
"$SIBYL" plan run --adapter-so "$WORK/history.so:history" --from-trace "$WORK/alt.trace" \
	--function testlib_sum --replay -o "$WORK/replay.json" --json > "$WORK/replay.out"
expect_eq "measured in traced order" "traced traced" \
	"$(json "j['provenance']['sample_order'] + ' ' + j['coverage']['replay']['order']" "$WORK/replay.json")"
expect_eq "the whole trace, five times, one run a sample" "5 200 [[0, 40]] 1 1 0.0" \
	"$(json "' '.join(str(x) for x in (j['coverage']['replay']['passes'], j['stats']['samples'], j['coverage']['replay']['spans'], j['provenance']['parameters']['repeat'], j['provenance']['parameters']['rounds'], j['provenance']['parameters']['speed_guard_wait']))" "$WORK/replay.json")"
# A small call ran after a large one: ~2 ms; a large one after a small
# one: ~0.1 ms.  The points say so, and the profile spans the calls.
expect_eq "small calls slow, large calls fast, as the order made them" "True True" \
	"$(json "'%s %s' % (j['points'][0][1] > 5 * j['points'][-1][1], [j['points'][0][0], j['points'][-1][0]] == [100.0, 2019.0])" "$WORK/replay.json")"
expect_eq "checked against the 40 calls, none extrapolated" "40 0 0" \
	"$(json "' '.join(str(j['trace_check'][k]) for k in ('calls', 'below_points', 'above_points'))" "$WORK/replay.out")"
# Measured one metric at a time, each run follows a run of its own size:
# the opposite order of times.
"$SIBYL" plan run --adapter-so "$WORK/history.so:history" --from-trace "$WORK/alt.trace" \
	--function testlib_sum "${QUICK[@]}" -o "$WORK/apart.json" > /dev/null
expect_eq "apart: small calls fast, and not in traced order" "True shuffled" \
	"$(json "str(5 * j['points'][0][1] < j['points'][-1][1]) + ' ' + j['provenance']['sample_order']" "$WORK/apart.json")"

# The one-time costs are measured at the program's first call, whose size
# decides what a library sets up then, not at the plan's first sample.
trace first 500 100 2000 1000
"$SIBYL" plan run --adapter-so "$WORK/history.so:history" --from-trace "$WORK/first.trace" \
	--function testlib_sum "${QUICK[@]}" -o "$WORK/first.json" > /dev/null
expect_eq "one-time costs at the program's first call" "500 5" \
	"$(json "'%d %d' % (j['stats']['one_time']['first_call_metric'], len(j['stats']['one_time']['runs']))" "$WORK/first.json")"

# A call that hangs in the middle of a sequence (the second pass's 22nd
# call of 40, all in one request) is caught after about one run's limit,
# not the 40 of the whole sequence (80 s here), and named; the first
# pass's profile is kept.
start=$SECONDS
expect_one_error "a hung call of a replay" 1 \
	"adapter history-hang timed out after 1 s at work metric 2010 (call 22 of 40 replayed back to back); the partial profile is kept" -- \
	"$SIBYL" plan run --adapter-so "$WORK/history.so:history-hang" --from-trace "$WORK/alt.trace" \
	--function testlib_sum --replay --timeout 1 -o "$WORK/hang.json"
[ $((SECONDS - start)) -lt 30 ] || fail "the hung call was caught after $((SECONDS - start)) s"
expect_eq "the first pass kept" "1 40" \
	"$(json "'%s %s' % (j['coverage']['replay']['passes'], len(j['samples']))" "$WORK/hang.json")"

# More calls than the budget: windows spread over the trace, each led in
# by the call before it, and the smallest and largest calls with theirs.
sizes=()
for i in $(seq 0 99); do sizes+=($((100 + (i * 37) % 1900))); done
sizes[77]=5000
trace long 50 "${sizes[@]}"
"$SIBYL" plan run --adapter-so "$WORK/history.so:history" --from-trace "$WORK/long.trace" \
	--function testlib_sum --replay --max-samples 30 -o "$WORK/long.json" > /dev/null
expect_eq "within the budget, one pass, spanning the calls" "True 1 50.0 5000.0" \
	"$(json "' '.join(str(x) for x in (j['stats']['samples'] <= 30, j['coverage']['replay']['passes'], j['points'][0][0], j['points'][-1][0]))" "$WORK/long.json")"
# The first call is the smallest (no call before it to lead in), the
# window is the middle 26 of the 101 calls, the largest is call 78.
expect_eq "the smallest call, a window, the largest call, led in" "[[0, 1], [37, 26], [77, 2]]" \
	"$(json "j['coverage']['replay']['spans']" "$WORK/long.json")"

# A budget of a few runs holds the extremes first (here 3: the first
# call, the smallest, and the largest led in), never more; one run cannot
# span two metrics.
"$SIBYL" plan run --adapter-so "$WORK/history.so:history" --from-trace "$WORK/long.trace" \
	--function testlib_sum --replay --max-samples 3 -o "$WORK/tiny.json" > /dev/null
expect_eq "three runs: the extremes, within the budget" "3 [[0, 1], [77, 2]] 50.0 5000.0" \
	"$(json "' '.join(str(x) for x in (j['stats']['samples'], j['coverage']['replay']['spans'], j['points'][0][0], j['points'][-1][0]))" "$WORK/tiny.json")"
expect_one_error "a budget of one run" 1 "--max-samples 1 is too few for a replay" -- \
	"$SIBYL" plan run --adapter-so "$WORK/history.so:history" --from-trace "$WORK/long.trace" \
	--function testlib_sum --replay --max-samples 1 -o "$WORK/one.json"

PLAN=("$SIBYL" plan run --adapter-so "$WORK/history.so:history" -o "$WORK/x.json")
expect_one_error "function not in the trace" 1 "no call of testlib_nothing" -- "${PLAN[@]}" \
	--from-trace "$WORK/alt.trace" --function testlib_nothing --replay
trace empty
expect_one_error "a trace without calls" 1 "no call of testlib_sum" -- "${PLAN[@]}" \
	--from-trace "$WORK/empty.trace" --function testlib_sum --replay
expect_one_error "replay without a trace" 2 "needs --from-trace" -- "${PLAN[@]}" --replay
printf '100\n2000\n' > "$WORK/list"
expect_one_error "a list has no order" 2 "needs --from-trace" -- "${PLAN[@]}" --metrics "$WORK/list" \
	--replay
expect_one_error "replay with repeats" 1 "takes no --repeat" -- "${PLAN[@]}" \
	--from-trace "$WORK/alt.trace" --function testlib_sum --replay --repeat 5
[ ! -e "$WORK/x.json" ] || fail "a refused plan wrote a profile"
echo "ok: plan_replay"
