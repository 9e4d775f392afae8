#!/bin/bash
# sibyl kmodel dataset: counts and device times of every suite kernel,
# one line per sample; resumed after an interruption (a torn last line,
# sizes missing) without measuring anything twice; refused on a dataset
# of another device or a file that is no dataset, which stay as they are.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/suite"
cat > "$WORK/suite.json" <<JSON
{"format": "sibyl-kmodel-suite", "version": 1, "samples": 2, "kernels": [
 {"name": "saxpy", "file": "$K/elementwise.cl", "category": "element-wise", "gsize": "1024:4096:1024"},
 {"name": "scan_blelloch", "file": "$K/scan.cl", "category": "scan", "gsize": "512:1024:256", "lsize": 128}
]}
JSON
D="$WORK/data.jsonl"
"$SIBYL" kmodel dataset "$WORK/suite.json" -o "$D"
check() {	# check LINES: the dataset's shape
	/usr/bin/python3 - "$D" "$1" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["type"] == "dataset" and lines[0]["device"] and lines[0]["version"] == 3, lines[0]
kernels = [l for l in lines if l["type"] == "kernel"]
samples = [l for l in lines if l["type"] == "sample"]
assert sorted(k["kernel"] for k in kernels) == ["saxpy", "scan_blelloch"], kernels
def counts(records):
    names = [r["name"] for r in records]
    assert len(names) == len(set(names)), records
    return {r["name"]: r["count"] for r in records}
assert counts(kernels[0]["static"])["store global"] >= 1
keys = [(s["kernel"], s["gsize"], s["sample"]) for s in samples]
assert len(keys) == len(set(keys)), "a sample measured twice"
assert len(samples) == (4 + 3) * 2, len(samples)
for s in samples:
    assert s["device_ns"] > 0
    c = counts(s["counts"])
    # Calls are named by what they call: get_global_id once per
    # work-item; scan_blelloch's barriers are barriers.
    assert "call" not in c and c["call workitem"] >= s["gsize"], s
    if s["kernel"] == "saxpy":	# one global store per work-item
        assert c["store global"] == s["gsize"], s
    else:
        assert c["call barrier"] > 0, s
assert len(lines) == int(sys.argv[2]), len(lines)
print("ok: %d samples" % len(samples))
PY
}
check 17
cp "$D" "$WORK/full.jsonl"

# Interrupted: the last two sizes gone and a line torn in the middle.
head -n 12 "$WORK/full.jsonl" > "$D"
sed -n 13p "$WORK/full.jsonl" > "$WORK/line13"
head -c 40 "$WORK/line13" >> "$D"
"$SIBYL" kmodel dataset "$WORK/suite.json" -o "$D"
check 17
# Nothing left to measure: nothing changes.
cp "$D" "$WORK/before"
"$SIBYL" kmodel dataset "$WORK/suite.json" -o "$D"
cmp "$D" "$WORK/before" || fail "a complete dataset changed"

# Counts of IR at another -O level: refused, the file untouched.
if "$SIBYL" kmodel dataset "$WORK/suite.json" -o "$D" -O 2 2> "$WORK/err"; then
	fail "an -O0 dataset carried on at -O2"
fi
grep -q "^sibyl: kmodel: .*data.jsonl counts IR at -O0, not -O2" "$WORK/err" || fail "$(cat "$WORK/err")"
cmp "$D" "$WORK/before" || fail "a dataset of another -O level changed"
grep -q '"opt_level":"0"' "$D" || fail "no opt_level in the header"

# A version 1 dataset (one "call" for every call) is read, never
# carried on with other names; nor is a version 2 one (one "call math").
sed '1s/"version":3/"version":2/' "$D" > "$WORK/v2.jsonl"
cp "$WORK/v2.jsonl" "$WORK/v2.before"
st=0; "$SIBYL" kmodel dataset "$WORK/suite.json" -o "$WORK/v2.jsonl" 2> "$WORK/err" || st=$?
expect_eq "carrying on a version 2 dataset: exit status" 1 "$st"
grep -q "^sibyl: kmodel: .*v2.jsonl is a version 2 dataset, whose calls are named otherwise than version 3's" \
	"$WORK/err" || fail "$(cat "$WORK/err")"
cmp "$WORK/v2.jsonl" "$WORK/v2.before" || fail "a version 2 dataset changed"
sed '1s/"version":3/"version":1/' "$D" > "$WORK/v1.jsonl"
cp "$WORK/v1.jsonl" "$WORK/v1.before"
# (Read: two kernels are too few for evaluate, not an unknown version.)
"$SIBYL" kmodel evaluate "$WORK/v1.jsonl" --folds 2 2> "$WORK/err" && fail "evaluated 2 kernels"
grep -q "choosing the time model needs 2 or more" "$WORK/err" || fail "$(cat "$WORK/err")"
st=0; "$SIBYL" kmodel dataset "$WORK/suite.json" -o "$WORK/v1.jsonl" 2> "$WORK/err" || st=$?
expect_eq "carrying on a version 1 dataset: exit status" 1 "$st"
grep -q "^sibyl: kmodel: .*v1.jsonl is a version 1 dataset, whose calls are named otherwise" \
	"$WORK/err" || fail "$(cat "$WORK/err")"
cmp "$WORK/v1.jsonl" "$WORK/v1.before" || fail "a version 1 dataset changed"

# Another device's dataset: refused in one line, the file untouched.
head -n 5 "$WORK/full.jsonl" | sed '1s/"device":"[^"]*"/"device":"another GPU"/' > "$WORK/other.jsonl"
cp "$WORK/other.jsonl" "$WORK/other.before"
if "$SIBYL" kmodel dataset "$WORK/suite.json" -o "$WORK/other.jsonl" 2> "$WORK/err"; then
	fail "another device's dataset accepted"
fi
grep -q "^sibyl: kmodel: .*other.jsonl was measured on another GPU" "$WORK/err" || fail "$(cat "$WORK/err")"
[ "$(wc -l < "$WORK/err")" = 1 ] || fail "more than one line: $(cat "$WORK/err")"
cmp "$WORK/other.jsonl" "$WORK/other.before" || fail "another device's dataset changed"

# Not a dataset; a bad suite.
echo '{"x": 1}' > "$WORK/notdata.jsonl"
if "$SIBYL" kmodel dataset "$WORK/suite.json" -o "$WORK/notdata.jsonl" 2> "$WORK/err"; then
	fail "a file that is no dataset accepted"
fi
grep -q "not a kmodel dataset" "$WORK/err" || fail "$(cat "$WORK/err")"
[ "$(cat "$WORK/notdata.jsonl")" = '{"x": 1}' ] || fail "the file that is no dataset changed"
echo '{"format": "sibyl-kmodel-suite", "version": 1, "kernels": [{"name": "x"}]}' > "$WORK/bad.json"
if "$SIBYL" kmodel dataset "$WORK/bad.json" -o "$WORK/x.jsonl" 2> "$WORK/err"; then
	fail "a bad suite accepted"
fi
grep -q "kernel 1 needs" "$WORK/err" || fail "$(cat "$WORK/err")"
# Math built-ins by cost class: vmath calls exp, sin, log1p, sqrt and
# fabs once per work-item; polar atan2, hypot, sin and cos; native
# native_exp, native_sqrt, fabs and native_divide (a variant is of its
# function's class).
cat > "$WORK/native.cl" <<'CL'
__kernel void native(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);
	b[i] = native_exp(a[i]) + native_sqrt(fabs(a[i])) + native_divide(a[i], 3.0f);
}
CL
cat > "$WORK/math.json" <<JSON
{"format": "sibyl-kmodel-suite", "version": 1, "samples": 1, "kernels": [
 {"name": "vmath", "file": "$K/elementwise.cl", "category": "element-wise", "gsize": "1024:2048:1024"},
 {"name": "polar", "file": "$K/mathfn.cl", "category": "element-wise", "gsize": "1024:2048:1024"},
 {"name": "native", "file": "$WORK/native.cl", "category": "element-wise", "gsize": "1024:2048:1024"}
]}
JSON
"$SIBYL" kmodel dataset "$WORK/math.json" -o "$WORK/math.jsonl"
/usr/bin/python3 - "$WORK/math.jsonl" <<'PY'
import json, sys
want = {"vmath": {"call transcendental": 3, "call sqrt": 1, "call math": 1},
        "polar": {"call transcendental": 4},
        "native": {"call transcendental": 1, "call sqrt": 1, "call math": 2}}
n = 0
for s in map(json.loads, open(sys.argv[1])):
    if s["type"] != "sample":
        continue
    c = {r["name"]: r["count"] for r in s["counts"]}
    for name, per in want[s["kernel"]].items():
        assert c.get(name) == per * s["gsize"], (s["kernel"], name, c)
    assert "call builtin" not in c, c
    n += 1
assert n == 6, n
print("ok: math calls by class")
PY
echo "ok: dataset"
