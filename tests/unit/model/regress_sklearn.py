#!/usr/bin/python3
"""sibyl's regressions (src/model/regress.h) against scikit-learn on the
same data: coefficients, intercepts, R^2, 5-fold cross-validated R^2 and
the grid search's choice agree to 1e-6 relative.  argv[1]: the driver."""
import json
import subprocess
import sys

import numpy as np
from sklearn.linear_model import ElasticNet, LinearRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

RTOL = 1e-6
TOL, MAX_ITER = 1e-10, 100000	# regress.c's elastic net stopping rule


def estimator(c):
    steps = []
    if c.get("poly2"):
        steps.append(PolynomialFeatures(2, include_bias=False))
    if c.get("scale"):
        steps.append(StandardScaler())
    if c["kind"] == "enet":
        steps.append(ElasticNet(alpha=c["alpha"], l1_ratio=c["l1_ratio"], tol=TOL,
                                max_iter=MAX_ITER))
    else:
        steps.append(LinearRegression(positive=c["kind"] == "nnls"))
    return make_pipeline(*steps)


def close(what, got, want, scale):
    got, want = np.asarray(got, float), np.asarray(want, float)
    # Relative to each value, with a floor relative to the largest one
    # for coefficients that are (nearly) zero.
    bad = np.abs(got - want) > RTOL * np.maximum(np.abs(want), 1e-3 * scale)
    if bad.any():
        sys.exit("FAIL: %s: sibyl %s, scikit-learn %s" % (what, got, want))


def check(name, X, y, cases, grid=()):
    k = 5
    prob = {"X": X.tolist(), "y": y.tolist(), "k": k, "cases": cases, "grid": list(grid)}
    out = json.loads(subprocess.run([sys.argv[1]], input=json.dumps(prob), text=True,
                                    capture_output=True, check=True).stdout)
    for c, f in zip(cases, out["fits"]):
        what = "%s %s" % (name, json.dumps(c))
        est = estimator(c).fit(X, y)
        last = est.steps[-1][1]
        coef = np.ravel(last.coef_)
        scale = max(np.abs(coef).max(), 1e-300)
        if c.get("collinear"):
            # Collinear columns: many coefficient vectors fit as well
            # (NNLS does not pick the minimum norm one); the fit is unique.
            fitted = X @ np.asarray(f["w"]) + f["b"]
            close(what + " fitted values", fitted, est.predict(X), np.abs(y).max())
        else:
            close(what + " coefficients", f["w"], coef, scale)
            close(what + " intercept", f["b"], last.intercept_, max(abs(last.intercept_), scale))
        close(what + " R^2", f["r2"], est.score(X, y), 1)
        cv = cross_val_score(estimator(c), X, y, cv=KFold(k), scoring="r2").mean()
        close(what + " 5-fold R^2", f["cv"], cv, 1)
        print("ok: %s: %d coefficients, R^2 %.6f, 5-fold R^2 %.6f" % (what, len(coef), f["r2"], f["cv"]))
    if grid:
        scores = [cross_val_score(estimator(c), X, y, cv=KFold(k), scoring="r2").mean()
                  for c in grid]
        best = int(np.argmax(scores))
        if out["grid"]["best"] != best:
            sys.exit("FAIL: %s grid: sibyl chose %d, scikit-learn %d" % (name, out["grid"]["best"], best))
        close(name + " grid score", out["grid"]["score"], scores[best], 1)
        print("ok: %s grid: candidate %d of %d, 5-fold R^2 %.6f" % (name, best, len(grid), scores[best]))


def grid_search(name, X, y, alphas, l1s):
    """GridSearchCV over a polynomial elastic net's alpha and l1_ratio
    (alpha outer, l1_ratio inner: ParameterGrid's order)."""
    grid = [{"kind": "enet", "poly2": True, "scale": True, "alpha": a, "l1_ratio": l}
            for a in alphas for l in l1s]
    prob = {"X": X.tolist(), "y": y.tolist(), "k": 5, "cases": [], "grid": grid}
    out = json.loads(subprocess.run([sys.argv[1]], input=json.dumps(prob), text=True,
                                    capture_output=True, check=True).stdout)
    gs = GridSearchCV(estimator(grid[0]), {"elasticnet__alpha": alphas,
                                           "elasticnet__l1_ratio": l1s},
                      cv=KFold(5), scoring="r2").fit(X, y)
    if out["grid"]["best"] != gs.best_index_:
        sys.exit("FAIL: %s: sibyl chose %d, GridSearchCV %d" % (name, out["grid"]["best"], gs.best_index_))
    close(name + " best score", out["grid"]["score"], gs.best_score_, 1)
    print("ok: %s: GridSearchCV's candidate %d, 5-fold R^2 %.6f" % (name, gs.best_index_, gs.best_score_))


def main():
    rng = np.random.default_rng(30)
    # Four inputs, a linear truth with negative weights, noise.
    X = rng.normal(size=(60, 4)) * [1, 10, 0.1, 5]
    y = X @ [2.0, -0.3, 7.0, 0.5] + 4 + rng.normal(scale=0.5, size=60)
    check("linear", X, y, [
        {"kind": "ols"}, {"kind": "nnls"},
        {"kind": "enet", "alpha": 0.1, "l1_ratio": 0.5},
        {"kind": "enet", "alpha": 0.01, "l1_ratio": 0.9},
        {"kind": "enet", "alpha": 1.0, "l1_ratio": 0.2, "scale": True},
    ])
    # Global sizes to a quadratic count, as OCLBoi fits them.
    g = np.repeat(np.arange(1024, 16385, 1024, dtype=float), 3)
    y = 5 + 12 * g + 3e-4 * g * g + rng.normal(scale=100, size=g.size)
    G = g.reshape(-1, 1)
    grid = [{"kind": kind, "poly2": poly, "scale": True, "alpha": a, "l1_ratio": l}
            for kind, poly in (("ols", False), ("ols", True)) for a, l in ((0, 0),)]
    grid += [{"kind": "enet", "poly2": poly, "scale": True, "alpha": a, "l1_ratio": l}
             for poly in (False, True) for a in (1e-3, 1e-2, 1e-1, 1) for l in (0.1, 0.5, 0.9)]
    check("gsize", G, y, [
        {"kind": "ols", "poly2": True},
        {"kind": "ols", "poly2": True, "scale": True},
        {"kind": "enet", "poly2": True, "scale": True, "alpha": 0.01, "l1_ratio": 0.5},
    ], grid)
    grid_search("gsize GridSearchCV", G, y, [1e-4, 1e-3, 1e-2, 1e-1], [0.1, 0.5, 0.9, 1.0])
    # Collinear counts (call == ret, alloca = 4 x ret) to a time: the
    # minimum-norm least squares and non-negative least squares.
    n = 80
    ret = rng.uniform(1e3, 1e5, n)
    C = np.column_stack([ret, ret, 4 * ret, rng.uniform(0, 1e6, n), rng.uniform(0, 1e4, n)])
    t = C @ [2e-3, 2e-3, 1e-4, 5e-5, -1e-3] + 30 + rng.normal(scale=5, size=n)
    check("counts", C, t, [{"kind": "ols"}, {"kind": "nnls", "collinear": True}])
    # Counts of five orders of magnitude, not collinear, a negative
    # truth for one: the non-negative fit's coefficients are unique.
    D = np.column_stack([rng.uniform(1e3, 1e5, n), rng.uniform(0, 1e9, n),
                         rng.uniform(0, 1e4, n), rng.uniform(1, 10, n)])
    t = D @ [2e-3, 5e-9, -1e-3, 0.5] + 30 + rng.normal(scale=5, size=n)
    check("scales", D, t, [{"kind": "ols"}, {"kind": "nnls"}])


main()
