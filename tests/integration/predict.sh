#!/usr/bin/env bash
# sibyl predict on the bundled matrix-product demo traced through reference
# BLAS: eq. 1-3 against an independent computation from the exported CSV,
# nesting, best-of, calls outside the profile, byte metrics, and one clear
# line for each bad input.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap libblas.so.3 --header cblas.h --header cblas_f77.h \
	-I /usr/include/x86_64-linux-gnu --functions 'cblas_dgemm,dgemm_' \
	--gen time,trace,worksize.manual --defs "$SIBYL_SOURCE/examples/blas.defs" \
	-o "$WORK/w.so" 2>/dev/null
"$SIBYL" trace -o "$WORK/tr" --wrap "$WORK/w.so" -- "$TARGETS_BIN/matmul" 160 >/dev/null
"$SIBYL" report --json "$WORK/tr" >"$WORK/report.json"
"$SIBYL" export "$WORK/tr" --format csv -o "$WORK/tr.csv"

metric='floating-point operations (2mnk)'
# A what-if accelerator: 20 us per call, 100 GFLOP/s; its points stop
# below the largest products, so some calls are extrapolated.
cat >"$WORK/acc.json" <<JSON
{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "what-if",
 "work_metric": "$metric", "range": [1000, 4000000], "complete": true,
 "points": [[1000, 2.001e-05], [4000000, 6.0e-05]]}
JSON
check() {	# check NAME FUNCS PROFILE [predict options] -- [checker flags]
	local name=$1 funcs=$2 prof=$3
	shift 3
	local popts=() cflags=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do popts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	cflags=("$@")
	local models=()
	IFS=, read -ra fs <<<"$funcs"
	for f in "${fs[@]}"; do models+=(--model "$f=$prof"); done
	"$SIBYL" predict "$WORK/tr" "${models[@]}" "${popts[@]}" --json >"$WORK/$name.predict.json"
	/usr/bin/python3 "$SIBYL_SOURCE/tests/integration/predict_check.py" "$WORK/tr" "$WORK/tr.csv" \
		"$WORK/report.json" "$prof" "$WORK/$name.predict.json" "$funcs" "${cflags[@]}" ||
		fail "$name: prediction differs from the independent computation"
	echo "ok: $name"
}
# Bad input: one line each, exit 1, nothing on stdout.
bad() {	# bad NAME EXPECTED-SUBSTRING predict-args...
	local name=$1 want=$2
	shift 2
	if "$SIBYL" predict "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"; then
		fail "$name: accepted"
	fi
	[ "$(wc -l <"$WORK/bad.err")" = 1 ] || { cat "$WORK/bad.err"; fail "$name: not one line"; }
	grep -q -- "$want" "$WORK/bad.err" || { cat "$WORK/bad.err"; fail "$name: message"; }
	[ ! -s "$WORK/bad.out" ] || fail "$name: printed a partial result"
	echo "ok: $name: $(cat "$WORK/bad.err")"
}

check fortran dgemm_ "$WORK/acc.json"
check both 'cblas_dgemm,dgemm_' "$WORK/acc.json"
check best-of 'cblas_dgemm,dgemm_' "$WORK/acc.json" --best-of -- --best-of
check keep 'cblas_dgemm,dgemm_' "$WORK/acc.json" --outside keep -- --keep-outside

# One-time costs recorded by the planner (stats.one_time) are added once,
# unless --no-one-time.
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["stats"]={"one_time": {"init_seconds": 0.03, "first_call_metric": 1000, "first_call_seconds": 0.002, "first_call_sample_seconds": 2e-05}}; json.dump(j, open(sys.argv[2], "w"))' "$WORK/acc.json" "$WORK/once.json"
check one-time 'cblas_dgemm,dgemm_' "$WORK/once.json"
check no-one-time 'cblas_dgemm,dgemm_' "$WORK/once.json" --no-one-time -- --no-one-time
# One implementation is loaded once: two profiles of one adapter (two
# files, e.g. planned over two ranges) are charged its one-time cost once,
# two adapters twice.
/usr/bin/python3 - "$WORK/once.json" "$WORK" <<'PY' || fail "one-time cost per implementation"
import json, sys
j = json.load(open(sys.argv[1]))
for name, adapter in (('a', 'x'), ('b', 'x'), ('c', 'y')):
    j['provenance'] = {'adapter': {'name': adapter, 'source': '/lib/accel.so'}}
    json.dump(j, open(f'{sys.argv[2]}/impl-{name}.json', 'w'))
PY
for pair in a,b a,c; do
	"$SIBYL" predict "$WORK/tr" --model "cblas_dgemm=$WORK/impl-${pair%,*}.json" \
		--model "dgemm_=$WORK/impl-${pair#*,}.json" --json >"$WORK/impl-$pair.json"
done
/usr/bin/python3 - "$WORK/impl-a,b.json" "$WORK/impl-a,c.json" <<'PY' || fail "one-time cost per implementation"
import json, sys
same, other = (json.load(open(f)) for f in sys.argv[1:3])
accelerated = sum(1 for k in other['kernels'] if k['accelerated_calls'])
one = 0.03 + 0.002 - 2e-05
assert abs(same['one_time_s'] - one) < 1e-12, same['one_time_s']
assert abs(other['one_time_s'] - accelerated * one) < 1e-12, (other['one_time_s'], accelerated)
print(f'ok: one adapter in two profiles charged once, two adapters {accelerated} times')
PY
# An init the original pays too (init_shared) is left out; the first call stays.
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["stats"]["one_time"]["init_shared"]=True; json.dump(j, open(sys.argv[2], "w"))' "$WORK/once.json" "$WORK/shared.json"
check init-shared 'cblas_dgemm,dgemm_' "$WORK/shared.json"
# Memory the implementation touches first as calls grow
# (stats.one_time.first_touch): matmul's products ascend, so each cblas
# call (first at its size) is charged the faults its work adds; in all
# F(largest) - F(first_call_metric), at the trace's page fault cost.
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["stats"]["one_time"]["first_touch"]=[[1000, 10], [4e6, 50]]; json.dump(j, open(sys.argv[2], "w"))' "$WORK/once.json" "$WORK/touch.json"
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/once.json" --json >"$WORK/untouched.json"
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/touch.json" --json >"$WORK/touched.json"
/usr/bin/python3 - "$WORK/untouched.json" "$WORK/touched.json" "$WORK/tr/meta.json" <<'PY' ||
import json, sys
before, after, meta = (json.load(open(f)) for f in sys.argv[1:])
k = {x['name']: x for x in after['kernels']}
k0 = {x['name']: x for x in before['kernels']}
# 2*160^3 > 4e6: the curve is flat beyond its last point.
assert abs(k['cblas_dgemm']['first_touch_faults'] - 40) < 1e-9, k['cblas_dgemm']
assert k['dgemm_']['first_touch_faults'] == 0, k['dgemm_']
want = 40 * meta['page_fault_ns'] * 1e-9
assert abs(k['cblas_dgemm']['first_touch_s'] - want) < 1e-12, (k['cblas_dgemm'], want)
added = k['cblas_dgemm']['predicted_s'] - k0['cblas_dgemm']['predicted_s']
assert abs(added - want) < 1e-12, (added, want)
print('ok: first touch, 40 faults on cblas_dgemm,', want, 's')
PY
	fail "first touch"

# The planner's typical samples (stats.typical) scale the profile's times:
# without segments, by their ratio of sums.
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["stats"]={"typical": {"factor": 1.25, "samples": [[1000, 1e-5, 1.25e-5], [4e6, 6e-5, 7.5e-5]]}}; json.dump(j, open(sys.argv[2], "w"))' "$WORK/acc.json" "$WORK/typical.json"
check typical 'cblas_dgemm,dgemm_' "$WORK/typical.json"
"$SIBYL" predict "$WORK/tr" --model "dgemm_=$WORK/typical.json" | grep -c "profile times x 1.250" >/dev/null ||
	fail "the typical factor is not reported"

# A profile with segments and samples, as the planner writes them: two
# noisy lines; predict's 95% interval is checked against scipy.
/usr/bin/python3 - "$WORK/acc.json" "$WORK/fitted.json" <<'PY'
import json, sys, random
j = json.load(open(sys.argv[1]))
rng = random.Random(5)
line = lambda x: 2e-5 + x * 1e-11 if x < 2e5 else 1.6e-5 + x * 3e-11
samples = [[x, line(x) * (1 + rng.gauss(0, 0.03))] for x in range(1000, 4000001, 7919)]
j['segments'] = [{'from': 1000, 'to': 2e5, 'intercept': 2e-5, 'slope': 1e-11, 'samples': 0, 'out_of_range': 0},
                 {'from': 2e5, 'to': 4e6, 'intercept': 1.6e-5, 'slope': 3e-11, 'samples': 0, 'out_of_range': 0}]
j['samples'] = samples
j['points'] = [[1000, line(1000)], [2e5, line(2e5)], [4e6, line(4e6)]]
json.dump(j, open(sys.argv[2], 'w'))
PY
check interval 'cblas_dgemm,dgemm_' "$WORK/fitted.json"
# Points without segments, as a guided or replayed plan writes them: each
# point's samples give its interval (3 at most points, 2 at one, which
# takes the pooled spread).
/usr/bin/python3 - "$WORK/acc.json" "$WORK/points.json" <<'PY'
import json, sys, random
j = json.load(open(sys.argv[1]))
rng = random.Random(9)
xs = [1000, 5e4, 2e5, 1e6, 4e6]
line = lambda x: 2e-5 + x * 1e-11
j.pop('segments', None)
j['points'] = [[x, line(x)] for x in xs]
j['samples'] = [[x, line(x) * (1 + rng.gauss(0, 0.04))] for x in xs for _ in range(2 if x == 2e5 else 3)]
json.dump(j, open(sys.argv[2], 'w'))
PY
check points 'cblas_dgemm,dgemm_' "$WORK/points.json"
[ "$("$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/points.json" --json |
	/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["interval"] is not None)')" = True ] ||
	fail "no interval from a profile of points and samples"
# Several traces of one command: each predicted alone, the one of median
# S_G speaks for them, and the spread of their totals joins the interval.
for d in run2 run3; do
	"$SIBYL" trace -o "$WORK/$d" --wrap "$WORK/w.so" -- "$TARGETS_BIN/matmul" 160 >/dev/null
done
for d in tr run2 run3; do
	"$SIBYL" predict "$WORK/$d" --model "*dgemm*=$WORK/fitted.json" --json >"$WORK/$d.one.json"
done
"$SIBYL" predict "$WORK/tr" "$WORK/run2" "$WORK/run3" --model "*dgemm*=$WORK/fitted.json" \
	--json >"$WORK/runs.json"
/usr/bin/python3 - "$WORK/runs.json" "$WORK"/tr.one.json "$WORK"/run2.one.json "$WORK"/run3.one.json <<'PY' ||
import json, math, statistics, sys
from scipy import stats
j, ones = json.load(open(sys.argv[1])), [json.load(open(f)) for f in sys.argv[2:]]
m = sorted(ones, key=lambda o: o['global_speedup'])[1]
close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12)
assert j['global_speedup'] == m['global_speedup'] and j['predicted_total_s'] == m['predicted_total_s'], j
totals = sorted(o['predicted_total_s'] for o in ones)
r = j['runs']
assert r['traces'] == 3 and r['predicted_total_s'] == [m['predicted_total_s'], totals[0], totals[2]], r
half = stats.t.ppf(0.975, 2) * statistics.stdev(totals) * math.sqrt(2)
profile = m['interval']['predicted_total_half_s']
assert close(r['half_s'], half) and close(r['profile_half_s'], profile), (r, half, profile)
assert close(j['interval']['predicted_total_half_s'], math.hypot(profile, half)), j['interval']
PY
	fail "several traces: median, spread or interval"
echo "ok: three traces, the median one with their spread"
"$SIBYL" trace -o "$WORK/tr96" --wrap "$WORK/w.so" -- "$TARGETS_BIN/matmul" 96 >/dev/null
# Per segment: slower by 1.5 below 2e5, 1.1 above; a segment with fewer
# than 3 typical samples takes the ratio over all of them.
typical_profile() {	# OUT SAMPLES-KEPT-BELOW-2e5
	/usr/bin/python3 - "$WORK/fitted.json" "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = [[x, y, y * (1.5 if x < 2e5 else 1.1)] for x, y in j['samples']]
low = [v for v in s if v[0] < 2e5][:int(sys.argv[3])]
j['stats'] = {'typical': {'factor': 1.2, 'samples': low + [v for v in s if v[0] >= 2e5]}}
json.dump(j, open(sys.argv[2], 'w'))
PY
}
typical_profile "$WORK/fitted-typical.json" 3
check typical-segments 'cblas_dgemm,dgemm_' "$WORK/fitted-typical.json"
typical_profile "$WORK/fitted-typical2.json" 2
check typical-few 'cblas_dgemm,dgemm_' "$WORK/fitted-typical2.json"
"$SIBYL" predict "$WORK/tr" --model "dgemm_=$WORK/fitted.json" | grep -c "uncertainty dominated by dgemm_ calls with work" >/dev/null ||
	fail "the dominant calls are not named"

# --plot: a PNG and an SVG of every call over the profile; outputs follow
# the --force rule, and the extension picks the format.
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/fitted.json" --plot "$WORK/p.png" >/dev/null
[ "$(head -c 4 "$WORK/p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "--plot: not a PNG"
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/fitted.json" --plot "$WORK/p.svg" >/dev/null
grep -q "<svg" "$WORK/p.svg" || fail "--plot: not an SVG"
bad "plot over an existing file" "exists" "$WORK/tr" --model "dgemm_=$WORK/acc.json" --plot "$WORK/p.png"
"$SIBYL" predict "$WORK/tr" --model "dgemm_=$WORK/acc.json" --plot "$WORK/p.png" --force >/dev/null ||
	fail "--plot --force"
bad "plot of another format" "must end in .png or .svg" "$WORK/tr" --model "dgemm_=$WORK/acc.json" --plot "$WORK/p.txt"

# Nesting: cblas_dgemm calls dgemm_; a glob selecting both counts each
# product once.
# product once.  Relative paths, as a user types them.
(cd "$WORK" && "$SIBYL" predict tr --model '*dgemm*=acc.json' --json >glob.json)
expect_eq "nested dgemm_ calls" 10 \
	"$(json "[k['nested_calls'] for k in j['kernels'] if k['name'] == 'dgemm_'][0]" "$WORK/glob.json")"
expect_eq "counted products" 20 "$(json "sum(k['calls'] for k in j['kernels'])" "$WORK/glob.json")"
expect_eq "calls above the profile's points" True \
	"$(json "sum(k['outside_above'] for k in j['kernels']) > 0" "$WORK/glob.json")"

# A byte metric needs no declaration: the trace records bytes for every call.
sed "s/\"$metric\"/\"input+output bytes\"/" "$WORK/acc.json" >"$WORK/bytes.json"
check bytes 'cblas_dgemm,dgemm_' "$WORK/bytes.json" -- --bytes inout

# The crossover: with a 2 ms launch cost the small products stay on the CPU.
cat >"$WORK/slow.json" <<JSON
{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "slow-start",
 "work_metric": "$metric", "range": [1000, 1e10], "complete": true,
 "points": [[1000, 0.002], [1e10, 0.102]]}
JSON
"$SIBYL" predict "$WORK/tr" --model "dgemm_=$WORK/slow.json" --best-of --json >"$WORK/slow.out.json"
/usr/bin/python3 - "$WORK/tr.csv" "$WORK/slow.out.json" <<'PY' || fail "crossover"
import csv, json, sys
k = json.load(open(sys.argv[2]))['kernels'][0]
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['function'] == 'dgemm_']
f = lambda w: 0.002 + (w - 1000) * (0.102 - 0.002) / (1e10 - 1000)
best = None
for thr in sorted({float(r['work']) for r in rows}) + [float('inf')]:
    tot = sum(f(float(r['work'])) if float(r['work']) >= thr else int(r['duration_ns']) * 1e-9 for r in rows)
    if best is None or tot < best[0] - 1e-15:
        best = (tot, thr)
want = None if best[1] == float('inf') else best[1]
assert k['crossover_work'] == want, (k['crossover_work'], want)
assert abs(k['crossover_predicted_s'] - best[0]) < 1e-12, (k['crossover_predicted_s'], best[0])
print('ok: crossover at', want)
PY

sed "s/\"$metric\"/\"matrix dimension n\"/" "$WORK/acc.json" >"$WORK/other.json"
bad "metric mismatch" "measured in 'matrix dimension n'" "$WORK/tr" --model "dgemm_=$WORK/other.json"
bad "unknown function" "no call of a function matching 'dgem_'" "$WORK/tr" --model "dgem_=$WORK/acc.json"
bad "traces of two commands" "several traces must be runs of one command" "$WORK/tr" "$WORK/tr96" \
	--model "dgemm_=$WORK/acc.json"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); del j["work_metric"]; json.dump(j, open(sys.argv[2], "w"))' "$WORK/acc.json" "$WORK/nometric.json"
bad "profile without metric" "refusing to guess" "$WORK/tr" --model "dgemm_=$WORK/nometric.json"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["complete"]=False; j["points"]=[]; json.dump(j, open(sys.argv[2], "w"))' "$WORK/acc.json" "$WORK/empty.json"
bad "profile without points" "no points" "$WORK/tr" --model "dgemm_=$WORK/empty.json"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["provenance"]={"machine": {"hostname": "elsewhere.example"}}; json.dump(j, open(sys.argv[2], "w"))' "$WORK/acc.json" "$WORK/remote.json"
bad "profile of another host" "profiled on host 'elsewhere.example'" "$WORK/tr" --model "dgemm_=$WORK/remote.json"
"$SIBYL" predict "$WORK/tr" --model "dgemm_=$WORK/remote.json" --other-machine >/dev/null ||
	fail "--other-machine"
bad "two models for one function" "matched by both" "$WORK/tr" --model "dgemm_=$WORK/acc.json" --model "dgemm*=$WORK/acc.json"
bad "not a profile" "acc.json.missing" "$WORK/tr" --model "dgemm_=$WORK/acc.json.missing"
bad "not a trace" "predict:" "$WORK/none" --model "dgemm_=$WORK/acc.json"
# A trace whose wrapper declared no metric: say how to declare it.
grep -v '::metric' "$SIBYL_SOURCE/examples/blas.defs" >"$WORK/nometric.defs"
"$SIBYL" wrap libblas.so.3 --header cblas.h --header cblas_f77.h \
	-I /usr/include/x86_64-linux-gnu --functions 'dgemm_' \
	--gen time,trace,worksize.manual --defs "$WORK/nometric.defs" -o "$WORK/w2.so" 2>/dev/null
"$SIBYL" trace -o "$WORK/tr2" --wrap "$WORK/w2.so" -- "$TARGETS_BIN/matmul" 32 >/dev/null
bad "undeclared metric" "declare it in the definition file" "$WORK/tr2" --model "dgemm_=$WORK/acc.json"
# An empty trace (no call at all) and a run that failed: one line, or a
# prediction labelled partial with the reason.
"$SIBYL" trace -o "$WORK/empty" --wrap "$WORK/w.so" -- true
bad "empty trace" "no call of a function matching 'dgemm_'" "$WORK/empty" --model "dgemm_=$WORK/acc.json"
rc=0
"$SIBYL" trace -o "$WORK/failed" --wrap "$WORK/w.so" -- sh -c "'$TARGETS_BIN/matmul' 32 >/dev/null; exit 3" || rc=$?
expect_eq "a failed run's status" 3 "$rc"
"$SIBYL" predict "$WORK/failed" --model "dgemm_=$WORK/acc.json" --json >"$WORK/failed.json"
expect_eq "failed run: partial" True "$(json 'j["partial"]' "$WORK/failed.json")"
"$SIBYL" predict "$WORK/failed" --model "dgemm_=$WORK/acc.json" | grep -c "^PARTIAL: the run did not exit with status 0" >/dev/null ||
	fail "a failed run's prediction is not labelled"

# The cost of interposition: openssl enc in 16-byte pieces makes 65536
# tiny wrapped calls.  Checked against the trace itself: every recorded
# call paid the cost measured by sibyl trace, and the cost lies outside
# the recorded calls, so it cannot exceed the time outside them.
"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h --functions EVP_EncryptUpdate \
	--gen time,trace,worksize.manual --defs "$SIBYL_SOURCE/examples/openssl.defs" \
	-o "$WORK/crypto.so" 2>/dev/null
head -c 1048576 /dev/urandom >"$WORK/in.bin"
"$SIBYL" trace -o "$WORK/enc" --wrap "$WORK/crypto.so" -- openssl enc -aes-256-cbc -bufsize 16 \
	-K 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \
	-iv 0f0e0d0c0b0a09080706050403020100 -in "$WORK/in.bin" -out "$WORK/enc.out"
"$SIBYL" export "$WORK/enc" --format csv -o "$WORK/enc.csv"
cat >"$WORK/aes.json" <<JSON
{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "what-if-aes",
 "work_metric": "input bytes", "range": [16, 1048576], "complete": true,
 "points": [[16, 2e-08], [1048576, 5e-04]]}
JSON
# The AES adapter's init (OpenSSL's provider set-up) is what openssl enc
# pays anyway: its real profile says so, and predict adds only the first
# call's extra time.
env -u OPENSSL_ia32cap "$SIBYL" plan --adapter-so "$SIBYL_BUILD/lib/libsibyl-accel-aes.so" \
	--range 16:65536 --speed-guard 0 --max-samples 30 -o "$WORK/aesni.json" >/dev/null 2>&1 || [ -s "$WORK/aesni.json" ] ||
	fail "planning the AES adapter"
"$SIBYL" predict "$WORK/enc" --model "EVP_EncryptUpdate=$WORK/aesni.json" --outside keep --json \
	>"$WORK/enc-ni.json" || fail "predict with the AES-NI profile"
/usr/bin/python3 - "$WORK/aesni.json" "$WORK/enc-ni.json" <<'PY' || fail "AES: init shared with the original"
import json, sys
one = json.load(open(sys.argv[1]))['stats']['one_time']
p = json.load(open(sys.argv[2]))
assert one['init_shared'] is True and one['init_seconds'] > 0, one
# Measured in five fresh probes; the run of median cost is the one kept.
runs = one['runs']
cost = lambda r: r[0] + max(0.0, r[1] - r[2])
assert len(runs) == 5, runs
# A ladder of fresh first runs, ascending, their page faults counted.
touch = one['first_touch']
assert len(touch) >= 2 and all(b[0] > a[0] for a, b in zip(touch, touch[1:])), touch
assert all(isinstance(f, int) and f >= 0 for _, f in touch), touch
mid = sorted(runs, key=cost)[2]
assert [one['init_seconds'], one['first_call_seconds'], one['first_call_sample_seconds']] == mid, (one, mid)
want = max(0.0, one['first_call_seconds'] - one['first_call_sample_seconds'])
assert abs(p['one_time_s'] - want) <= 1e-12 + 1e-9 * want, (p['one_time_s'], want, one)
print('ok: AES-NI init %.3g s left out, first call %.3g s kept' % (one['init_seconds'], want))
PY
"$SIBYL" predict "$WORK/enc" --model "EVP_EncryptUpdate=$WORK/aes.json" --json >"$WORK/enc.json"
"$SIBYL" predict "$WORK/enc" --model "EVP_EncryptUpdate=$WORK/aes.json" >"$WORK/enc.txt"
/usr/bin/python3 - "$WORK/enc" "$WORK/enc.csv" "$WORK/enc.json" "$WORK/enc.txt" <<'PY' ||
import csv, json, sys
meta = json.load(open(sys.argv[1] + '/meta.json'))
rows = list(csv.DictReader(open(sys.argv[2])))
p, text = json.load(open(sys.argv[3])), open(sys.argv[4]).read()
i, T = p['interposition'], meta['wall_ns'] * 1e-9
per = meta['interposition']['per_call_ns'] * 1e-9
outside = T - sum(int(r['duration_ns']) for r in rows if r['depth'] == '0') * 1e-9
assert len(rows) == 65536 and i['calls'] == len(rows), (i['calls'], len(rows))
assert abs(i['per_call_s'] - per) <= 1e-15 and abs(i['total_s'] - len(rows) * per) <= 1e-12, i
assert abs(i['share'] - i['total_s'] / T) <= 1e-12 and i['inside_accelerated'] == 0, i
assert 0 < i['total_s'] <= outside, (i['total_s'], outside)
# The process's start and exit, traced, as sibyl trace probed them: once.
start = meta['interposition']['startup_ns'] * 1e-9
assert i['startup_s'] == start and 0 <= start < T, (i, T)
assert abs(p['untraced_total_s'] - (T - i['total_s'] - start)) <= 1e-12
assert abs(p['predicted_total_s'] - (p['traced']['predicted_total_s'] - i['total_s'] - start)) <= 1e-12
assert abs(p['global_speedup'] - p['untraced_total_s'] / p['predicted_total_s']) <= 1e-9
line = f"interposition: {len(rows)} wrapped calls, {i['total_s']:.6g} s = {100 * i['share']:.2f}% of T"
assert line in text and f"({per * 1e9:.1f} ns per call" in text, text
assert f"tracing's start and exit of the process: {start:.3g} s" in text, text
print(f"ok: interposition {per * 1e9:.1f} ns x {len(rows)} calls = {100 * i['share']:.2f}% of T, "
      f"{100 * i['total_s'] / outside:.0f}% of the time outside the calls")
PY
	fail "interposition"
# Page faults: numpy writes each product into a fresh array; the faults
# of that first touch are counted (counters generator) and stay in the
# prediction at the cost sibyl trace measured; the counters' reads are
# interposition too.
"$SIBYL" wrap libblas.so.3 --header cblas.h --header cblas_f77.h \
	-I /usr/include/x86_64-linux-gnu --functions 'cblas_dgemm,dgemm_' \
	--gen time,trace,worksize.manual,counters:events=page-faults \
	--defs "$SIBYL_SOURCE/examples/blas.defs" -o "$WORK/wc.so" 2>/dev/null
"$SIBYL" trace -o "$WORK/np" --wrap "$WORK/wc.so" -- /usr/bin/python3 -c '
import numpy as np
rng = np.random.default_rng(1)
print(sum(float((rng.random((320, 320)) @ rng.random((320, 320)))[0, 0]) for _ in range(6)))' >/dev/null
"$SIBYL" export "$WORK/np" --format csv -o "$WORK/np.csv"
"$SIBYL" predict "$WORK/np" --model "cblas_dgemm=$WORK/acc.json" --json >"$WORK/np.json"
/usr/bin/python3 - "$WORK/np" "$WORK/np.csv" "$WORK/np.json" <<'PY' ||
import csv, json, sys
meta = json.load(open(sys.argv[1] + '/meta.json'))
rows = list(csv.DictReader(open(sys.argv[2])))
p = json.load(open(sys.argv[3]))
k, i = p['kernels'][0], p['interposition']
top = [r for r in rows if r['function'] == 'cblas_dgemm']
faults = sum(int(r['page_faults']) for r in top)
# 320x320 doubles are 200 pages a product: numpy's fresh result arrays
# fault (they read 0 while the counters' group was opened enabled).
assert faults > 0, ('no page faults counted', faults)
assert k['accelerated_calls'] == len(top) == 6 and k['page_faults'] == faults, (k, faults)
assert abs(k['page_fault_s'] - faults * meta['page_fault_ns'] * 1e-9) <= 1e-12, k
cost = len(rows) * meta['interposition']['per_call_ns'] + \
    sum(1 for r in rows if r['page_faults']) * meta['interposition']['counters_per_call_ns']
assert abs(i['total_s'] - cost * 1e-9) <= 1e-12 and i['inside_accelerated'] == len(rows) - 6, i
print(f"ok: page faults: {faults} in 6 products, {k['page_fault_s'] * 1e3:.3f} ms kept")
PY
	fail "page faults"
# The counters' own cost is measured only for a trace whose wrappers count.
/usr/bin/python3 - "$WORK/np/meta.json" "$WORK/enc/meta.json" <<'PY' || fail "counters cost measured when needed"
import json, sys
counted, plain = (json.load(open(f))['interposition'] for f in sys.argv[1:3])
assert counted['counters_per_call_ns'] > 0 and plain['counters_per_call_ns'] is None, (counted, plain)
PY
# A trace that does not record the cost (an older sibyl) counts it as 0.
/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); del m["interposition"]; json.dump(m, open(sys.argv[1], "w"))' "$WORK/enc/meta.json"
"$SIBYL" predict "$WORK/enc" --model "EVP_EncryptUpdate=$WORK/aes.json" | grep -c "cost per call unknown" >/dev/null ||
	fail "an unknown interposition cost is not said"

# Verification: redirect the calls to another implementation through the
# same wrappers (a fixture that counts what reaches it and computes with
# reference BLAS, so the output must not change), then --actual.
ALT="$SIBYL_BUILD/lib/libalt-blas.so"
redirect_wrap() {	# redirect_wrap OUT.so GEN-PARAMS [DEFS]
	"$SIBYL" wrap libblas.so.3 --header cblas.h --header cblas_f77.h \
		-I /usr/include/x86_64-linux-gnu --functions 'cblas_dgemm,dgemm_' \
		--gen "time,trace,worksize.manual,redirect:$2" \
		--defs "${3:-$SIBYL_SOURCE/examples/blas.defs}" -o "$1" 2>"$WORK/wrap.err"
}
redirected_run() {	# redirected_run TRACE WRAPPER SMALLEST-WORK-REDIRECTED
	"$SIBYL" trace -o "$1" --wrap "$2" -- "$TARGETS_BIN/matmul" 160 >"$1.out" 2>"$1.err"
	cmp -s "$WORK/plain.out" "$1.out" || fail "$2: the redirected run printed something else"
	grep -q "alt_blas: [1-9][0-9]* calls, smallest work $3$" "$1.err" ||
		{ cat "$1.err"; fail "$2: not the calls expected at the alternative"; }
	echo "ok: $2: $(cat "$1.err")"
}
"$TARGETS_BIN/matmul" 160 >"$WORK/plain.out"
redirect_wrap "$WORK/r.so" "library=$ALT" || { cat "$WORK/wrap.err"; fail "redirect wrap"; }
redirected_run "$WORK/acc" "$WORK/r.so" 8192
"$SIBYL" report --json "$WORK/acc" >"$WORK/acc.report.json"
expect_eq "redirected calls still traced" 20 \
	"$(json "sum(f['calls'] for f in j['functions'] if f['name'] == 'cblas_dgemm') * 2" "$WORK/acc.report.json")"
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/acc.json" --actual "$WORK/acc" --json \
	>"$WORK/verify.json"
/usr/bin/python3 - "$WORK/verify.json" "$WORK/report.json" "$WORK/acc.report.json" <<'PY' ||
import json, sys
v, t, a = (json.load(open(f)) for f in sys.argv[1:])
want = t['wall_ns'] / a['wall_ns']
assert abs(v['actual_speedup'] - want) < 1e-9 * want, (v['actual_speedup'], want)
assert abs(v['error'] - (v['traced']['global_speedup'] - want) / want) < 1e-9
assert sum(k['actual_calls'] for k in v['kernels']) == 20, v['kernels']
# The split: kernels as the accelerated trace timed them, the rest its wall
# time beside them; predicted, the traced total less the kernels' share.
s = v['error_split']
assert abs(s['kernels_actual_s'] - sum(k['actual_s'] for k in v['kernels'])) < 1e-9, s
assert abs(s['kernels_actual_s'] + s['rest_actual_s'] - a['wall_ns'] * 1e-9) < 1e-9, s
assert abs(s['kernels_predicted_s'] + s['rest_predicted_s'] - v['traced']['predicted_total_s']) < 1e-9, s
in_call = v['one_time_in_call_s'] if v['one_time_included'] else 0
assert 0 <= v['one_time_in_call_s'] <= v['one_time_s'], v
assert abs(s['kernels_predicted_s'] - v['kernels_predicted_s'] - in_call) < 1e-9, s
print('ok: actual speedup', want)
PY
	fail "--actual"
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/acc.json" --actual "$WORK/acc" |
	tail -1 | grep -Eq '^predicted speedup [0-9.]+, actual [0-9.]+, error -?[0-9.]+%$' ||
	fail "the last line of a verified prediction"

# --verify runs the traced command again through the redirect wrapper,
# three times, and compares with the median run; before each, the
# original again, in the environment it was traced in (not predict's).
SIBYL_TEST_ARM=accelerated "$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/acc.json" \
	--verify --wrap "$WORK/r.so" --runs 3 --json >"$WORK/verified.json" \
	2>"$WORK/verified.err" || fail "--verify"
[ "$(grep -Ec '^alt_blas: [1-9][0-9]* calls, smallest work 8192$' "$WORK/verified.err")" = 3 ] ||
	{ cat "$WORK/verified.err"; fail "--verify: three runs through the alternative"; }
"$SIBYL" report --json "$WORK/tr.accelerated" >"$WORK/verified.report.json"
/usr/bin/python3 - "$WORK/verified.json" "$WORK/report.json" "$WORK/verified.report.json" <<'PY' ||
import json, sys
v, t, last = (json.load(open(f)) for f in sys.argv[1:])
lo, hi = v['actual_total_range_s']
assert v['actual_runs'] == 3 and lo <= v['actual_total_s'] <= hi, v
assert lo <= last['wall_ns'] * 1e-9 <= hi, (lo, hi, last['wall_ns'])
assert abs(v['actual_speedup'] - t['wall_ns'] * 1e-9 / v['actual_total_s']) < 1e-9 * v['actual_speedup']
assert sum(k['actual_calls'] for k in v['kernels']) == 20, v['kernels']
print('ok: --verify, median of 3 runs', v['actual_total_s'], 'in', lo, hi)
p = v['paired']
assert p['runs'] == 3, p
for key in ('predicted', 'actual'):
    lo, hi = p[key + '_range']
    assert 0 < lo <= p[key + '_speedup'] <= hi, (key, p)
assert abs(p['error'] - (p['predicted_speedup'] - p['actual_speedup']) / p['actual_speedup']) < 1e-9
print('ok: paired with the original: predicted', p['predicted_speedup'], 'actual', p['actual_speedup'])
PY
	fail "--verify"
/usr/bin/python3 - "$WORK/tr" <<'PY' || fail "--verify: each run's environment"
import json, sys
env = {a: json.load(open(sys.argv[1] + '.' + a + '/meta.json'))['environment']
       for a in ('original', 'accelerated')}
assert json.load(open(sys.argv[1] + '/meta.json'))['environment'] is not None
assert 'SIBYL_TEST_ARM=accelerated' in env['accelerated'], env['accelerated']
assert not any(e.startswith('SIBYL_TEST_ARM=') for e in env['original']), env['original']
print('ok: the original re-ran in its recorded environment, the accelerated in ours')
PY
"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/acc.json" --verify --wrap "$WORK/r.so" \
	--runs 1 --force --accelerated-only --verify-trace "$WORK/only" >"$WORK/only.txt" 2>&1 ||
	fail "--verify --accelerated-only"
[ ! -e "$WORK/tr.original" ] || [ ! "$WORK/tr.original" -nt "$WORK/only" ] ||
	fail "--accelerated-only ran the original"
grep -c "paired" "$WORK/only.txt" >/dev/null && fail "--accelerated-only printed pairs"
tail -1 "$WORK/only.txt" | grep -Ec '^predicted speedup [0-9.]+, actual [0-9.]+, error -?[0-9.]+%$' \
	>/dev/null || fail "--accelerated-only: the last line"
# Of several traces, the reported (median) one is verified, and the
# default directory sits beside it, not beside the first given (the
# median is given last).
for d in run2 run3 run4; do
	[ -e "$WORK/$d" ] || "$SIBYL" trace -o "$WORK/$d" --wrap "$WORK/w.so" -- \
		"$TARGETS_BIN/matmul" 160 >/dev/null
	"$SIBYL" predict "$WORK/$d" --model "*dgemm*=$WORK/acc.json" --json >"$WORK/$d.acc.json"
done
median=$(/usr/bin/python3 -c 'import json, sys
ones = sorted((json.load(open(f))["global_speedup"], f) for f in sys.argv[1:])
print(ones[1][1][:-len(".acc.json")])' "$WORK"/run[234].acc.json)
others=$(for d in run2 run3 run4; do [ "$WORK/$d" = "$median" ] || echo "$WORK/$d"; done)
# shellcheck disable=SC2086 # two directories without spaces
"$SIBYL" predict $others "$median" --model "*dgemm*=$WORK/acc.json" \
	--verify --wrap "$WORK/r.so" --runs 1 --accelerated-only >/dev/null 2>&1 ||
	fail "--verify of several traces"
for d in run2 run3 run4; do
	if [ "$WORK/$d" = "$median" ]; then [ -d "$WORK/$d.accelerated" ]
	else [ ! -e "$WORK/$d.accelerated" ]; fi ||
		fail "--verify of several traces: $d.accelerated (median $median)"
done
bad "verify: existing trace" "exists (--force replaces it" "$WORK/tr" \
	--model "*dgemm*=$WORK/acc.json" --verify --wrap "$WORK/r.so"
# A run that ends otherwise than the traced one is not the same program.
"$SIBYL" trace -o "$WORK/sh" --wrap "$WORK/w.so" -- \
	sh -c "\"$TARGETS_BIN/matmul\" 64 >/dev/null; exit \${CODE:-0}" >/dev/null
CODE=3 bad "verify: another exit" "ended otherwise than the traced run" "$WORK/sh" \
	--model "*dgemm*=$WORK/acc.json" --verify --runs 1
for args in "--actual $WORK/acc --verify" "--wrap $WORK/r.so" "--verify --runs 0" \
	"--accelerated-only"; do
	rc=0
	# shellcheck disable=SC2086
	"$SIBYL" predict "$WORK/tr" --model "*dgemm*=$WORK/acc.json" $args >/dev/null 2>&1 || rc=$?
	expect_eq "usage error: $args" 2 $rc
done

# Only calls at or above a work threshold go to the alternative; the
# threshold needs the work computed before the call (a prefix definition).
thr=$((2 * 64 * 64 * 64))
redirect_wrap "$WORK/rt.so" "library=$ALT:threshold=$thr" || { cat "$WORK/wrap.err"; fail "threshold wrap"; }
redirected_run "$WORK/acc2" "$WORK/rt.so" $thr
sed 's/::prefix {/::postfix {/' "$SIBYL_SOURCE/examples/blas.defs" >"$WORK/postfix.defs"
if redirect_wrap "$WORK/bad.so" "library=$ALT:threshold=$thr" "$WORK/postfix.defs"; then
	fail "a threshold without a prefix definition was accepted"
fi
grep -q "prefix definition" "$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "threshold message"; }
# A library that cannot be loaded leaves the original in place.
cp "$ALT" "$WORK/gone.so"
redirect_wrap "$WORK/rg.so" "library=$WORK/gone.so" || fail "wrap"
rm "$WORK/gone.so"
"$SIBYL" trace -o "$WORK/acc3" --wrap "$WORK/rg.so" -- "$TARGETS_BIN/matmul" 160 \
	>"$WORK/acc3.out" 2>"$WORK/acc3.err"
cmp -s "$WORK/plain.out" "$WORK/acc3.out" || fail "a missing alternative changed the output"
[ ! -s "$WORK/acc3.err" ] || { cat "$WORK/acc3.err"; fail "a missing alternative printed"; }
echo "predict checks passed"
