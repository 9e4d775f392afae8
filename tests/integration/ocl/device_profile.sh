#!/bin/bash
# sibyl device on the real PoCL device: a --quick run writes a valid
# profile (sizes x4 from 64 B, positive times, sane bandwidth, the model
# equal to numpy's fit of the stored points); --json prints the same
# format; --show reads it back.  Timings are never asserted.
source "$(dirname "$0")/../lib.sh"

"$SIBYL" device --quick -o "$WORK/p.json" >"$WORK/table.txt" 2>"$WORK/err.txt" ||
	fail "sibyl device --quick failed: $(cat "$WORK/err.txt")"
grep -q '^  latency ' "$WORK/table.txt" || fail "no latency table"
[ ! -s "$WORK/err.txt" ] || fail "stderr is not a TTY, yet: $(cat "$WORK/err.txt")"
grep -q '^  transfer model' "$WORK/table.txt" || fail "no transfer model lines"

/usr/bin/python3 - "$WORK/p.json" <<'PY' || fail "profile checks"
import json, sys
import numpy as np
p = json.load(open(sys.argv[1]))
assert p["format"] == "sibyl-device-profile" and p["version"] == 1, p["format"]
prov = p["provenance"]
for k in ("platform", "device", "driver_version", "host", "date", "sibyl_version"):
    assert prov[k] and prov[k] != "?", k
assert "Portable Computing Language" in prov["platform"], prov["platform"]
assert prov["quick"] is True and prov["max_bytes"] == 1 << 20
lat = p["latencies"]
dirs = ("h2d", "d2h", "d2d", "h2d_map", "d2h_map")
for k in ("command", "kernel_launch") + dirs:
    s = lat[k]["host"]
    assert 0 < s["min"] <= s["median"] < 1, (k, s)
    assert s["stdev"] >= 0 and s["n"] >= 3
    assert lat[k]["device"] is None or lat[k]["device"]["median"] >= 0
po = p["profiling_overhead"]
assert po["with_profiling"]["median"] > 0 and po["without_profiling"]["median"] > 0
for d in dirs:
    pts = p["bandwidth"][d]
    sizes = [q["bytes"] for q in pts]
    assert sizes == [64 * 4 ** i for i in range(len(sizes))], sizes
    assert sizes[-1] == 1 << 20, sizes
    for q in pts:
        assert 0 < q["seconds_min"] <= q["seconds_median"] < 10, q
        if d.endswith("_map"):    # map + memcpy + unmap: host time only
            assert q["device_seconds_median"] is None, q
        assert abs(q["gbps"] - q["bytes"] / q["seconds_median"] / 1e9) <= 1e-9 * q["gbps"], q
        assert 0 < q["gbps"] < 10000, q    # no CPU moves 10 TB/s
    m = p["transfer_model"][d]
    assert m["points"] == len(pts) and m["latency_seconds"] >= 0 and m["bytes_per_second"] >= 0
    x = np.array(sizes, float)
    t = np.array([q["seconds_median"] for q in pts])
    slope, icpt = np.polyfit(x, t, 1, w=1 / t)
    if icpt >= 0 and slope > 0:
        assert np.isclose(m["latency_seconds"], icpt, rtol=1e-6, atol=1e-12), (d, m, icpt)
        assert np.isclose(m["bytes_per_second"], 1 / slope, rtol=1e-6), (d, m, slope)
    print("ok:", d, len(pts), "sizes, model", m["latency_seconds"], m["bandwidth_gbps"])
PY

# The C API (device_profile.h) predicts from the loaded file what the
# model and the curve in the JSON say.
PREDICT="$SIBYL_BUILD/bin/ocl_device_predict_driver"
for case in "h2d 1000000" "d2d 64" "d2h_map 300000" "d2h 5000000"; do
	set -- $case
	read -r model measured < <("$PREDICT" "$WORK/p.json" "$1" "$2") || fail "predict $case"
	/usr/bin/python3 - "$WORK/p.json" "$1" "$2" "$model" "$measured" <<'PY' || fail "predict $case"
import json, sys
import numpy as np
p = json.load(open(sys.argv[1])); d, n = sys.argv[2], int(sys.argv[3])
model, measured = float(sys.argv[4]), float(sys.argv[5])
m = p["transfer_model"][d]
want = m["latency_seconds"] + (n / m["bytes_per_second"] if m["bytes_per_second"] else 0)
assert np.isclose(model, want, rtol=1e-12), (model, want)
pts = p["bandwidth"][d]
x = [q["bytes"] for q in pts]; t = [q["seconds_median"] for q in pts]
want = t[-1] * n / x[-1] if n > x[-1] else float(np.interp(n, x, t))
assert np.isclose(measured, want, rtol=1e-12), (measured, want)
print("ok: predict", d, n, model, measured)
PY
done

# --json prints the profile on stdout; --max-bytes caps the curve.
"$SIBYL" device --quick --repeat 2 --max-bytes 4K --json >"$WORK/out.json" ||
	fail "--json run failed"
expect_eq "--json format" sibyl-device-profile "$(json 'j["format"]' "$WORK/out.json")"
expect_eq "--max-bytes 4K sizes" "[64, 256, 1024, 4096]" \
	"$(json '[q["bytes"] for q in j["bandwidth"]["d2d"]]' "$WORK/out.json")"
expect_eq "--repeat 2" 2 "$(json 'j["provenance"]["repeat"]' "$WORK/out.json")"
expect_eq "--repeat 2 samples per size" "{2}" \
	"$(json '{q["repeats"] for d in j["bandwidth"].values() for q in d}' "$WORK/out.json")"

# --show reads the profile back and prints the same table header.
"$SIBYL" device --show "$WORK/p.json" >"$WORK/show.txt" || fail "--show failed"
expect_eq "--show device line" "$(head -1 "$WORK/table.txt")" "$(head -1 "$WORK/show.txt")"
# On a terminal, a progress line on stderr (cleared at the end).
if command -v script >/dev/null; then
	script -qec "'$SIBYL' device --quick --max-bytes 256 >/dev/null" /dev/null >"$WORK/tty.txt"
	grep -q 'sibyl: device: bandwidth d2d of 256 B' "$WORK/tty.txt" || fail "no progress on a TTY"
fi
echo "ok: device profile"
