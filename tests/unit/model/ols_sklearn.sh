#!/bin/bash
# Least squares, t quantiles and confidence half-widths of sibyl-model
# against scikit-learn and scipy on random data sets (Debian's python3):
# ordinary, and weighted by 1 / y^2 (relative residuals).  The confidence
# half-widths come from the covariance matrix s2 (X' W X)^-1, not from
# the sums the driver accumulates.
set -euo pipefail
driver=$1
/usr/bin/python3 - "$driver" <<'PY'
import subprocess, sys
import numpy as np
from scipy import stats
from sklearn.linear_model import LinearRegression

rng = np.random.default_rng(20100421)
for case in range(80):
    relative = case % 2 == 1
    n = int(rng.integers(3, 200))
    scale = 10.0 ** rng.integers(0, 7)
    x = np.sort(rng.integers(1, int(scale) + 3, n)).astype(float)
    if np.ptp(x) == 0:
        x[-1] += 1
    y = 1e-6 * (3 + 2 * x) * (1 + 0.05 * rng.standard_normal(n))
    level = float(rng.choice([0.9, 0.95, 0.99]))
    text = "%r\n" % level + "".join("%r %r\n" % (a, b) for a, b in zip(x, y))
    args = [sys.argv[1]] + (["--relative"] if relative else [])
    out = subprocess.run(args, input=text, capture_output=True, text=True, check=True)
    a, b, s2, t, ci_lo, ci_mid, ci_hi = map(float, out.stdout.split())
    w = 1 / y ** 2 if relative else np.ones(n)
    m = LinearRegression().fit(x.reshape(-1, 1), y, sample_weight=w)
    res = y - m.predict(x.reshape(-1, 1))
    want_s2 = (w * res ** 2).sum() / (n - 2)
    want_t = stats.t.ppf(0.5 + level / 2, n - 2)
    X = np.column_stack([np.ones(n), x])
    cov = want_s2 * np.linalg.inv(X.T @ (w[:, None] * X))
    def half(x0):
        v = np.array([1.0, x0])
        return want_t * np.sqrt(v @ cov @ v)
    checks = [("intercept", a, m.intercept_), ("slope", b, m.coef_[0]), ("s2", s2, want_s2),
              ("t", t, want_t), ("ci_lo", ci_lo, half(x.min())),
              ("ci_mid", ci_mid, half(np.average(x, weights=w))), ("ci_hi", ci_hi, half(x.max()))]
    scale_y = np.abs(y).max()
    for name, got, want in checks:
        tol = 1e-6 * max(abs(want), 1e-9 * scale_y) + 1e-15
        if name == "intercept":
            tol = 1e-6 * scale_y
        if abs(got - want) > tol:
            sys.exit("FAIL case %d (n=%d, %s): %s = %r, scikit-learn/scipy say %r"
                     % (case, n, "relative" if relative else "ordinary", name, got, want))
print("ok: 80 random regressions (40 ordinary, 40 relative) agree with scikit-learn and scipy")
PY
