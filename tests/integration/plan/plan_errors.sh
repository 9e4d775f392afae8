#!/usr/bin/env bash
# Bad input to sibyl plan: one error line, a non-zero status, outputs kept.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"
cc -shared -fPIC -O2 -DBAD_ABI -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/abi.so"
echo 'int nothing;' > "$WORK/none.c"
cc -shared -fPIC "$WORK/none.c" -o "$WORK/none.so"

# expect_error WHAT PATTERN -- COMMAND...: non-zero, exactly one stderr line
# "sibyl: ..." matching PATTERN.
expect_error() {
	local what=$1 pattern=$2 status=0
	shift 3
	"$@" > "$WORK/out" 2> "$WORK/err" || status=$?
	[ "$status" -ne 0 ] || fail "$what: exit status 0"
	[ "$(wc -l < "$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "$what: not one error line"; }
	grep -q "^sibyl: .*$pattern" "$WORK/err" || fail "$what: '$(cat "$WORK/err")' lacks '$pattern'"
	echo "ok: $what: $(cat "$WORK/err")"
}

expect_error "unknown adapter" "no adapter 'bogus'" -- "$SIBYL" plan --adapter bogus -o "$WORK/x.json"
expect_error "range not numbers" "is not LO:HI" -- "$SIBYL" plan --adapter insertion-sort --range 5:x -o "$WORK/x.json"
expect_error "range backwards" "fewer than 5" -- "$SIBYL" plan --adapter insertion-sort --range 100:10 -o "$WORK/x.json"
expect_error "bad --speed-guard" "speed-guard: -1 s is not between 0 and 3600" -- \
	"$SIBYL" plan --adapter insertion-sort --speed-guard -1 -o "$WORK/x.json"
expect_error "bad --speed-guard-tolerance" "speed-guard-tolerance: 0% is not above 0 and at most 100" -- \
	"$SIBYL" plan --adapter insertion-sort --speed-guard-tolerance 0 -o "$WORK/x.json"
expect_error "bad --rounds" "rounds: 0 is not between 1 and 100" -- \
	"$SIBYL" plan --adapter insertion-sort --rounds 0 -o "$WORK/x.json"
expect_error "bad --fit" "fit: 'wls' is neither 'relative' nor 'ols'" -- \
	"$SIBYL" plan --adapter insertion-sort --fit wls -o "$WORK/x.json"
expect_error "CSV without evaluation" "evaluate-csv needs --evaluate N" -- \
	"$SIBYL" plan --adapter insertion-sort --evaluate-csv "$WORK/x.csv" -o "$WORK/x.json"
expect_error "negative range" "is not LO:HI" -- "$SIBYL" plan --adapter insertion-sort --range -5:10 -o "$WORK/x.json"
expect_error "bad percentage" "percentage" -- "$SIBYL" plan --adapter insertion-sort --segment-error 0 -o "$WORK/x.json"
expect_error "threads on a serial adapter" "single-threaded" -- "$SIBYL" plan --adapter insertion-sort --threads 2 -o "$WORK/x.json"
expect_error "no output" "-o PROFILE.json is required" -- "$SIBYL" plan --adapter insertion-sort
expect_error "missing .so" "cannot open shared object" -- "$SIBYL" plan --adapter-so "$WORK/missing.so:x" -o "$WORK/x.json"
expect_error ".so without the symbol" "does not export sibyl_adapters" -- "$SIBYL" plan --adapter-so "$WORK/none.so:x" -o "$WORK/x.json"
expect_error "ABI mismatch" "ABI version 2" -- "$SIBYL" plan --adapter-so "$WORK/abi.so:spin" -o "$WORK/x.json"
expect_error "several adapters, none named" "several adapters" -- "$SIBYL" plan --adapter-so "$WORK/test.so" -o "$WORK/x.json"

expect_error "failing init" "adapter badinit: init: no such device" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" -o "$WORK/x.json"
# The worker program loads the object again, by the same relative path.
(cd "$WORK" && expect_error "relative .so" "adapter badinit: init: no such device" -- \
	"$SIBYL" plan --adapter-so test.so:badinit -o "$WORK/x.json")
SIBYL_PLAN_WORKER="$WORK/no-worker" expect_error "no worker program" \
	"cannot run $WORK/no-worker: No such file or directory" -- \
	"$SIBYL" plan --adapter insertion-sort -o "$WORK/x.json"

# A crashing and a hanging adapter stop the planner, not sibyl.
expect_error "crashing adapter" "adapter crash crashed (signal 11.*) at work metric" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:crash" --range 1:2000 -o "$WORK/crash.json"
expect_error "hanging adapter" "adapter hang timed out after 2 s at work metric" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:hang" --range 1:2000 --timeout 1 --repeat 1 --rounds 1 --sample-time 0 --speed-guard 0 -o "$WORK/hang.json"
# Ctrl-C while the adapter hangs (SIGINT to the whole process group, as
# a terminal sends it): the wait ends at once (the sample's time limit is
# 40 s), one line names the signal, the profile so far is written and no
# worker is left behind.  A background job starts with SIGINT ignored,
# and sibyl leaves an ignored signal ignored: env restores it.  setsid
# forks only when the caller leads its process group, and a background
# job of this shell does not: the job's pid is sibyl's, and its group's.
env --default-signal=INT setsid "$SIBYL" plan --adapter-so "$WORK/test.so:hang" --range 1:2000 --timeout 20 \
	--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0 -o "$WORK/int.json" \
	> "$WORK/out" 2> "$WORK/err" &
group=$!
sleep 3   # samples below 50 take microseconds: it hangs at 50 long before
kill -INT -- "-$group"
status=0
wait "$group" || status=$?
kill -KILL -- "-$group" 2> /dev/null && fail "interrupted plan: processes left in its group"
expect_eq "interrupted plan's status" 1 "$status"
[ "$(wc -l < "$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "interrupted plan: not one error line"; }
grep -q "^sibyl: plan: hang: interrupted by SIGINT at work metric 50; the partial profile is kept$" "$WORK/err" ||
	fail "interrupted plan: '$(cat "$WORK/err")'"
expect_eq "interrupted plan's profile marked partial" "False" "$(json "j['complete']" "$WORK/int.json")"
expect_eq "interrupted plan's status" "interrupted" "$(json "j['stats']['status']" "$WORK/int.json")"
echo "ok: interrupted plan: $(cat "$WORK/err")"

if [ -e "$WORK/crash.json" ]; then
	expect_eq "partial profile marked" "False" "$(json "j['complete']" "$WORK/crash.json")"
	expect_eq "crashed plan's status" "failed" "$(json "j['stats']['status']" "$WORK/crash.json")"
	json "j['points'][-1][0] < 50" "$WORK/crash.json" | grep -q True || fail "partial profile beyond the crash"
fi

# Existing outputs are kept.
echo keep > "$WORK/exists.json"
expect_error "existing output" "exists (use --force" -- "$SIBYL" plan --adapter insertion-sort -o "$WORK/exists.json"
expect_eq "output kept" "keep" "$(cat "$WORK/exists.json")"

# Damaged and foreign profiles.
printf '{"format": "sibyl-profile", "version": 1, "min_version": 1, "points": [[1, ' > "$WORK/cut.json"
echo '{"format": "sibyl-profile", "version": 7, "min_version": 5, "range": [1, 2], "points": [[1, 1]]}' > "$WORK/future.json"
echo '{"hello": 1}' > "$WORK/other.json"
expect_error "truncated profile" "cut.json: not JSON" -- "$SIBYL" plan show "$WORK/cut.json" -o "$WORK/p.png"
expect_error "future profile" "unsupported profile version 7" -- "$SIBYL" plan show "$WORK/future.json" -o "$WORK/p.png"
expect_error "not a profile" "not a performance profile" -- "$SIBYL" plan envelope "$WORK/other.json" -o "$WORK/e.json"
expect_error "missing profile" "missing.json" -- "$SIBYL" plan envelope "$WORK/missing.json" -o "$WORK/e.json"
echo '{"format": "sibyl-profile", "version": 1, "min_version": 1, "range": [1, 2], "points": [[1, 1], [2, 2]]}' > "$WORK/ok.json"
expect_error "plot format" "must end in .png or .svg" -- "$SIBYL" plan show "$WORK/ok.json" -o "$WORK/p.gif"
[ ! -e "$WORK/p.png" ] || fail "a plot was written for a bad profile"

# --profile: a stored profile to evaluate must be one with points.
expect_error "profile without --evaluate" "needs --evaluate N" -- \
	"$SIBYL" plan --adapter insertion-sort --profile "$WORK/ok.json"
expect_error "truncated profile to evaluate" "cut.json: not JSON" -- \
	"$SIBYL" plan --adapter insertion-sort --profile "$WORK/cut.json" --evaluate 3
echo '{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "insertion-sort", "range": [1, 2], "complete": false, "points": [], "samples": [[1, 1]]}' > "$WORK/nopoints.json"
expect_error "profile without points" "no profile points to evaluate" -- \
	"$SIBYL" plan --adapter insertion-sort --profile "$WORK/nopoints.json" --evaluate 3
expect_error "profile of an unnamed implementation" "a profile of an unnamed implementation, not of insertion-sort" -- \
	"$SIBYL" plan --adapter insertion-sort --profile "$WORK/ok.json" --evaluate 3
echo '{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "badinit", "work_metric": "microseconds", "range": [1, 2000], "points": [[1, 1e-6], [2000, 2e-3]], "stats": {"samples": 30}, "provenance": {"threads": 1}}' > "$WORK/badinit.json"
expect_error "stored profile, adapter fails to start" "adapter badinit: init: no such device" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" --profile "$WORK/badinit.json" --evaluate 3
sed 's/"threads": 1/"threads": 4/' "$WORK/badinit.json" > "$WORK/threads4.json"
expect_error "stored profile of other threads" "planned with 4 threads: give --threads 4" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" --profile "$WORK/threads4.json" --evaluate 3
sed 's/"microseconds"/"milliseconds"/' "$WORK/badinit.json" > "$WORK/metric.json"
expect_error "stored profile of another work metric" "planned for the work metric 'milliseconds'" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" --profile "$WORK/metric.json" --evaluate 3
expect_error "range beyond the stored profile" "is not within the profile's 1:2000" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" --profile "$WORK/badinit.json" --evaluate 3 --range 1:3000
sed 's/"samples": 30/"samples": -5/' "$WORK/badinit.json" > "$WORK/samples.json"
expect_error "stored profile's sample count" "stats.samples is not a sample count" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" --profile "$WORK/samples.json" --evaluate 3
expect_error "stored profile and -o" "takes no -o" -- \
	"$SIBYL" plan --adapter-so "$WORK/test.so:badinit" --profile "$WORK/badinit.json" --evaluate 3 -o "$WORK/x.json"
# One-time costs are measured in a probe that links only the C library
# (docs/predict.md, "One-time costs"): five runs; when no probe can run,
# the plan still succeeds and keeps the planning worker's own run.
needed=$(readelf -d "$SIBYL_BUILD/bin/sibyl-plan-one-time" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] || fail "sibyl-plan-one-time needs more than libc: $needed"
"$SIBYL" plan --adapter-so "$WORK/test.so:spin" --range 1:2000 --max-samples 12 --speed-guard 0 \
	-o "$WORK/probed.json" > /dev/null 2>&1 || [ -s "$WORK/probed.json" ] || fail "plan with probes"
SIBYL_PLAN_ONE_TIME=/bin/false "$SIBYL" plan --adapter-so "$WORK/test.so:spin" --range 1:2000 \
	--max-samples 12 --speed-guard 0 -o "$WORK/unprobed.json" > /dev/null 2>&1 ||
	[ -s "$WORK/unprobed.json" ] || fail "plan without probes"
/usr/bin/python3 - "$WORK/probed.json" "$WORK/unprobed.json" <<'PY' || fail "one-time probes"
import json, sys
probed, unprobed = (json.load(open(f))['stats']['one_time'] for f in sys.argv[1:3])
assert len(probed['runs']) == 5 and probed['exit_seconds'] is not None, probed
assert len(unprobed['runs']) == 1 and unprobed['exit_seconds'] is None, unprobed
assert unprobed['init_seconds'] == unprobed['runs'][0][0], unprobed
print("ok: one-time probes: 5 runs; without them, the worker's own run")
PY
echo "ok: plan errors"
