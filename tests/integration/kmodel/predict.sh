#!/bin/bash
# sibyl kmodel train-device and predict: a device model with its
# provenance, a prediction {seconds, low, high} for a kernel outside the
# dataset (the issue's `-f FILE.cl` spelling included), a warning far
# outside the profiled sizes, and one-line refusals of a model of
# another device and of a file that is no model.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/small.sh"
D="$WORK/data.jsonl"
small_dataset "$D"
"$SIBYL" kmodel train-device "$D" -o "$WORK/dev.json" > "$WORK/out"
grep -q "time model of .*, 4 kernels; held-out median R^2" "$WORK/out" || fail "$(cat "$WORK/out")"
/usr/bin/python3 - "$WORK/dev.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["format"] == "sibyl-kmodel-device" and m["version"] == 1, m
assert m["device"] and m["suite"].endswith("suite.json") and m["sibyl"] and m["kernels"] == 4, m
assert m["time_model"]["kind"] in ("linear", "nonneg", "nonneg-relative"), m
assert "load global" in [c["name"] for c in m["time_model"]["instructions"]], m
print("ok: device model", m["time_model"]["kind"])
PY
if "$SIBYL" kmodel train-device "$D" -o "$WORK/dev.json" 2> "$WORK/err"; then
	fail "an existing model replaced without --force"
fi

"$SIBYL" kmodel predict --model "$WORK/dev.json" -f "$SUITE/irregular.cl" -k gather \
	--profile 1024:8192:1024 --gsize 16384 --json > "$WORK/p.json" 2> "$WORK/err"
[ ! -s "$WORK/err" ] || fail "a warning within 4x of the profiled sizes: $(cat "$WORK/err")"
/usr/bin/python3 - "$WORK/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
# The interval is the estimate times the 5%..95% of held-out measured /
# predicted: it need not hold a biased estimate, but it is ordered.
# (Four noisy kernels make a poor model: the estimate may even be 0.)
assert 0 <= p["low"] <= p["high"] and abs(p["seconds"]) < 1e3, p
assert p["profiled_min"] == 1024 and p["profiled_max"] == 8192 and p["gsize"] == 16384, p
print("ok: predicted %.3g s (%.3g .. %.3g)" % (p["seconds"], p["low"], p["high"]))
PY
"$SIBYL" kmodel predict --model "$WORK/dev.json" "$SUITE/irregular.cl" -k gather \
	--profile 1024:8192:1024 --gsize 1048576 > "$WORK/out" 2> "$WORK/err"
grep -q "^gsize 1048576: .* ms (" "$WORK/out" || fail "$(cat "$WORK/out")"
grep -q "^sibyl: warning: kmodel: global size 1048576 is far outside the profiled 1024..8192" \
	"$WORK/err" || fail "no warning far outside: $(cat "$WORK/err")"

# The default profile, chosen by the kernel's time (fit.sh checks the
# rule): T/8..T, said with -v.
"$SIBYL" kmodel predict --model "$WORK/dev.json" "$SUITE/irregular.cl" -k gather \
	--gsize 16777216 --json -v > "$WORK/p.json" 2> "$WORK/err"
grep -q "^sibyl: kmodel: gather timed at 64 .*: profiled at [0-9:]*$" "$WORK/err" ||
	fail "-v: $(cat "$WORK/err")"
/usr/bin/python3 - "$WORK/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
top = p["profiled_max"]
assert top >= 512 and top % 64 == 0 and p["profiled_min"] == top / 8, p
print("ok: chosen profile %g..%g" % (p["profiled_min"], top))
PY
sed 's/"device": "[^"]*"/"device": "another GPU"/' "$WORK/dev.json" > "$WORK/other.json"
st=0; "$SIBYL" kmodel predict --model "$WORK/other.json" "$SUITE/irregular.cl" -k gather \
	--gsize 16384 > "$WORK/out" 2> "$WORK/err" || st=$?
expect_eq "another device's model: exit status" 1 "$st"
[ "$(wc -l < "$WORK/err")" = 1 ] || fail "not one line: $(cat "$WORK/err")"
grep -q "^sibyl: kmodel: the model was trained on another GPU ([0-9]* compute units), the kernel ran on " "$WORK/err" ||
	fail "$(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "printed a prediction: $(cat "$WORK/out")"
st=0; "$SIBYL" kmodel predict --model "$D" "$SUITE/irregular.cl" -k gather --gsize 16384 \
	2> "$WORK/err" || st=$?
expect_eq "not a model: exit status" 1 "$st"
grep -q "^sibyl: kmodel: .*data.jsonl:2: end of file expected" "$WORK/err" || fail "$(cat "$WORK/err")"
echo '{"format": "sibyl-kmodel-suite"}' > "$WORK/suite.json"
st=0; "$SIBYL" kmodel predict --model "$WORK/suite.json" "$SUITE/irregular.cl" -k gather \
	--gsize 16384 2> "$WORK/err" || st=$?
expect_eq "a suite as the model: exit status" 1 "$st"
grep -q "suite.json: not a kmodel device model" "$WORK/err" || fail "$(cat "$WORK/err")"
echo "ok: predict"
