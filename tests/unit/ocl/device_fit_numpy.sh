#!/bin/bash
# The transfer fit against numpy: polyfit(x, t, 1, w=1/t) minimises the
# same relative residuals.  Curves with a known latency and bandwidth plus
# multiplicative noise, seeded; shapes like a PCIe link and like PoCL.
set -euo pipefail
DRIVER=$1
/usr/bin/python3 - "$DRIVER" <<'PY'
import subprocess, sys
import numpy as np
driver = sys.argv[1]
rng = np.random.default_rng(20260101)
x = 64.0 * 4.0 ** np.arange(13)
checked = 0
for latency, bw, noise in [(1e-5, 1.2e10, 0.05), (2e-5, 2.5e10, 0.3),
                           (5e-6, 6e9, 0.0), (1e-4, 1e9, 0.1)]:
    for _ in range(5):
        t = (latency + x / bw) * (1 + noise * rng.standard_normal(13).clip(-0.9, 3))
        inp = "".join(f"{a!r} {b!r}\n" for a, b in zip(x, t))
        out = subprocess.run([driver], input=inp, capture_output=True, text=True, check=True)
        lat, bps = map(float, out.stdout.split())
        slope, icpt = np.polyfit(x, t, 1, w=1 / t)
        if icpt < 0 or slope <= 0:
            continue   # the C fit falls back (unit-tested by hand)
        if not np.isclose(lat, icpt, rtol=1e-7, atol=1e-15) or \
           not np.isclose(bps, 1 / slope, rtol=1e-7):
            sys.exit(f"FAIL: C ({lat}, {bps}) numpy ({icpt}, {1/slope})")
        checked += 1
if checked < 10:
    sys.exit(f"FAIL: only {checked} curves compared")
print(f"ok: {checked} fits equal numpy's")
PY
