#!/usr/bin/python3
"""bench/kmodel/rules.py KEEP-DIR...: predict's calibration rules compared
on the same measurements: the directories `KEEP=DIR bench/kmodel/run`
left (each kernel's model with its profiled samples, the device model
trained without it, predict's JSON at 4G and 16G and the measured times
there).

predict's estimate is b + s (u - b), u the time model on OCLBoi's counts
(predict's `uncalibrated_seconds`), b the launch cost, and s a scale
from the kernel's profiled samples: (t - b) / (p - b), p the time model
on a sample's measured counts.  The rules differ in which samples and
which statistic; the error is against the least of the measured times,
as the bench's.  The first rule is the tool's (checked against
predict's own `seconds`).
"""
import glob
import json
import os
import statistics as st
import sys


def device_time(dev, counts):
    cost = {c["name"]: c["seconds"] for c in dev["time_model"]["instructions"]}
    return dev["time_model"]["launch_seconds"] + sum(
        cost.get(c["name"], 0) * c["count"] for c in counts)


def ratios(kern, dev, b, share):
    """(t - b) / (p - b) of the samples at sizes >= share x the largest."""
    s = [(x["gsize"], x["seconds"], device_time(dev, x["counts"])) for x in kern["samples"]]
    s = [(g, t, p) for g, t, p in s if t > b and p > b]
    top = max(g for g, _, _ in s)
    return [(t - b) / (p - b) for g, t, p in s if g >= share * top]


def sized(kern, dev, b, share):
    """Per size >= share x the largest: (least t - b) / (p - b)."""
    least = {}
    for x in kern["samples"]:
        g, t, p = x["gsize"], x["seconds"], device_time(dev, x["counts"])
        if t > b and p > b:
            least[g] = min(least.get(g, (float("inf"), p))[0], t), p
    top = max(least)
    return [(t - b) / (p - b) for g, (t, p) in least.items() if g >= share * top]


def walked(kern, dev, b):
    """(t - b) / (p - b) of the walk's own timing of the largest size
    (profile_choice.timed: least of its launches; none without it)."""
    top = max(x["gsize"] for x in kern["samples"])
    p = [device_time(dev, x["counts"]) for x in kern["samples"] if x["gsize"] == top][0]
    t = [x["seconds"] for x in kern.get("profile_choice", {}).get("timed", []) if x["gsize"] == top]
    return [(t[0] - b) / (p - b)] if t and t[0] > b and p > b else []


# Each rule of r (every sample's ratio) and z (each size's least); w,
# the walk's timing of the largest size, goes with r(1) in the last.
RULES = {
    "least at the largest size (tool)": lambda r, z: min(r(1)),
    "least at the top half": lambda r, z: min(r(0.5)),
    "least over the profile": lambda r, z: min(r(0)),
    "median at the largest size": lambda r, z: st.median(r(1)),
    "median over the profile": lambda r, z: st.median(r(0)),
    "median of the sizes' least, top half": lambda r, z: st.median(z(0.5)),
    "median of the sizes' least, top 3 of 8": lambda r, z: st.median(z(0.75)),
    "median of the sizes' least, profile": lambda r, z: st.median(z(0)),
    "least at the largest size, the walk's timing too": None,
}


def main(dirs):
    err = {name: {d: [] for d in dirs} for name in RULES}
    for d in dirs:
        for kfile in sorted(glob.glob(os.path.join(d, "*.kernel.json"))):
            k = os.path.basename(kfile)[:-len(".kernel.json")]
            kern = json.load(open(kfile))
            dev = json.load(open(os.path.join(d, k + ".device.json")))
            b = max(0, dev["time_model"]["launch_seconds"])
            for m in ("4G", "16G"):
                p = json.load(open(os.path.join(d, "%s.%s.predict.json" % (k, m))))
                t = min(x["device_ns"] for x in json.load(open(
                    os.path.join(d, "%s.%s.measured.json" % (k, m))))["samples"]) * 1e-9
                u = p["uncalibrated_seconds"]
                for name, rule in RULES.items():
                    if rule is None:
                        s = min(ratios(kern, dev, b, 1) + walked(kern, dev, b))
                    else:
                        s = rule(lambda share: ratios(kern, dev, b, share),
                                 lambda share: sized(kern, dev, b, share))
                    q = b + s * (u - b)
                    if name.endswith("(tool)") and abs(q - p["seconds"]) > 1e-6 * p["seconds"]:
                        sys.exit("%s %s: the tool's rule gives %g, predict %g" % (k, m, q, p["seconds"]))
                    err[name][d].append(abs(q - t) / t)
    print("median relative error at 4G and 16G, each run's, then over all %d runs' predictions:"
          % len(dirs))
    for name, runs in err.items():
        e = [x for d in dirs for x in runs[d]]
        print("  %-34s %s; all %5.1f%% (90th percentile %.0f%%)" % (
            name, " ".join("%5.1f%%" % (100 * st.median(runs[d])) for d in dirs),
            100 * st.median(e), 100 * sorted(e)[int(0.9 * (len(e) - 1))]))


if __name__ == "__main__":
    main(sys.argv[1:])
