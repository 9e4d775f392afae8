#!/usr/bin/python3
"""Checks the kmodel training suite's manifest against the kernels its
files define (listings from `sibyl kernel FILE --json`, one per file,
given as FILE=LISTING.json arguments)."""
import json
import sys

REQUIRED = {"element-wise", "stencil", "reduction", "scan", "sort", "histogram",
            "matrix product", "convolution", "n-body", "graph traversal",
            "data-dependent loop", "irregular"}


def fail(msg):
    sys.exit("FAIL: " + msg)


def main():
    suite = json.load(open(sys.argv[1]))
    listings = {}
    for arg in sys.argv[2:]:
        f, path = arg.split("=", 1)
        listings[f] = {k["name"] for k in json.load(open(path))["kernels"]}
    if suite.get("format") != "sibyl-kmodel-suite" or suite.get("version") != 1:
        fail("format/version")
    ks = suite["kernels"]
    if len(ks) < 30:
        fail("only %d kernels" % len(ks))
    names = [k["name"] for k in ks]
    if len(set(names)) != len(names):
        fail("duplicate kernel names")
    missing = REQUIRED - {k["category"] for k in ks}
    if missing:
        fail("no kernel of " + ", ".join(sorted(missing)))
    for k in ks:
        if k["name"] not in listings.get(k["file"], ()):
            fail("%s: not a kernel of %s" % (k["name"], k["file"]))
        lo, hi, step = (int(x) for x in k["gsize"].split(":"))
        if not (0 < lo < hi and step > 0 and (hi - lo) // step >= 4):
            fail("%s: fewer than 5 global sizes in %s" % (k["name"], k["gsize"]))
        ls = k.get("lsize", 0)
        if ls and (lo % ls or step % ls):
            fail("%s: global sizes not multiples of lsize %d" % (k["name"], ls))
    print("ok: %d kernels, %d categories" % (len(ks), len({k["category"] for k in ks})))


main()
