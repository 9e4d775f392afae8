#!/usr/bin/env bash
# python3-numpy matrix products on reference BLAS: every cblas_dgemm call
# the script makes is recorded, with the sizes it used.
. "$(dirname "$0")/lib.sh"

cat >"$WORK/blas.defs" <<'DEFS'
libblas*::cblas_dgemm::postfix {
	output_size = (uint64_t)M * N * sizeof(*C);
	input_size = (uint64_t)M * K * sizeof(*A) + (uint64_t)K * N * sizeof(*B);
	work = 2.0 * M * N * K;
}
DEFS
"$SIBYL" wrap libblas.so.3 --header cblas.h -I /usr/include/x86_64-linux-gnu \
	--functions 'cblas_*' --gen time,trace,worksize.manual --defs "$WORK/blas.defs" \
	-o "$WORK/libwrap-blas.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }

# Known products: (m, k, n) for a (m x k) @ (k x n) in float64.
cat >"$WORK/matmul.py" <<'PY'
import numpy as np
rng = np.random.default_rng(7)
shapes = [(32, 48, 64), (100, 100, 100), (7, 200, 13), (256, 64, 128), (64, 64, 64)]
for m, k, n in shapes:
    a = rng.random((m, k))
    b = rng.random((k, n))
    c = a @ b
    print(m, k, n, round(float(c.sum()), 6))
PY
/usr/bin/python3 "$WORK/matmul.py" >"$WORK/plain.out"
"$SIBYL" trace -o "$WORK/np.trace" --wrap "$WORK/libwrap-blas.so" -- \
	/usr/bin/python3 "$WORK/matmul.py" >"$WORK/traced.out"
cmp -s "$WORK/plain.out" "$WORK/traced.out" || fail "numpy output differs under tracing"
"$SIBYL" report --json "$WORK/np.trace" >"$WORK/np.json"

expect_eq "cblas_dgemm calls" 5 "$(calls_of "$WORK/np.json" cblas_dgemm)"
# Sum over the shapes of m*n*8 and (m*k + k*n)*8.
expect_eq "output bytes" $(( (32*64 + 100*100 + 7*13 + 256*128 + 64*64) * 8 )) \
	"$(json "sum(f['out_bytes'] for f in j['functions'] if f['name'] == 'cblas_dgemm')" "$WORK/np.json")"
expect_eq "input bytes" $(( (32*48 + 48*64 + 100*100*2 + 7*200 + 200*13 + 256*64 + 64*128 + 64*64*2) * 8 )) \
	"$(json "sum(f['in_bytes'] for f in j['functions'] if f['name'] == 'cblas_dgemm')" "$WORK/np.json")"
# Per-call sizes, in the order the script made the products.
"$SIBYL" export "$WORK/np.trace" --format csv -o "$WORK/np.csv"
expect_eq "per-call output sizes" "16384 80000 728 262144 32768" \
	"$(/usr/bin/python3 -c '
import csv,sys
rows=[r for r in csv.DictReader(open(sys.argv[1])) if r["function"]=="cblas_dgemm"]
rows.sort(key=lambda r:int(r["start_ns"]))
print(" ".join(r["out_bytes"] for r in rows))' "$WORK/np.csv")"
echo "numpy/BLAS checks passed"
