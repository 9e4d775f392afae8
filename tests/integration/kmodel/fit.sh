#!/bin/bash
# sibyl kmodel fit and predict --kernel-model: a kernel's OCLBoi saved
# with its provenance and samples, read back to the same predictions
# without a new profile, calibrated by its own profiled times; the
# interval, which widens away from the profiled sizes, and the warning
# far outside them; one-line refusals.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/small.sh"
D="$WORK/data.jsonl"
small_dataset "$D"
"$SIBYL" kmodel train-device "$D" -o "$WORK/dev.json" > /dev/null
# The interval's checks need every instruction to cost something: four
# noisy kernels may leave collatz's data-dependent ones at 0, and its
# time-weighted count then follows the global size exactly.
/usr/bin/python3 - "$WORK/dev.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for c in m["time_model"]["instructions"]:
    c["seconds"] = 1e-9
json.dump(m, open(sys.argv[1], "w"))
PY
# collatz: data-dependent trip counts, so OCLBoi's fit is not exact.
K="$WORK/collatz.json"
"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k collatz --profile 1024:8192:1024 -o "$K" > "$WORK/out"
grep -q "^$K: collatz of .*irregular.cl, OCLBoi .* from 24 samples at gsizes 1024..8192, -O0 on " \
	"$WORK/out" || fail "$(cat "$WORK/out")"
st=0; "$SIBYL" kmodel fit "$SUITE/irregular.cl" -k collatz -o "$K" 2> "$WORK/err" || st=$?
expect_eq "an existing kernel model: exit status" 1 "$st"
[ "$(wc -l < "$WORK/err")" = 1 ] || fail "not one line: $(cat "$WORK/err")"

for g in 4608 16384 1048576 64; do
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$K" --gsize $g --json \
		> "$WORK/p$g.json" 2> "$WORK/err$g"
done
for g in 4608 16384; do
	[ ! -s "$WORK/err$g" ] || fail "a warning at $g: $(cat "$WORK/err$g")"
done
for g in 1048576 64; do
	grep -q "^sibyl: warning: kmodel: global size $g is far outside the profiled 1024..8192" \
		"$WORK/err$g" || fail "no warning at $g: $(cat "$WORK/err$g")"
done
/usr/bin/python3 - "$WORK" "$K" <<'PY'
import json, math, sys
w, kfile = sys.argv[1], sys.argv[2]
k = json.load(open(kfile)); dev = json.load(open(w + "/dev.json"))
# version 3 when OCLBoi is a power law (older readers refuse it).
assert k["format"] == "sibyl-kmodel-kernel" and k["version"] == (3 if k["oclboi"]["power"] else 1), k
assert k["kernel"] == "collatz" and k["file"].endswith("irregular.cl") and k["device"], k
assert k["opt_level"] == "0" and k["sibyl"] and k["profile"] == "1024:8192:1024", k
assert len(k["samples"]) == 24 and k["samples"][0]["gsize"] == 1024, k["samples"][0]
p = {g: json.load(open("%s/p%d.json" % (w, g))) for g in (4608, 16384, 1048576, 64)}
# The file's OCLBoi and the device's costs give predict's estimate
# before calibration.
b = k["oclboi"]; cost = {c["name"]: c["seconds"] for c in dev["time_model"]["instructions"]}
def seconds(g):
    s = dev["time_model"]["launch_seconds"]
    for c in b["counts"]:
        if b.get("power"):	# ln(count) linear in ln(g), a line, or 0
            v = {"power": lambda: math.exp(c["intercept"] + c["coef"][0] * math.log(g)),
                 "line": lambda: c["intercept"] + c["coef"][0] * (g - c["mean"][0]) / c["sd"][0],
                 "zero": lambda: 0}[c["law"]]()
            s += cost.get(c["name"], 0) * max(0, v)
            continue
        f = [g, g * g] if b["poly2"] else [g]
        v = c["intercept"] + sum(wj * (fj - m) / sd for wj, fj, m, sd in
                                 zip(c["coef"], f, c["mean"], c["sd"]))
        s += cost.get(c["name"], 0) * max(0, v)
    return s
# Calibrated at the largest profiled size: the least measured /
# estimated time above the launch cost b, the estimate b + cal (u - b).
def tm(counts):
    return dev["time_model"]["launch_seconds"] + sum(cost.get(c["name"], 0) * c["count"]
                                                     for c in counts)
lb = max(0, dev["time_model"]["launch_seconds"])
top = max(s["gsize"] for s in k["samples"])
r = sorted((s["seconds"] - lb) / (tm(s["counts"]) - lb) for s in k["samples"] if s["gsize"] == top)
cal = r[0]
cv = dev["cv"]
assert 0 < cv["calibrated_ratio_low"] <= cv["calibrated_ratio_high"], cv
assert cv["calibrated_median_error"] >= 0, cv
for g, q in p.items():
    u = q["uncalibrated_seconds"]
    assert abs(seconds(g) - u) <= 1e-9 * abs(u) + 1e-15, (g, seconds(g), q)
    assert abs(q["calibration"] - cal) <= 1e-9 * cal, (cal, q)
    assert abs(q["seconds"] - (lb + cal * (u - lb))) <= 1e-9 * q["seconds"], q
    assert 0 <= q["low"] <= q["seconds"] <= q["high"], q
    assert q["far"] == (g in (64, 1048576)), q
# OCLBoi's share of the interval is smallest inside the profiled sizes
# and grows away from them: relative to the estimate for a power law
# (its band is a ratio), in seconds for a line (whose relative band
# narrows as the estimate grows away from the residuals' noise).
power = k["oclboi"]["power"]
rel = {g: q["oclboi_half"] / (q["seconds"] if power else 1) for g, q in p.items()}
assert rel[4608] > 0, rel
assert rel[4608] < rel[16384] < rel[1048576], rel
assert rel[4608] < rel[64], rel
print("ok: OCLBoi's relative half-width", {g: round(v, 4) for g, v in rel.items()})
PY

# Profiled on another device: its OCLBoi serves (counts are the
# kernel's), its times do not calibrate this device's model.
sed 's/"device": "[^"]*"/"device": "another GPU"/' "$K" > "$WORK/other.json"
"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/other.json" --gsize 4608 \
	--json > "$WORK/other.out"
/usr/bin/python3 - "$WORK/other.out" "$WORK/p4608.json" <<'PY'
import json, sys
o, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert o["calibration"] == 0 and o["seconds"] == o["uncalibrated_seconds"], o
assert o["uncalibrated_seconds"] == p["uncalibrated_seconds"] and p["calibration"] > 0, (o, p)
print("ok: another device's kernel model, uncalibrated")
PY

# A version 2 kernel model (power law of ln(1 + count), no law per
# count) is still read as it was written.
/usr/bin/python3 - "$K" "$WORK/v2.json" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))
if k["oclboi"]["power"]:
    k["version"] = 2
    for c in k["oclboi"]["counts"]:
        del c["law"]
json.dump(k, open(sys.argv[2], "w"))
PY
"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/v2.json" --gsize 16384 \
	--json > "$WORK/v2.out"
/usr/bin/python3 - "$WORK/v2.json" "$WORK/dev.json" "$WORK/v2.out" <<'PY'
import json, math, sys
k, dev, p = (json.load(open(a)) for a in sys.argv[1:])
if k["version"] == 2:
    cost = {c["name"]: c["seconds"] for c in dev["time_model"]["instructions"]}
    s = dev["time_model"]["launch_seconds"] + sum(
        cost.get(c["name"], 0) * max(0, math.expm1(c["intercept"] + c["coef"][0] * math.log(16384)))
        for c in k["oclboi"]["counts"])
    assert abs(s - p["uncalibrated_seconds"]) <= 1e-9 * s, (s, p)
print("ok: a version 2 kernel model")
PY

# Bad input: one line each, nothing printed.
refuse() {
	local what=$1 code=$2 pattern=$3 st=0
	shift 3
	"$@" > "$WORK/out" 2> "$WORK/err" || st=$?
	expect_eq "$what: exit status" "$code" "$st"
	[ "$(wc -l < "$WORK/err")" = 1 ] || fail "$what: not one line: $(cat "$WORK/err")"
	grep -q -- "$pattern" "$WORK/err" || fail "$what: $(cat "$WORK/err")"
	[ ! -s "$WORK/out" ] || fail "$what: printed $(cat "$WORK/out")"
}
refuse "a device model as the kernel model" 1 "dev.json: not a kmodel kernel model" \
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/dev.json" --gsize 9
sed -E 's/"version": [123],/"version": 4,/' "$K" > "$WORK/v4.json"
refuse "version 4" 1 "v4.json: kernel model version 4 is not 1 to 3" \
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/v4.json" --gsize 9
/usr/bin/python3 -c 'import json, sys
k = json.load(open(sys.argv[1])); k["samples"][3]["counts"].pop(); json.dump(k, open(sys.argv[2], "w"))' \
	"$K" "$WORK/torn.json"
refuse "a sample short of a count" 1 'torn.json: no valid "samples"' \
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/torn.json" --gsize 9
sed 's/"opt_level": "0"/"opt_level": "2"/' "$K" > "$WORK/o2.json"
refuse "counts of another -O level" 1 "kernel's counts are of -O2 IR, the device model's of -O0" \
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/o2.json" --gsize 9
refuse "a kernel model and a file" 2 "either -f FILE.cl and -k NAME or --kernel-model" \
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$K" \
	"$SUITE/irregular.cl" -k collatz --gsize 9
refuse "fit without -o" 2 "kmodel fit: expected FILE.cl, -k NAME and -o KERNEL.json" \
	"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k collatz
refuse "fit of no kernel" 1 "^sibyl: kmodel: no_such_kernel: [^:]*irregular.cl has no kernel" \
	"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k no_such_kernel -o "$WORK/none.json"
[ ! -e "$WORK/none.json" ] || fail "a failed fit wrote its file"
# A kernel that crashes past 64 work-items: the size walk stops within
# 2 sizes, and fit says so rather than OCLBoi's "needs at least 3".
cat > "$WORK/big_fails.cl" <<'CL'
__kernel void big_fails(__global float *out)
{
	size_t i = get_global_id(0);

	if (get_global_size(0) > 64)
		((__global float *)0)[i] = 1;
	else
		out[i] = 2 * i;
}
CL
st=0
"$SIBYL" kmodel fit "$WORK/big_fails.cl" -k big_fails -o "$WORK/bf.json" 2> "$WORK/err" || st=$?
[ "$st" = 1 ] && [ ! -e "$WORK/bf.json" ] &&
	grep -q "^sibyl: kmodel: big_fails: its sizes (failed) stopped after [12] (.*): the next size failed; give them with --profile$" \
		"$WORK/err" || fail "a walk stopped early: $st $(cat "$WORK/err")"
# matmul's counts grow as G^1.5 (N x N from G work-items): the power
# law, not a parabola that doubles them 16 times further.
"$SIBYL" kmodel fit "$SUITE/matrix.cl" -k matmul --profile 1024:8192:1024 -o "$WORK/matmul.json" \
	> "$WORK/out"
grep -q "OCLBoi power law (CV R^2 " "$WORK/out" || fail "matmul: $(cat "$WORK/out")"
# Each count of a power law names its law.
sed '0,/"law": "power"/s//"law": "cubic"/' "$WORK/matmul.json" > "$WORK/law.json"
refuse "an unknown law" 1 'law.json: no valid "oclboi"' \
	"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$WORK/law.json" --gsize 9
# By default the sizes are chosen by the kernel's time: doubling from
# 64 work-items (128 for scan_blelloch's work-groups of 128) to a size
# T where it runs 30 times the launch (at least the slowest of the first
# 3 sizes), then T/8..T by T/8, all of it
# recorded; -v says it.  A budget too small for anything: 3 sizes.
"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k gather -o "$WORK/gather.json" -v 2> "$WORK/err" \
	> /dev/null
grep -q "^sibyl: kmodel: gather timed at 64 .* us, 128 .*; stopped by [a-z]* (launch .* us x 30, budget 10 s): profiled at [0-9]*:[0-9]*:[0-9]*$" \
	"$WORK/err" || fail "-v: $(cat "$WORK/err")"
"$SIBYL" kmodel fit "$SUITE/scan.cl" -k scan_blelloch -l 128 -o "$WORK/scan.json" > /dev/null
"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k gather -o "$WORK/tight.json" --profile-budget 0.2 \
	> /dev/null
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
def check(name, start):
    k = json.load(open("%s/%s.json" % (w, name))); c = k["profile_choice"]
    g = [s["gsize"] for s in c["timed"]]; t = [s["seconds"] for s in c["timed"]]
    assert g == [start * 2 ** i for i in range(len(g))], g
    top = g[-1]; lo = top // 8 if len(g) >= 4 else start
    assert k["profile"] == "%d:%d:%d" % (lo, top, lo), (k["profile"], g)
    assert sorted({s["gsize"] for s in k["samples"]}) == list(range(lo, top + 1, lo)), k["profile"]
    assert c["factor"] == 30 and c["launch_seconds"] >= max(t[:3]), c
    if c["stop"] == "time":
        assert t[-1] >= c["factor"] * c["launch_seconds"] and top >= 8 * start, c
        assert all(x < c["factor"] * c["launch_seconds"] or y < 8 * start for x, y in zip(t[:-1], g)), c
    return c
assert check("gather", 64)["stop"] in ("time", "budget", "failed"), "gather"
check("scan", 128)
c = check("tight", 64)
assert c["stop"] == "budget" and len(c["timed"]) == 3, c
print("ok: profile sizes chosen by time")
PY
refuse "a launch factor under 1" 2 "kmodel fit: --launch-factor must be in 1..1e6" \
	"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k gather -o "$WORK/x.json" --launch-factor 0.5
echo "ok: fit"
