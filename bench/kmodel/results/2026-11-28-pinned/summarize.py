# summarize.py DIR...: bench/kmodel/run outputs kept with KEEP=DIR (out.txt beside
# the kept files): each run's median errors from the kept launches, pooled per series
# (the name without its number), and per kernel the median |error| (median signed).
import json, glob, os, re, statistics as st, sys
rows = {}
for d in sys.argv[1:]:
    mode = re.sub(r"\d+$", "", os.path.basename(d))
    out = open(d + '/out.txt').read()
    m = re.search(r'median relative error (\d+)%.*against the median of the 5 times (\d+)%', out)
    load = re.search(r'load: ([\d.]+)', out)
    spread, el, em, per = [], [], [], {}
    for f in sorted(glob.glob(d + '/*.measured.json')):
        k, g = os.path.basename(f).split('.')[:2]
        j = json.load(open(f)); p = json.load(open(f.replace('measured', 'predict')))
        fld = 'cpu_ns' if 'clock cpu' in out.split('\n')[1] else 'device_ns'
        t = [s[fld] * 1e-9 for s in j['samples']]
        spread.append(max(t) / min(t))
        e1 = abs(p['seconds'] - min(t)) / min(t); e2 = abs(p['seconds'] - st.median(t)) / st.median(t)
        el.append(e1); em.append(e2); per[(k, g)] = (p['seconds'] - min(t)) / min(t)
    rows.setdefault(mode, []).append((d, load.group(1) if load else '?', st.median(el), st.median(em), st.median(spread), per, el, em))
    print('%-8s %s load %s: median err vs least %.1f%%, vs median-of-5 %.1f%%; median max/min of 5 launches %.2f; %s' % (
        os.path.basename(d), out.split('\n')[0], load.group(1) if load else '?', 100 * st.median(el), 100 * st.median(em), st.median(spread),
        'calibrated ' + (re.search(r'calibrated \(.*\): (\d+ of \d+)', out).group(1) if 'calibrated (' in out else '?')))
for mode, rs in rows.items():
    print('%s: runs %d, median of run medians %.1f%% (vs median-of-5 %.1f%%), pooled %.1f%% / %.1f%%, 90th pct %.0f%%' % (
        mode, len(rs), 100 * st.median(r[2] for r in rs), 100 * st.median(r[3] for r in rs),
        100 * st.median(sum((r[6] for r in rs), [])), 100 * st.median(sum((r[7] for r in rs), [])),
        100 * sorted(sum((r[6] for r in rs), []))[int(0.9 * len(sum((r[6] for r in rs), [])))]))
keys = sorted({k for rs in rows.values() for r in rs for k in r[5]})
print('%-14s %-4s ' % ('kernel', 'x') + ' '.join('%-22s' % m for m in rows))
for k in keys:
    cells = []
    for mode, rs in rows.items():
        v = [r[5][k] for r in rs if k in r[5]]
        cells.append('%-22s' % ('%3.0f%% (%+.0f) n=%d' % (100 * st.median(abs(x) for x in v), 100 * st.median(v), len(v)) if v else '-'))
    print('%-14s %-4s ' % k + ' '.join(cells))
