#!/usr/bin/python3
"""bench/kmodel/calibrations.py DATA.jsonl...: how a held-out kernel's
own profile (its 3 smallest global sizes, counts and times) best
calibrates the kernel-agnostic time model, and what a size's measured
time should be.

The time model is the tool's nonneg-relative (non-negative least squares
on relative residuals, with a launch cost b), trained on the other folds
(kernel i in fold i mod 5), applied to the held-out kernel's measured
counts (OCLBoi's are within 1% at the larger sizes: docs/kmodel.md).
Each calibration is fitted on the 3 smallest sizes and scored on the
others: median over kernels of R^2 and of the relative error, with a
size's measured time the median or the least of its samples.
"""
import statistics as st
import sys

import numpy as np
from scipy.optimize import nnls

from timemodels import load, r2


def fit(train):
    X = np.vstack([np.hstack([k["C"], np.ones((len(k["t"]), 1))]) for k in train])
    y = np.concatenate([k["t"] for k in train])
    w, _ = nnls(X / y[:, None], np.ones_like(y), maxiter=200000)
    return w


def calibrations(t, p, g, P, b, stat):
    """Calibrated estimates of each rule, from the profiled samples P."""
    top = g == g[P].max()
    out = {"none": p,
           "median ratio, every profiled sample (before)": p * np.median(t[P] / p[P]),
           "median ratio, largest size": p * np.median(t[top] / p[top])}
    s = np.median((t[P] - b) / (p[P] - b))
    out["median above launch, every sample"] = b + s * (p - b)
    for name, f in (("median", np.median), ("least", np.min)):
        s = f((t[top] - b) / (p[top] - b))
        out["%s above launch, largest size%s" % (name, " (now)" if name == "least" else "")] = b + s * (p - b)
    A = np.column_stack([np.ones(P.sum()), p[P]])
    c = np.linalg.lstsq(A, t[P], rcond=None)[0]
    out["affine, every sample"] = c[0] + c[1] * p
    return out


def run(path, stat):
    names, ks = load(path)
    res = {}
    for f in range(5):
        w = fit([k for i, k in enumerate(ks) if i % 5 != f])
        for k in (k for i, k in enumerate(ks) if i % 5 == f):
            p = np.hstack([k["C"], np.ones((len(k["t"]), 1))]) @ w
            g, t = k["g"], k["t"]
            gs = np.unique(g)
            P = np.isin(g, gs[:3])
            Q = gs[3:]
            y = np.array([stat(t[g == x]) for x in Q])
            for m, q in calibrations(t, p, g, P, w[-1], stat).items():
                qq = np.array([q[g == x].mean() for x in Q])
                res.setdefault(m, []).append((r2(y, qq), np.median(np.abs(qq - y) / y)))
    print("== %s, a size's time the %s of its samples: median R^2 at the larger sizes "
          "(>= 0.9 on), median error" % (path, stat.__name__.replace("amin", "least")))
    for m, v in res.items():
        a, e = zip(*v)
        print("  %-48s %7.3f (%2d of %d)  %5.1f%%" % (m, st.median(a), sum(x >= 0.9 for x in a),
                                                    len(a), 100 * st.median(e)))


if __name__ == "__main__":
    for path in sys.argv[1:]:
        for stat in (np.median, np.min):
            run(path, stat)
