#!/bin/bash
# sibyl kmodel predict refuses, in one line and printing nothing, what
# it cannot predict from: a kernel model of no more samples than its
# OCLBoi has terms (its interval would be infinite, and --json printed
# an empty line), counts named as in another dataset version than the
# device model's (a call of version 1 is "call", of version 2 "call
# workitem", "call math", of version 3 also "call transcendental"...:
# unmatched names would cost nothing), and a kernel
# model's samples that are no times or sizes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/small.sh"
D="$WORK/data.jsonl"
small_dataset "$D"
"$SIBYL" kmodel train-device "$D" -o "$WORK/dev.json" > /dev/null
K="$WORK/gather.json"
"$SIBYL" kmodel fit "$SUITE/irregular.cl" -k gather --profile 1024:5120:1024 -o "$K" > /dev/null
/usr/bin/python3 - "$WORK/dev.json" "$K" <<'PY'
import json, sys
for f in sys.argv[1:]:
    m = json.load(open(f))
    assert m["dataset_version"] == 3, (f, m.get("dataset_version"))
print("ok: the models record the naming of their counts")
PY
"$SIBYL" kmodel predict --model "$WORK/dev.json" --kernel-model "$K" --gsize 4096 --json \
	> "$WORK/p.json"
/usr/bin/python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); assert p["seconds"] >= 0, p' \
	"$WORK/p.json"

refuse() {
	local what=$1 pattern=$2 st=0
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err" || st=$?
	expect_eq "$what: exit status" 1 "$st"
	[ "$(wc -l < "$WORK/err")" = 1 ] || fail "$what: not one line: $(cat "$WORK/err")"
	grep -q -- "$pattern" "$WORK/err" || fail "$what: $(cat "$WORK/err")"
	[ ! -s "$WORK/out" ] || fail "$what: printed '$(cat "$WORK/out")'"
}
# OCLBoi's folds are of global sizes: 6 samples of 2 sizes hold out one
# and leave one to fit a line on.
refuse "2 global sizes" "2 global sizes: OCLBoi's cross validation needs at least 3" \
	"$SIBYL" kmodel fit "$SUITE/elementwise.cl" -k saxpy --profile 1024:2048:1024 -n 3 \
	-o "$WORK/two.json"
[ ! -e "$WORK/two.json" ] || fail "2 global sizes: a kernel model written"
# edit IN OUT PYTHON: OUT is the kernel model IN with the statement
# applied to k (the parsed file).
edit() {
	/usr/bin/python3 -c 'import json, sys
k = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(k))' "$@"
}
predict() {
	"$SIBYL" kmodel predict --model "$1" --kernel-model "$2" --gsize 4096 --json
}

edit "$K" "$WORK/two.json" 'del k["samples"][2:]'
refuse "2 samples" "kmodel: the kernel's OCLBoi (.*) has [23] terms and needs at least [34] samples, not 2" \
	predict "$WORK/dev.json" "$WORK/two.json"

# A device model of a version 1 dataset, by its header or (a model of
# before the field) by its cost names.
sed '1s/"version":3/"version":1/' "$D" > "$WORK/v1.jsonl"
"$SIBYL" kmodel train-device "$WORK/v1.jsonl" -o "$WORK/dev1.json" > /dev/null
refuse "a version 1 device model" \
	"kmodel: the kernel's counts are named as in dataset version 3, the device model's as in version 1: train the device model on a new dataset" \
	predict "$WORK/dev1.json" "$K"
refuse "a version 1 device model, profiling now" "device model's as in version 1" \
	"$SIBYL" kmodel predict --model "$WORK/dev1.json" "$SUITE/irregular.cl" -k gather \
	--profile 1024:5120:1024 --gsize 4096
/usr/bin/python3 -c 'import json, sys
m = json.load(open(sys.argv[1])); del m["dataset_version"]
for c in m["time_model"]["instructions"]:
    if c["name"].startswith("call "): c["name"] = "call"
json.dump(m, open(sys.argv[2], "w"))' "$WORK/dev.json" "$WORK/old1.json"
refuse "a device model of before the field, version 1 names" "device model's as in version 1" \
	predict "$WORK/old1.json" "$K"
/usr/bin/python3 -c 'import json, sys
m = json.load(open(sys.argv[1])); del m["dataset_version"]; json.dump(m, open(sys.argv[2], "w"))' \
	"$WORK/dev.json" "$WORK/old2.json"
refuse "a device model of before the field, version 2 names" "device model's as in version 2" \
	predict "$WORK/old2.json" "$K"
edit "$K" "$WORK/k1.json" 'k["dataset_version"] = 1'
refuse "a version 1 kernel model" "counts are named as in dataset version 1, the device model's as in version 3: fit the kernel again" \
	predict "$WORK/dev.json" "$WORK/k1.json"

# Samples: the times calibrate the prediction, the sizes scale OCLBoi.
for bad in 'k["samples"][1]["seconds"] = None' 'k["samples"][1]["seconds"] = -1e-3' \
	'del k["samples"][1]["seconds"]' 'k["samples"][1]["seconds"] = "1"' \
	'k["samples"][1]["gsize"] = 0' 'k["samples"][1]["counts"][0]["count"] = -5' \
	'del k["samples"][1]["counts"][0]["count"]'; do
	edit "$K" "$WORK/bad.json" "$bad"
	refuse "$bad" 'bad.json: no valid "samples"' predict "$WORK/dev.json" "$WORK/bad.json"
done
for bad in 'del k["oclboi"]["gsize_max"]' 'k["oclboi"]["gsize_max"] = 0' \
	'k["oclboi"]["gsize_min"] = 0' 'k["oclboi"]["gsize_min"] = 9000'; do
	edit "$K" "$WORK/bad.json" "$bad"
	refuse "$bad" 'bad.json: "oclboi" gsize_min .* and gsize_max .* are not 1 <= min <= max' \
		predict "$WORK/dev.json" "$WORK/bad.json"
done

# The device's compute units (PoCL's threads, POCL_MAX_PTHREAD_COUNT):
# the same device name at another count is another device for times.
/usr/bin/python3 - "$D" "$WORK/dev.json" "$K" <<'PY'
import json, sys
h = json.loads(open(sys.argv[1]).readline())
for m in (h, json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))):
    assert m["compute_units"] == h["compute_units"] >= 1, m.get("compute_units")
print("ok: the dataset and both models record the device's compute units")
PY
sed '1s/"compute_units":[0-9]*/"compute_units":99/' "$D" > "$WORK/cu.jsonl"
refuse "a dataset of another thread count, resumed" "cu.jsonl was measured on .* (99 compute units)" \
	"$SIBYL" kmodel dataset "$SUITE/suite.json" -k vadd -n 1 -o "$WORK/cu.jsonl"
edit "$WORK/dev.json" "$WORK/dev99.json" 'k["compute_units"] = 99'
refuse "a device model of another thread count, profiling now" "(99 compute units), the kernel ran" \
	"$SIBYL" kmodel predict --model "$WORK/dev99.json" "$SUITE/irregular.cl" -k gather \
	--profile 1024:5120:1024 --gsize 4096
# A kernel model's counts serve any device; its times calibrate only
# the device they were measured on (saxpy: a kernel the small device
# model predicts more than its launch for).
"$SIBYL" kmodel fit "$SUITE/elementwise.cl" -k saxpy --profile 1024:5120:1024 -o "$WORK/saxpy.json" \
	> /dev/null
predict "$WORK/dev.json" "$WORK/saxpy.json" > "$WORK/same.json"
predict "$WORK/dev99.json" "$WORK/saxpy.json" > "$WORK/other.json"
/usr/bin/python3 -c 'import json, sys
s, o = (json.load(open(f)) for f in sys.argv[1:])
assert s["calibration"] and s["calibration"] > 0, s
assert not o["calibration"], o' "$WORK/same.json" "$WORK/other.json"

# The clock: a profile's CPU times do not calibrate a model of device
# time, and a dataset of before cpu_ns was recorded has none to learn.
"$SIBYL" kmodel train-device "$D" --clock cpu -o "$WORK/devcpu.json" > /dev/null
"$SIBYL" kmodel fit "$SUITE/elementwise.cl" -k saxpy --profile 1024:5120:1024 --clock cpu \
	-o "$WORK/saxpycpu.json" > /dev/null
/usr/bin/python3 -c 'import json, sys
for f, c in zip(sys.argv[1:], ("cpu", "cpu", "device")):
    assert json.load(open(f))["clock"] == c, f
' "$WORK/devcpu.json" "$WORK/saxpycpu.json" "$WORK/dev.json"
predict "$WORK/devcpu.json" "$WORK/saxpycpu.json" > /dev/null
refuse "a CPU-time profile, a device-time model" \
	"kmodel: the kernel's profile has cpu times, the device model predicts device time: fit the kernel with --clock device" \
	predict "$WORK/dev.json" "$WORK/saxpycpu.json"
refuse "a device-time profile, a CPU-time model" "fit the kernel with --clock cpu" \
	predict "$WORK/devcpu.json" "$WORK/saxpy.json"
sed 's/,"cpu_ns":[0-9.e+]*//' "$D" > "$WORK/nocpu.jsonl"
refuse "a dataset without CPU times" "has no cpu_ns: measure the dataset again for the cpu clock" \
	"$SIBYL" kmodel train-device "$WORK/nocpu.jsonl" --clock cpu -o "$WORK/nocpu.json"
[ ! -e "$WORK/nocpu.json" ] || fail "a dataset without CPU times: a model written"
st=0
"$SIBYL" kmodel evaluate "$D" --clock wall > /dev/null 2> "$WORK/err" || st=$?
expect_eq "--clock wall: exit status" 2 "$st"
grep -q "^sibyl: kmodel evaluate: --clock: 'wall' is not device or cpu$" "$WORK/err" || fail "$(cat "$WORK/err")"
echo "ok: refuse"
