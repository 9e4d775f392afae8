#!/usr/bin/env bash
# sibyl predict on a program that forks: each process has its own library
# state, so what a call pays for being first (stats.one_time.first_calls
# at its work metric, the first-touch ladder) is charged once per process
# and profile, not once per trace (docs/predict.md, "Page faults").
. "$(dirname "$0")/lib.sh"

cat >"$WORK/work.defs" <<'EOF'
libsibyltest*::testlib_touch::prefix {
	work = page + 1;
}
libsibyltest*::testlib_touch::metric { argument plus one }
EOF
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	--functions testlib_touch --gen time,trace,worksize.manual,counters:events=page-faults \
	--defs "$WORK/work.defs" -o "$WORK/w.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
# The parent calls at work 1..3, its child at 1..6, the parent 1..3 again;
# each call writes a page of its own, which faults the first time in a
# process (the child's first writes copy the parent's pages).
"$SIBYL" trace -o "$WORK/tr" --wrap "$WORK/w.so" -- "$TARGETS_BIN/lifecycle" fork-touch 3 >/dev/null
"$SIBYL" export "$WORK/tr" --format csv -o "$WORK/tr.csv"

# A what-if profile at 1 us a call, met 1.5 times slower by programs
# (stats.typical), whose first call at each work metric took 3 times its
# other runs there (at 3: no more, an excess of 0, still a first call).
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
base = {"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "what-if",
        "work_metric": "argument plus one", "range": [1, 100], "complete": True,
        "points": [[1, 1e-6], [100, 1e-6]]}
first = dict(base, stats={
    "typical": {"factor": 1.5, "samples": [[1, 1e-6, 1.5e-6], [50, 1e-6, 1.5e-6], [100, 1e-6, 1.5e-6]]},
    "one_time": {"first_calls": {"measured": "by hand", "base": "points",
                 "metrics": [[m, 1.5e-6 if m == 3 else 4.5e-6, 1.5e-6] for m in range(1, 7)]}}})
# Written before first_calls had a base: its excess is charged as stored.
old = json.loads(json.dumps(first))
del old['stats']['one_time']['first_calls']['base']
json.dump(old, open(sys.argv[1] + '/old.json', 'w'))
touch = dict(base, stats={"one_time": {"first_call_metric": 1, "first_touch": [[1, 0], [6, 50]]}})
json.dump(first, open(sys.argv[1] + '/first.json', 'w'))
json.dump(touch, open(sys.argv[1] + '/touch.json', 'w'))
PY
"$SIBYL" predict "$WORK/tr" --model "testlib_touch=$WORK/first.json" --json >"$WORK/first.out"
"$SIBYL" predict "$WORK/tr" --model "testlib_touch=$WORK/touch.json" --json >"$WORK/touch.out"
"$SIBYL" predict "$WORK/tr" --model "testlib_touch=$WORK/old.json" --json >"$WORK/old.out"
/usr/bin/python3 - "$WORK/tr.csv" "$WORK/first.out" "$WORK/touch.out" "$WORK/tr/meta.json" <<'PY' ||
import csv, json, math, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r['start_ns']))
first, touch, meta = (json.load(open(f)) for f in sys.argv[2:])
assert len({r['pid'] for r in rows}) == 2, 'not two processes'
# The charged calls: each process's first at each metric, but the
# trace's first call (the one-time cost's): parent 2, 3; child 1..6.
met, charged = set(), []
for i, r in enumerate(rows):
    key = (r['pid'], r['work'])
    if key not in met and i > 0:
        charged.append(r)
    met.add(key)
k = first['kernels'][0]
assert k['first_at_calls'] == len(charged) == 8, (k['first_at_calls'], len(charged))
# 1 us x (3 - 1) at the profile's base, x 1.5 at the speed programs meet.
want = sum(0 if r['work'] == '3' else 2e-6 * 1.5 for r in charged)
assert abs(k['first_at_s'] - want) < 1e-12, (k['first_at_s'], want)
k_old = json.load(open(sys.argv[2].replace('first.out', 'old.out')))['kernels'][0]
assert abs(k_old['first_at_s'] - want / 1.5) < 1e-12, ('old file scaled', k_old['first_at_s'])
# A charged call's faults are in its measured first run: not kept.  The
# trace's first call is not charged, and its first touch is kept.
kept = sum(int(r['page_faults']) for r in rows if r not in charged)
assert int(rows[0]['page_faults']) > 0 and kept < sum(int(r['page_faults']) for r in rows), \
    ('the calls did not fault as written', [r['page_faults'] for r in rows])
assert k['page_faults'] == kept, (k['page_faults'], kept)
assert abs(k['page_fault_s'] - kept * meta['page_fault_ns'] * 1e-9) < 1e-15, k
# The ladder per process: the parent's calls grow to 3, the child's to 6.
F = lambda w: 50 * math.log(w) / math.log(6)
t = touch['kernels'][0]
assert abs(t['first_touch_faults'] - (F(3) + F(6))) < 1e-9, (t['first_touch_faults'], F(3) + F(6))
print(f"ok: {k['first_at_calls']} first calls charged in 2 processes, {k['first_at_s']:.3g} s; "
      f"{t['first_touch_faults']:.1f} faults touched first")
PY
	fail "first calls per process"
echo "predict per-process checks passed"
