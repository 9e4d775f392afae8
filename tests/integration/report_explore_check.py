#!/usr/bin/python3
"""Checks for report_explore.sh: sibyl's report, exports and filters
agree with each other and with the call tree's definition.

usage: report_explore_check.py tree REPORT.json DB CSV CHROME.json FOLDED
       report_explore_check.py filters WORK PID1 PID2
       report_explore_check.py diff DIFF.json A.json B.json
"""
import csv
import json
import re
import sqlite3
import sys


def fail(msg):
    sys.exit('FAIL: ' + msg)


def ok(msg):
    print('ok: ' + msg)


def load(path):
    with open(path) as f:
        return json.load(f)


def check_tree(db_path):
    """Each parent encloses its child, one level up, on the same thread;
    self = duration less the children's durations."""
    db = sqlite3.connect(db_path)
    bad = db.execute(
        'SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id'
        ' WHERE p.thread_id != c.thread_id OR p.start_ns > c.start_ns'
        ' OR p.end_ns < c.end_ns OR p.depth >= c.depth').fetchone()[0]
    if bad:
        fail('%d calls with a parent that does not enclose them' % bad)
    nested = db.execute('SELECT count(*) FROM calls WHERE parent_id IS NOT NULL').fetchone()[0]
    if nested == 0:
        fail('no nested call: EVP_EncryptUpdate should run inside EVP_CipherUpdate')
    orphans = db.execute('SELECT count(*) FROM calls WHERE depth > 0 AND parent_id IS NULL').fetchone()[0]
    if orphans:
        fail('%d nested calls without a parent' % orphans)
    wrong = db.execute(
        'SELECT count(*) FROM calls p WHERE p.self_ns != max(0, p.duration_ns -'
        ' coalesce((SELECT sum(c.duration_ns) FROM calls c WHERE c.parent_id = p.id), 0))'
    ).fetchone()[0]
    if wrong:
        fail('%d calls whose self_ns is not duration less children' % wrong)
    pairs = db.execute(
        'SELECT DISTINCT fp.name, fc.name FROM calls c JOIN calls p ON p.id = c.parent_id'
        ' JOIN functions fc ON fc.id = c.function_id JOIN functions fp ON fp.id = p.function_id'
    ).fetchall()
    ok('%d nested calls, parent/child functions %s' % (nested, sorted(pairs)))
    return db


def check_report(report, db):
    selfs = dict(db.execute('SELECT name, self_ns FROM function_summary'))
    for f in report['functions']:
        if selfs.get(f['name']) != f['self_ns']:
            fail('%s: report self_ns %s, SQLite %s' % (f['name'], f['self_ns'], selfs.get(f['name'])))
        if not f['min_ns'] <= f['median_ns'] <= f['p90_ns'] <= f['p99_ns'] <= f['max_ns']:
            fail('%s: min <= median <= p90 <= p99 <= max does not hold' % f['name'])
        if f['self_ns'] > f['total_ns'] or f['stddev_ns'] < 0:
            fail('%s: self above total or negative stddev' % f['name'])
        rate = (f['in_bytes'] + f['out_bytes']) / (f['total_ns'] / 1e9)
        if abs(f['bytes_per_s'] - rate) > 1e-6 * rate + 1e-9:
            fail('%s: bytes_per_s %s, expected %s' % (f['name'], f['bytes_per_s'], rate))
        cnt = f['counters']
        if cnt['task-clock'] is None or cnt['task-clock']['calls'] != f['calls']:
            fail('%s: task-clock not recorded for every call: %s' % (f['name'], cnt))
    ok('report self times equal SQLite\'s; quantiles ordered; rates; counters')


def check_csv(path, db):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    want = {r[0]: (r[1], r[2]) for r in db.execute('SELECT id, parent_id, self_ns FROM calls')}
    for r in rows:
        parent = int(r['parent_id']) if r['parent_id'] else None
        if want.get(int(r['call_id'])) != (parent, int(r['self_ns'])):
            fail('CSV call %s: parent/self %s differ from SQLite %s'
                 % (r['call_id'], (parent, r['self_ns']), want.get(int(r['call_id']))))
    if len(rows) != len(want):
        fail('CSV has %d rows, SQLite %d calls' % (len(rows), len(want)))
    ok('CSV call_id/parent_id/self_ns equal SQLite\'s (%d calls)' % len(rows))


def check_chrome(path, db):
    """The JSON object form of the Trace Event Format: complete events
    with numeric ts/dur (us), names, pid/tid; metadata names processes."""
    j = load(path)
    ev = j['traceEvents']
    xs = [e for e in ev if e['ph'] == 'X']
    meta = [e for e in ev if e['ph'] == 'M']
    ncalls = db.execute('SELECT count(*) FROM calls').fetchone()[0]
    if len(xs) != ncalls:
        fail('chrome: %d complete events for %d calls' % (len(xs), ncalls))
    for e in xs:
        for k, kind in (('ts', (int, float)), ('dur', (int, float)), ('pid', int),
                        ('tid', int), ('name', str), ('cat', str)):
            if not isinstance(e.get(k), kind):
                fail('chrome: event %s: %s is not %s' % (e, k, kind))
    names = {e['args']['name'] for e in meta if e['name'] == 'process_name'}
    if not any(n.startswith('openssl ') for n in names):
        fail('chrome: no process named openssl: %s' % names)
    start = dict(db.execute('SELECT id, start_ns FROM calls'))
    for e in xs[:2000]:
        if abs(e['ts'] * 1000 - start[e['args']['call_id']]) > 1:
            fail('chrome: ts of call %s is not its start' % e['args']['call_id'])
    ok('chrome trace: %d complete events, %d metadata events' % (len(xs), len(meta)))


def check_folded(path, db):
    """flamegraph.pl's reading of a line: the stack, blanks, an integer."""
    line_re = re.compile(r'^(.*)\s+?(\d+(?:\.\d*)?)$')
    total = 0
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        m = line_re.match(line)
        if not m or not m.group(1).startswith('openssl;'):
            fail('folded: bad line %r' % line)
        total += int(m.group(2))
    want = db.execute('SELECT sum(self_ns) FROM calls').fetchone()[0]
    if total != want:
        fail('folded: stacks add up to %d ns, the calls\' self times to %d' % (total, want))
    if not any(';EVP_CipherUpdate;EVP_EncryptUpdate ' in l for l in lines):
        fail('folded: no EVP_CipherUpdate;EVP_EncryptUpdate stack')
    ok('folded: %d stacks adding up to the self times (%d ns)' % (len(lines), total))


def calls(j, name=None):
    return sum(f['calls'] for f in j['functions'] if name is None or f['name'] == name)


def filters(work, pid1, pid2):
    allj = load(work + '/all.json')
    names = {f['name'] for f in allj['functions']}
    f = load(work + '/f.json')
    if {x['name'] for x in f['functions']} != {n for n in names if n.startswith('EVP_Cipher')}:
        fail('-F EVP_Cipher*: %s' % [x['name'] for x in f['functions']])
    n = load(work + '/n.json')
    if {x['name'] for x in n['functions']} != {n for n in names if not n.startswith('EVP_Cipher')}:
        fail('-N EVP_Cipher*@libcrypto*: %s' % [x['name'] for x in n['functions']])
    if not f['filtered'] or calls(f) + calls(n) != calls(allj):
        fail('-F and -N do not partition the calls')
    by_pid = {p['pid']: p['calls'] for p in allj['processes']}
    if calls(load(work + '/pid.json')) != by_pid[int(pid1)]:
        fail('--pid %s: not that process\'s calls' % pid1)
    if calls(load(work + '/tid.json')) != by_pid[int(pid2)]:
        fail('--tid %s: not that (single-threaded) process\'s calls' % pid2)
    if calls(load(work + '/range.json')) != by_pid[int(pid1)]:
        fail('--time-range up to the end of the first process: not its calls')
    db = sqlite3.connect(work + '/a.db')
    want = db.execute('SELECT count(*) FROM calls WHERE duration_ns >= 20000').fetchone()[0]
    if calls(load(work + '/min.json')) != want:
        fail('--min-duration 20us: %d calls, SQLite says %d' % (calls(load(work + '/min.json')), want))
    ok('-F, -N, --pid, --tid, --time-range, --min-duration select the right calls')
    field = {'calls': 'calls', 'total': 'total_ns', 'self': 'self_ns', 'mean': 'mean_ns',
             'median': 'median_ns', 'p90': 'p90_ns', 'p99': 'p99_ns', 'stddev': 'stddev_ns',
             'min': 'min_ns', 'max': 'max_ns', 'in': 'in_bytes', 'out': 'out_bytes',
             'work': 'work', 'bytes/s': 'bytes_per_s', 'work/s': 'work_per_s'}
    for key, name in field.items():
        fs = load(work + '/sort-%s.json' % key.replace('/', '_'))['functions']
        vals = [x[name] if x[name] is not None else float('-inf') for x in fs]
        if vals != sorted(vals, reverse=True):
            fail('--sort %s: not largest first: %s' % (key, vals))
    ok('--sort by %d columns' % len(field))
    top = load(work + '/top.json')
    bycalls = sorted((x['calls'] for x in allj['functions']), reverse=True)[:2]
    if [x['calls'] for x in top['functions']] != bycalls or top['functions_total'] != len(names):
        fail('--top 2 --sort calls: %s' % top['functions'])
    ok('--top 2')


def diff(diff_path, a_path, b_path):
    d, a, b = load(diff_path), load(a_path), load(b_path)
    for f in d['functions']:
        for side, j in (('a', a), ('b', b)):
            if f['calls_' + side] != calls(j, f['name']):
                fail('diff: %s calls_%s %s' % (f['name'], side, f['calls_' + side]))
        if f['ratio'] is not None and abs(f['ratio'] - f['total_ns_b'] / f['total_ns_a']) > 1e-9:
            fail('diff: %s ratio' % f['name'])
    if calls(a, 'EVP_EncryptUpdate') != calls(b, 'EVP_EncryptUpdate'):
        fail('two runs of one program made different numbers of EVP_EncryptUpdate calls')
    ok('--diff: calls and ratios of %d functions' % len(d['functions']))


def main():
    what = sys.argv[1]
    if what == 'tree':
        report, db_path, csv_path, chrome, folded = sys.argv[2:7]
        db = check_tree(db_path)
        check_report(load(report), db)
        check_csv(csv_path, db)
        check_chrome(chrome, db)
        check_folded(folded, db)
    elif what == 'filters':
        filters(*sys.argv[2:5])
    elif what == 'diff':
        diff(*sys.argv[2:5])


main()
