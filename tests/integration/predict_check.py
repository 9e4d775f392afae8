"""Independent computation of `sibyl predict` from an exported CSV trace:
eq. 1-3 of Matoga et al. over the calls, with numpy's interp for the
profile (scaled by its stats.typical.factor), and the run without sibyl
from meta.json's interposition cost per call.  Usage: predict_check.py
TRACE_DIR TRACE.csv REPORT.json PROFILE.json PREDICT.json FUNC,FUNC...
[--best-of] [--keep-outside] [--bytes in|out|inout] [--no-one-time]
Exits 1 with the first difference."""
import csv, json, os, sys
import numpy as np

trace_dir, csv_path, report_path, profile_path, predict_path, funcs = sys.argv[1:7]
flags = sys.argv[7:]
best_of = '--best-of' in flags
keep_outside = '--keep-outside' in flags
no_one_time = '--no-one-time' in flags
bytes_metric = flags[flags.index('--bytes') + 1] if '--bytes' in flags else None
funcs = funcs.split(',')
prof = json.load(open(profile_path))
pts = np.array(prof['points'], dtype=float)
wall = json.load(open(report_path))['wall_ns'] * 1e-9
got = json.load(open(predict_path))

# The typical factor: per profile segment, the ratio of sums of the
# planner's unguarded and guarded sample times (3 samples at least), else
# over all samples; 1 without them.
tsamples = (prof.get('stats', {}).get('typical') or {}).get('samples', [])
segments = prof.get('segments', [])

def ratio(samples):
    return sum(s[2] for s in samples) / sum(s[1] for s in samples)

def typical(w):
    if not tsamples:
        return 1.0
    if not segments:
        return ratio(tsamples)
    seg = min(segments, key=lambda s: max(s['from'] - w, w - s['to'], 0))
    inside = [s for s in tsamples if seg['from'] <= s[0] <= seg['to']]
    return ratio(inside) if len(inside) >= 3 else ratio(tsamples)
interposition = json.load(open(os.path.join(trace_dir, 'meta.json')))['interposition']
per_call = interposition['per_call_ns'] * 1e-9
# The traced process's start and exit (sibyl trace's probe): left out
# without sibyl, once.
startup = (interposition.get('startup_ns') or 0) * 1e-9
all_rows = list(csv.DictReader(open(csv_path)))
rows = [r for r in all_rows if r['function'] in funcs]
# One function (dgemm_ does not call itself): every call counts.  Several:
# the tests model every wrapped function, so "not nested in a modelled
# call" is depth 0, a different route from predict's interval sweep.
if len(funcs) > 1:
    rows = [r for r in rows if int(r['depth']) == 0]

def thread(r):
    return r['pid'], r['gen'], r['tid']

def work(r):
    if bytes_metric == 'in':
        return float(r['in_bytes'])
    if bytes_metric == 'out':
        return float(r['out_bytes'])
    if bytes_metric == 'inout':
        return float(r['in_bytes']) + float(r['out_bytes'])
    return float(r['work'])

def f(w):
    return typical(w) * f_best(w)

def f_best(w):
    if len(pts) == 1:
        return pts[0, 1]
    if w < pts[0, 0]:
        a, b = pts[0], pts[1]
    elif w > pts[-1, 0]:
        a, b = pts[-2], pts[-1]
    else:
        return float(np.interp(w, pts[:, 0], pts[:, 1]))
    return max(0.0, a[1] + (b[1] - a[1]) * (w - a[0]) / (b[0] - a[0]))

# The 95% interval (src/predict/interval.c), recomputed with scipy: each
# segment refitted from the profile's samples (weights 1/y^2), the line's
# confidence half width summed per (function, segment), single-run spread
# summed in quadrature.
from scipy import stats
fits = []
for seg in prof.get('segments', []):
    xy = [(x, y) for x, y in prof.get('samples', []) if seg['from'] <= x <= seg['to'] and y > 0]
    if len(xy) < 3:
        fits.append(None)
        continue
    x = np.array([a for a, _ in xy]); y = np.array([b for _, b in xy]); wt = 1 / y**2
    mx = np.sum(wt * x) / np.sum(wt); my = np.sum(wt * y) / np.sum(wt)
    sxx = np.sum(wt * (x - mx)**2); b = np.sum(wt * (x - mx) * (y - my)) / sxx
    a = my - b * mx; s2 = np.sum(wt * (y - a - b * x)**2) / (len(x) - 2)
    fits.append((seg['from'], seg['to'], mx, sxx, s2, np.sum(wt), stats.t.ppf(0.975, len(x) - 2)))
# Without segments (guided and replayed profiles), each point's samples
# (those nearest to it): the relative spread of one run, its own with 3
# or more samples, else pooled; the t-based half width of their mean.
point_fits = []
if not prof.get('segments') and prof.get('samples'):
    near = lambda x: min(range(len(pts)), key=lambda k: (abs(pts[k, 0] - x), k))
    dev = [[] for _ in pts]
    for x, y in prof['samples']:
        k = near(x)
        if pts[k, 1] > 0 and y > 0:
            dev[k].append(y / pts[k, 1] - 1)
    n_all = sum(len(d) for d in dev)
    if n_all > len(pts):
        pooled = np.sqrt(sum(r * r for d in dev for r in d) / (n_all - len(pts)))
        for k, d in enumerate(dev):
            own = len(d) >= 3
            sd = np.sqrt(sum(r * r for r in d) / (len(d) - 1)) if own else pooled
            df = len(d) - 1 if own else n_all - len(pts)
            point_fits.append((pts[k, 0], sd, stats.t.ppf(0.975, df) * sd / np.sqrt(max(len(d), 1))))
groups = {}

def add_point_interval(func, w, p):
    # Each point's mean error is shared by the calls on both sides of it,
    # weighted by the interpolation; a call's own scatter goes with the
    # nearer point.
    i = 0
    while i + 2 < len(point_fits) and w > point_fits[i + 1][0]:
        i += 1
    j = i + 1 if len(point_fits) > 1 else i
    a, b = point_fits[i], point_fits[j]
    lam = 0.0 if i == j else min(1.0, max(0.0, (w - a[0]) / (b[0] - a[0])))
    ga = groups.setdefault((func, i), [0.0, 0.0])
    gb = groups.setdefault((func, j), [0.0, 0.0])
    ga[0] += p * (1 - lam) * a[2]
    gb[0] += p * lam * b[2]
    (ga if lam < 0.5 else gb)[1] += (p * ((1 - lam) * a[1] + lam * b[1]))**2

def add_interval(func, w, p):
    if point_fits:
        return add_point_interval(func, w, p)
    known = [(i, f) for i, f in enumerate(fits) if f]
    if not known:
        groups[(func, None)] = None
        return
    i, f = min(known, key=lambda k: max(k[1][0] - w, w - k[1][1], 0))
    lo, hi, mx, sxx, s2, wsum, t = f
    g = groups.setdefault((func, i), [0.0, 0.0])
    g[0] += typical(w) * t * np.sqrt(s2 * (1 / wsum + (w - mx)**2 / sxx))
    g[1] += s2 * p * p

measured = predicted = 0.0
accelerated = 0
spans = []
for r in rows:
    t = int(r['duration_ns']) * 1e-9
    w = work(r)
    measured += t
    outside = w < pts[0, 0] or w > pts[-1, 0]
    p = f(w)
    if (keep_outside and outside) or (best_of and p >= t):
        predicted += t
    else:
        predicted += p
        accelerated += 1
        spans.append((thread(r), int(r['start_ns']), int(r['end_ns']), int(r['depth'])))
        add_interval(r['function'], w, p)
# One-time costs, once for the profile when any call is accelerated.
one = prof.get('stats', {}).get('one_time')
one_time = 0.0
if one and accelerated and not no_one_time:
    one_time = (0.0 if one.get('init_shared') else max(0.0, one['init_seconds'])) + max(
        0.0, one['first_call_seconds'] - one['first_call_sample_seconds'])
# Interposition: every recorded call paid it; those inside an accelerated
# call (same thread, deeper, within its times) go with it.
inside = sum(1 for r in all_rows for th, s, e, d in spans
             if thread(r) == th and int(r['depth']) > d and s <= int(r['start_ns']) and int(r['end_ns']) <= e)
traced = wall - measured + predicted + one_time
untraced = wall - len(all_rows) * per_call - startup
without = traced - (len(all_rows) - inside) * per_call - startup
expected = {
    'measured_total_s': wall,
    'fraction': measured / wall,
    'kernel_speedup': measured / predicted,
    'traced.predicted_total_s': traced,
    'traced.global_speedup': wall / traced,
    'untraced_total_s': untraced,
    'predicted_total_s': without,
    'global_speedup': untraced / without,
    'interposition.calls': len(all_rows),
    'interposition.inside_accelerated': inside,
    'interposition.total_s': len(all_rows) * per_call,
    'interposition.startup_s': startup,
}
for key, want in expected.items():
    have = got
    for part in key.split('.'):
        have = have[part]
    if abs(have - want) > 1e-9 * max(1.0, abs(want)):
        sys.exit(f'{key}: predict says {have!r}, independent computation {want!r}')
if groups and None not in groups.values():
    z = stats.norm.ppf(0.975)
    half = np.sqrt(sum(g[0]**2 + z * z * g[1] for g in groups.values()))
    have = got['interval']['predicted_total_half_s']
    if abs(have - half) > 1e-6 * half:
        sys.exit(f'interval: predict says +-{have!r}, independent computation +-{half!r}')
    print(f'ok: interval +-{half:.3g} s')
elif got['interval'] is not None:
    sys.exit('interval: predict gives one for a profile without samples')
calls = sum(k['calls'] for k in got['kernels'])
acc = sum(k['accelerated_calls'] for k in got['kernels'])
if calls != len(rows) or acc != accelerated:
    sys.exit(f'calls {calls}/{len(rows)}, accelerated {acc}/{accelerated} (predict/independent)')
print(f'ok: S_G {got["global_speedup"]:.6f}, P {got["fraction"]:.4f}, '
      f'{calls} calls, {acc} accelerated')
