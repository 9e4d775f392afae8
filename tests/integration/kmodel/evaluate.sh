#!/bin/bash
# sibyl kmodel evaluate on a dataset whose truth is known: counts that
# are linear or quadratic in the global size, times that are a positive
# combination of them.  OCLBoi must pick a polynomial model exactly for
# the quadratic kernels, OCLMan must predict every held-out kernel
# (R^2 > 0.99) and beat OCLBase; --plot draws a PNG; bad input is one
# line.
. "$(dirname "$0")/../lib.sh"
D="$WORK/data.jsonl"
/usr/bin/python3 - "$D" <<'PY'
import json, random, sys
random.seed(30)
cost = {"add": 1e-9, "load global": 4e-9, "fmul": 2e-9, "br": 0.5e-9}
out = open(sys.argv[1], "w")
def put(o): out.write(json.dumps(o) + "\n")
put({"type": "dataset", "format": "sibyl-kmodel-dataset", "version": 1, "suite": "synthetic",
     "sibyl": "test", "platform": "p", "device": "d"})
for k in range(10):
    name = "k%d" % k
    quad = k % 3 == 0
    coef = {op: (random.uniform(1, 50), random.uniform(0, 8 if op != "br" else 0)) for op in cost}
    put({"type": "kernel", "kernel": name, "file": name + ".cl", "category": "x",
         "static": [{"name": op, "count": random.randint(1, 20)} for op in cost]})
    for g in range(1024, 8193, 1024):
        for s in range(3):
            c = {op: int(a * g + (b * g * g / 1024 if quad else b)) for op, (a, b) in coef.items()}
            t = 2e-6 + sum(cost[op] * n for op, n in c.items())
            put({"type": "sample", "kernel": name, "gsize": g, "lsize": 0, "sample": s,
                 "seed": s, "device_ns": t * 1e9 * random.uniform(0.995, 1.005),
                 "counts": [{"name": op, "count": n} for op, n in c.items()]})
PY
"$SIBYL" kmodel evaluate "$D" --json > "$WORK/eval.json"
/usr/bin/python3 - "$WORK/eval.json" <<'PY'
import json, sys
ks = json.load(open(sys.argv[1]))["kernels"]
assert len(ks) == 10, len(ks)
for k in ks:
    quad = int(k["name"][1:]) % 3 == 0
    assert k["oclboi"].startswith("poly2") == quad, k
    assert k["r2_oclman"] > 0.99, k
    assert k["r2_oclman"] > k["r2_oclbase"], k
    assert set(k) >= {"name", "r2_oclman", "r2_oclbase", "rmse_oclman", "rmse_oclbase"}
    # predict's case: OCLBoi from the profile predict's rule chooses
    # (1024..4096: doubling up to half the largest size), calibrated.
    # Its folds hold one size out of 4, and a parabola fitted on the
    # other 3 may lose to the power law on a count a g + b g^2.
    if quad:
        assert k["extrap_error"] < 0.15 and k["extrap_r2"] > 0.7, k
    else:
        assert k["extrap_error"] < 0.02 and k["extrap_r2"] > 0.99, k
    # OCLBase given the same profile and calibration: still a poor
    # shape (its polynomial is shared by all kernels).
    assert k["extrap_r2_oclbase"] is None or k["extrap_r2"] > k["extrap_r2_oclbase"], k
    # which half errs: neither here (counts exact, costs shared).
    assert k["r2_counts"] > 0.99, k
    assert k["extrap_time_error"] < 0.02, k
    assert abs(k["level"] - 1) < 0.02, k
    assert k["extrap_count_error"] < (0.15 if quad else 1e-3), k
print("ok: %d held-out kernels, OCLMan R^2 >= %.4f" % (len(ks), min(k["r2_oclman"] for k in ks)))
PY
"$SIBYL" kmodel evaluate "$D" > "$WORK/table"
grep -Eq "^median R2: OCLMan (1|0\.99[0-9]*), .*better on 10 of 10 kernels" "$WORK/table" ||
	fail "text summary: $(tail -2 "$WORK/table")"
grep -Eq "^extrap: from a profile chosen by time, calibrated: median error [0-9]\.[0-9]% over 10 kernels; R2 at the larger sizes: OCLMan (1|0\.9[0-9]*), OCLBase .*, OCLMan better on 10$" \
	"$WORK/table" || fail "text summary: $(tail -2 "$WORK/table")"
grep -Eq "^time model on measured counts: median R2 (1|0\.99[0-9]*); extrap error from OCLBoi's counts [0-9.]+%, from the calibrated time model [01]\.[0-9]%" \
	"$WORK/table" || fail "diagnosis line: $(tail -1 "$WORK/table")"
grep -Eq "^time model's level \(measured / predicted on measured counts\): (0\.9[89][0-9]*|1|1\.0[0-9]*)\.\.(0\.9[89][0-9]*|1|1\.0[0-9]*), within 15% on 10 of 10 kernels$" \
	"$WORK/table" || fail "level line: $(tail -1 "$WORK/table")"

# The device model recovers the truth's costs (times are exact to 0.5%).
"$SIBYL" kmodel train-device "$D" -o "$WORK/dev.json" > /dev/null
/usr/bin/python3 - "$WORK/dev.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["time_model"]
cost = {"add": 1e-9, "load global": 4e-9, "fmul": 2e-9, "br": 0.5e-9}
got = {c["name"]: c["seconds"] for c in m["instructions"]}
for op, want in cost.items():
    assert abs(got[op] - want) <= 0.05 * want, (op, got[op], want, m)
print("ok: %s time model, costs within 5%%" % m["kind"])
PY

# The figure: a PNG, not replaced without --force.
"$SIBYL" kmodel evaluate "$D" --plot "$WORK/eval.png" > /dev/null
[ "$(head -c 4 "$WORK/eval.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "no PNG written"
if "$SIBYL" kmodel evaluate "$D" --plot "$WORK/eval.png" > /dev/null 2> "$WORK/err"; then
	fail "an existing plot replaced without --force"
fi
"$SIBYL" kmodel evaluate "$D" --plot "$WORK/eval.png" --force > /dev/null

echo '{"x": 1}' > "$WORK/bad.jsonl"
st=0; "$SIBYL" kmodel evaluate "$WORK/bad.jsonl" 2> "$WORK/err" || st=$?
expect_eq "not a dataset: exit status" 1 "$st"
grep -q "^sibyl: kmodel: .*bad.jsonl: not a kmodel dataset" "$WORK/err" || fail "$(cat "$WORK/err")"
st=0; "$SIBYL" kmodel evaluate "$D" --folds 1 2> "$WORK/err" || st=$?
expect_eq "--folds 1: exit status" 2 "$st"
head -n 40 "$D" > "$WORK/one.jsonl"	# one kernel: nothing to hold out
st=0; "$SIBYL" kmodel evaluate "$WORK/one.jsonl" 2> "$WORK/err" || st=$?
expect_eq "one kernel: exit status" 1 "$st"
grep -q "cannot make 5 folds" "$WORK/err" || fail "$(cat "$WORK/err")"
echo "ok: evaluate"

# Each kernel's times off the shared costs by its own factor (0.5..2):
# the time model misses each level, calibration on a kernel's profile
# recovers it (its cross validation says so), and
# predict's estimate is scaled by the kernel's measured / estimated.
/usr/bin/python3 - "$D" "$WORK/scaled.jsonl" <<'PY'
import json, sys
out = open(sys.argv[2], "w")
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "sample":
        o["device_ns"] *= 2 ** ((int(o["kernel"][1:]) % 5 - 2) / 2)
    out.write(json.dumps(o) + "\n")
PY
"$SIBYL" kmodel train-device "$WORK/scaled.jsonl" -o "$WORK/scaled.json" > "$WORK/out"
grep -q "; median error beyond each kernel's profile [0-9]*%, calibrated on it [0-9]%$" "$WORK/out" ||
	fail "$(cat "$WORK/out")"
/usr/bin/python3 - "$WORK/scaled.json" <<'PY'
import json, sys
cv = json.load(open(sys.argv[1]))["cv"]
assert cv["median_error"] > 0.2 and cv["calibrated_median_error"] < 0.02, cv
assert 0.8 < cv["calibrated_ratio_low"] <= 1 <= cv["calibrated_ratio_high"] < 1.3, cv
print("ok: calibrated median error %.3f, uncalibrated %.3f" % (cv["calibrated_median_error"],
                                                               cv["median_error"]))
PY

# Counts that grow as g^1.5 (an N x N matrix product): neither a line
# nor a parabola: OCLBoi takes the power law; linear counts stay linear.
# (From 3 sizes x 3 samples, extrap's 5 folds mostly hold out samples of
# a size the fit saw, and do not tell the kinds apart: not checked.)
head -n 1 "$D" > "$WORK/pow.jsonl"	# the same header
/usr/bin/python3 - "$WORK/pow.jsonl" <<'PY'
import json, sys
lines = []
for k in range(4):
    lines.append({"type": "kernel", "kernel": "p%d" % k, "file": "p.cl", "category": "x",
                  "static": [{"name": "fmul", "count": 3}, {"name": "add", "count": 2}]})
    for g in range(4096, 65537, 8192):
        c = {"fmul": int((k + 1) * g ** 1.5) if k < 2 else (k + 1) * g, "add": (k + 2) * g}
        lines += [{"type": "sample", "kernel": "p%d" % k, "gsize": g, "lsize": 0, "sample": s,
                   "seed": s, "device_ns": 1e3 + c["fmul"] + 0.5 * c["add"],
                   "counts": [{"name": n, "count": v} for n, v in c.items()]} for s in range(3)]
with open(sys.argv[1], "a") as out:
    out.writelines(json.dumps(o) + "\n" for o in lines)
PY
"$SIBYL" kmodel evaluate "$WORK/pow.jsonl" --folds 2 --json > "$WORK/pow.json"
/usr/bin/python3 - "$WORK/pow.json" <<'PY'
import json, sys
for k in json.load(open(sys.argv[1]))["kernels"]:
    want = "power law" if k["name"] in ("p0", "p1") else "linear"
    assert k["oclboi"] == want, k
    assert k["r2_oclman"] > 0.999 and k["r2_counts"] > 0.999, k
print("ok: g^1.5 counts by a power law")
PY
