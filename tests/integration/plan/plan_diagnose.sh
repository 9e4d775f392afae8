#!/usr/bin/env bash
# What a line cannot fit is diagnosed, not sampled to the safety stop
# (docs/plan.md, "Diagnosis"): a staircase metric, bimodal repeats; and
# adapters as users write them: --adapter PATH, a unit slip refused.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
QUICK=(--repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$HERE/test_adapters.c" -o "$WORK/test.so"

# expect_stop NAME PATTERN -- COMMAND...: exit 1, one line matching.
expect_stop() {
	local what=$1 pattern=$2 status=0
	shift 3
	"$@" > "$WORK/out" 2> "$WORK/err" || status=$?
	[ "$status" -eq 1 ] || { cat "$WORK/err"; fail "$what: exit status $status"; }
	[ "$(wc -l < "$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "$what: not one line"; }
	grep -q "^sibyl: plan: .*$pattern" "$WORK/err" || fail "$what: $(cat "$WORK/err")"
	echo "ok: $what: $(cat "$WORK/err")"
}

# Prime metrics ten times slower than their neighbours: no line fits.
expect_stop "staircase diagnosed" "the work metric does not predict time.*--from-trace" -- \
	"$SIBYL" plan run --adapter-so "$WORK/test.so:staircase" --range 16:2000 "${QUICK[@]}" \
	-o "$WORK/stairs.json"
expect_eq "staircase: status, few samples" "diagnosed True" \
	"$(json "j['stats']['status'], j['stats']['samples'] <= 300" "$WORK/stairs.json" | tr -d "(),'")"
# 40 or 130 us by turns at every metric: repeats disagree.
expect_stop "bimodal diagnosed" "repeats at one work metric disagree.*pre-empted" -- \
	"$SIBYL" plan run --adapter-so "$WORK/test.so:bimodal" --range 8192:1000000 "${QUICK[@]}" \
	-o "$WORK/bimodal.json"
expect_eq "bimodal: status, few samples" "diagnosed True" \
	"$(json "j['stats']['status'], j['stats']['samples'] <= 300" "$WORK/bimodal.json" | tr -d "(),'")"
# A linear profile is not diagnosed.
"$SIBYL" plan run --adapter "$WORK/test.so:spin" --range 1:2000 "${QUICK[@]}" -o "$WORK/spin.json" \
	> /dev/null || fail "spin through --adapter PATH"
expect_eq "spin complete" "complete" "$(json "j['stats']['status']" "$WORK/spin.json")"
# Milliseconds for seconds: refused at the first sample.
expect_stop "unit slip" "run reported 0.003 s but took .* at work metric 1: return seconds" -- \
	"$SIBYL" plan run --adapter "$WORK/test.so:millis" "${QUICK[@]}" -o "$WORK/millis.json"
# A failed run or setup says what it returned.
expect_stop "failed run" "run failed (returned -2) at work metric 50" -- \
	"$SIBYL" plan run --adapter "$WORK/test.so:failrun" "${QUICK[@]}" -o "$WORK/failrun.json"
expect_stop "failed setup" "setup failed (returned 7; 0 is success) at work metric 50" -- \
	"$SIBYL" plan run --adapter "$WORK/test.so:failsetup" "${QUICK[@]}" -o "$WORK/failsetup.json"
# An OpenCL implementation keeps every CPU: its runtime's threads are its.
"$SIBYL" plan run --adapter "$WORK/test.so:device" "${QUICK[@]}" --range 1:200 \
	-o "$WORK/device.json" >/dev/null 2>&1 || fail "device adapter pinned to fewer CPUs"
echo "ok: plan_diagnose"
