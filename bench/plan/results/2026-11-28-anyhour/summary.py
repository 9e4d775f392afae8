#!/usr/bin/env python3
"""Planning figures of the profiles kept here (README.md): python3 summary.py"""
import glob
import json

for f in sorted(glob.glob('*/insertion-sort.profile.json') + glob.glob('pair-*/*.profile.json')):
    j = json.load(open(f))
    s, g = j['stats'], j['stats']['speed_guard']
    work = sum(max(4 * y, 4e-3) for x, y in j['samples'])   # runs of 3 rounds + 1 typical, >= 1 ms each
    print(f"{f}: {s['status']}, {s['seconds']:.0f} s, {s['samples']} kept + "
          f"{s['skipped_unguarded']} left out, chain end {j['points'][-1][0] if j['points'] else '-'}, "
          f"kept runs ~{work:.0f} s; guard: {g['unguarded_samples']} of {g['samples']} unguarded, "
          f"{g['dropped_runs']} runs dropped ({g['dropped_inside_runs']} inside, "
          f"{g.get('dropped_starved_runs', '?')} CPU lost), spent {g.get('guard_seconds', '?')} s "
          f"({g.get('guard_vain_seconds', '?')} in vain), pre-empted {g['preempted']}")
