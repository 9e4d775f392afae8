#!/bin/bash
# Segment validity, out-of-range counts and chain selection of the
# planner's sample matrix (section III of Wernsing & Stitt 2010) against
# an independent computation: every cell's weighted least squares and
# confidence interval from numpy and scipy (covariance s2 (X' W X)^-1,
# not the sums the matrix accumulates), and the best chain by trying
# every chain of overlapping valid segments from the first work metric
# (not the dynamic programming of chain.c).  The driver adds the samples
# in random order, as the planner does, so the incremental updates are
# what is checked.  A data set with a decision within 1e-7 of its
# threshold is drawn again: rounding may then decide either way.
set -euo pipefail
driver=$1
/usr/bin/python3 - "$driver" <<'PY'
import subprocess, sys
import numpy as np
from scipy import stats

rng = np.random.default_rng(20101013)
TIE = 1e-7


class Tie(Exception):
    pass


def decide(value, limit, scale):
    """value <= limit, unless they are too close to tell"""
    if abs(value - limit) <= TIE * scale:
        raise Tie()
    return value <= limit


def cell(x, y, p, r, c, nodes):
    """(valid, out-of-range count) of the segment over nodes r..c; x, y in
    work-metric order, in insertion order within a node (as the matrix)"""
    se, oe, conf, floor, fit, relative = p
    sel = (x >= nodes[r]) & (x <= nodes[c])
    xs, ys = x[sel], y[sel]
    n = len(xs)
    if n < 3:
        return False, 0
    d = np.maximum(np.abs(ys), floor)
    w = 1 / d ** 2 if relative else np.ones(n)
    if relative and floor == 0:
        w[d == 0] = 1
    X = np.column_stack([np.ones(n), xs])
    sw = np.sqrt(w)
    (a, b), *_ = np.linalg.lstsq(X * sw[:, None], ys * sw, rcond=None)
    pred = lambda x0: a + b * x0
    s2 = (w * (ys - pred(xs)) ** 2).sum() / (n - 2)
    cov = s2 * np.linalg.inv(X.T @ (w[:, None] * X))
    t = stats.t.ppf(0.5 + conf / 2, n - 2)
    mx = (w * xs).sum() / w.sum()
    scale = abs(ys).max()
    allowed = max(se * pred(mx), floor)
    for end in (nodes[r], nodes[c]):
        if decide(pred(end), 0, scale):          # not positive
            return False, 0
        width = 2 * t * np.sqrt(np.array([1, end]) @ cov @ np.array([1, end]))
        if not decide(width, allowed, scale):
            return False, 0
    if fit > 0 and nodes[c] - nodes[r] > 2:
        span = nodes[c] - nodes[r]
        by_span = np.minimum(2, (3 * (xs - nodes[r]) / span).astype(int))
        by_count = np.minimum(2, (3 * np.arange(n) / n).astype(int))
        for parts in (by_span, by_count):
            for k in range(3):
                m = parts == k
                if not m.any():
                    continue
                tx = (w[m] * xs[m]).sum() / w[m].sum()
                ty = (w[m] * ys[m]).sum() / w[m].sum()
                if not decide(abs(pred(tx) - ty), max(fit * ty, floor), scale):
                    return False, 0
    oor = 0
    for xi, yi in zip(xs, ys):
        oor += not decide(abs(pred(xi) - yi), max(oe * abs(yi), floor), scale)
    if 2 * oor > len(xs):
        return False, 0     # a line that misses most of its samples is no segment
    return True, oor


def best_chain(cells, count):
    """Every chain from row 0: consecutive segments (r1, c1), (r2, c2)
    overlap with r1 < r2 < c1 < c2.  The best reaches furthest, then has
    the fewest out-of-range samples, then the fewest segments."""
    best = None

    def walk(r, c, oor, segs):
        nonlocal best
        key = (-c, oor, segs)
        if best is None or key < best:
            best = key
        for r2 in range(r + 1, c):
            for c2 in range(c + 1, count):
                v = cells.get((r2, c2))
                if v and v[0]:
                    walk(r2, c2, oor + v[1], segs + 1)

    for c in range(1, count):
        v = cells[(0, c)]
        if v[0]:
            walk(0, c, v[1], 1)
    return best


def data_set():
    span = int(rng.choice([16, 60, 1000]))
    nodes = np.sort(rng.choice(np.arange(1, span + 1), int(rng.integers(8, 15)), replace=False))
    bends = np.sort(rng.uniform(1, span, int(rng.integers(1, 4))))
    slopes = rng.uniform(-0.3, 6, len(bends))    # each piece still rises
    def truth(x):                      # continuous, piecewise linear, positive
        return 1e-6 * (2 + x + sum(b * np.maximum(0, x - k) for b, k in zip(slopes, bends)))
    x = np.repeat(nodes, rng.integers(1, 6, len(nodes))).astype(float)
    noise = float(rng.choice([0.002, 0.005, 0.01, 0.03, 0.06]))
    y = truth(x) * (1 + noise * rng.standard_normal(len(x)))
    y[rng.random(len(x)) < 0.03] *= 1.5                      # slow runs
    floor = float(rng.choice([0, 1e-9, 3e-6]))
    p = (float(rng.choice([0.05, 0.1, 0.2])), float(rng.choice([0.05, 0.1])),
         float(rng.choice([0.9, 0.95, 0.99])), floor, float(rng.choice([0, 0.02, 0.03])),
         int(rng.integers(0, 2)))
    return x, y, p


checked = redrawn = valid = invalid = multi = 0
while checked < 300:
    x, y, p = data_set()
    order = rng.permutation(len(x))    # the order the driver adds them in
    x, y = x[order], y[order]
    nodes = np.unique(x)
    by_x = np.argsort(x, kind="stable")
    try:
        cells = {(r, c): cell(x[by_x], y[by_x], p, r, c, nodes)
                 for r in range(len(nodes)) for c in range(r + 1, len(nodes))}
    except Tie:
        redrawn += 1
        continue
    text = "%r %r %r %r %r %d\n" % p + "".join("%r %r\n" % (a, b) for a, b in zip(x, y))
    out = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True, check=True)
    lines = [l.split() for l in out.stdout.splitlines()]
    case = "case %d (%d samples, parameters %s)" % (checked, len(x), p)
    got_nodes = [float(l[1]) for l in lines if l[0] == "node"]
    if got_nodes != list(nodes):
        sys.exit("FAIL %s: nodes %s, expected %s" % (case, got_nodes, list(nodes)))
    for l in lines:
        if l[0] == "cell":
            r, c, v, oor = map(int, l[1:])
            want = cells[(r, c)]
            if (bool(v), oor) != want:
                sys.exit("FAIL %s: cell (%d, %d) valid %d oor %d; numpy/scipy say %s"
                         % (case, r, c, v, oor, want))
    want = best_chain(cells, len(nodes))
    best = [l for l in lines if l[0] == "best"][0]
    if want is None:
        if best[1] != "none":
            sys.exit("FAIL %s: a chain was chosen where no chain exists" % case)
    else:
        if best[1] == "none":
            sys.exit("FAIL %s: no chain chosen; the best reaches node %d" % (case, -want[0]))
        chain = [int(v) for v in [l for l in lines if l[0] == "chain"][0][1:]]
        segs = list(zip(chain[::2], chain[1::2]))
        ok = segs[0][0] == 0 and all(cells[s][0] for s in segs) and all(
            a[0] < b[0] < a[1] < b[1] for a, b in zip(segs, segs[1:]))
        got = (-segs[-1][1], sum(cells[s][1] for s in segs), len(segs))
        if not ok or got != want or (int(best[1]), int(best[2])) != got[1:]:
            sys.exit("FAIL %s: chain %s (reported oor %s, %s segments); every chain tried: "
                     "end %d, oor %d, %d segments" % (case, segs, best[1], best[2], -want[0],
                                                      want[1], want[2]))
        multi += len(segs) > 1
    valid += sum(v[0] for v in cells.values())
    invalid += sum(not v[0] for v in cells.values())
    checked += 1
# The check means something only if both outcomes and real chains occur.
if valid < 1000 or invalid < 1000 or multi < 40:
    sys.exit("FAIL: too easy: %d valid and %d invalid cells, %d chains of several segments"
             % (valid, invalid, multi))
print("ok: %d random sample matrices (%d valid and %d invalid cells, %d best chains of several "
      "segments; %d drawn again at a tie) agree with numpy/scipy and every chain tried"
      % (checked, valid, invalid, multi, redrawn))
PY
