#!/usr/bin/env bash
# worksize.fast on the paper's cases, beside the manual expressions: the
# traced programs' outputs are byte-identical, every call gets an
# automatic size, and the automatic sizes are near the manual ones where
# the method can see the buffers (numpy's exact allocations; Fortran
# scalars in the caller's stack frame, which the frame bound keeps out).
. "$(dirname "$0")/lib.sh"

# 0. Pointers moving within their buffers each call (bench/worksize's
#    loop): the cache answers without the lock, and every call's output
#    is still its block's end minus the pointer: calloc(1088, 8), +8k.
"$SIBYL" wrap "$TARGETS_LIB/libsibylbenchws.so" --header "$SIBYL_SOURCE/bench/worksize/ws_target.h" \
	--gen time,trace,worksize.fast -o "$WORK/ws.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap ws"; }
"$SIBYL" trace -o "$WORK/ws.trace" --wrap "$WORK/ws.so" -- "$TARGETS_BIN/bench_ws_loop" vary 640 >/dev/null
"$SIBYL" export "$WORK/ws.trace" --format csv -o "$WORK/ws.csv"
bad=$(/usr/bin/python3 -c 'import csv,sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), sum(int(r["out_bytes"]) != 8704 - 8 * (i % 64) for i, r in enumerate(rows)))' "$WORK/ws.csv")
expect_eq "moving pointers: calls, wrong output bounds" "640 0" "$bad"

# 0b. A NULL pointer array (ws_scan(p, NULL), as strtol(p, NULL, 10)):
#    every call from the site is sized, the memo's path as the first.
"$SIBYL" wrap "$TARGETS_LIB/libsibylwsshared.so" --header "$SIBYL_SOURCE/tests/integration/targets/ws_shared.h" \
	--functions ws_scan --gen time,trace,worksize.fast -o "$WORK/scan.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap ws_scan"; }
# scan_bounds EXPECTED MODE [N]: ws_threads MODE [N] traced with ws_scan's
# wrapper, output unchanged; prints the calls and how many have an input
# size other than EXPECTED (a Python expression of the call's index i).
scan_bounds() {
	local want=$1
	shift
	"$TARGETS_BIN/ws_threads" "$@" >"$WORK/$1_plain.out"
	"$SIBYL" trace -o "$WORK/$1.trace" --wrap "$WORK/scan.so" -- "$TARGETS_BIN/ws_threads" "$@" >"$WORK/$1.out"
	cmp -s "$WORK/$1_plain.out" "$WORK/$1.out" || fail "ws_threads $1: output differs with worksize.fast"
	"$SIBYL" export "$WORK/$1.trace" --format csv -o "$WORK/$1.csv"
	/usr/bin/python3 -c 'import csv,sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), sum(int(r["in_bytes"]) != eval(sys.argv[2]) for i, r in enumerate(rows)))' "$WORK/$1.csv" "$want"
}
expect_eq "NULL pointer array: calls, wrong input bounds" "100 0" "$(scan_bounds '8 - i % 8' scan 100)"

# 0c. Buffers another thread allocated last and has not logged (it waits
#    without allocating): each call's input is still the whole buffer,
#    1000 + 100 (i % 7) bytes, not the heap from the pointer on.  And a
#    block freed by another thread and its place allocated again, before
#    its thread logged it: the late allocation (5000 bytes) is dropped,
#    the new block's 2000 bytes stand.
expect_eq "buffers of another thread: calls, wrong input bounds" "50 0" \
	"$(scan_bounds '1000 + 100 * (i % 7)' handoff 50)"
expect_eq "a block logged after it was freed: calls, wrong input bounds" "1 0" "$(scan_bounds 2000 stale)"
# 0d. A pointer into another thread's malloc arena, in no block, 4096
#    bytes before the end of its writable part: glibc mapped the arena
#    after the maps were read, with no hook seeing it, so the lookup's
#    miss reads them again.  A string literal (read-only data) stays
#    unknown, 0.
scan_bounds 0 arena >/dev/null
expect_eq "arena and literal: input sizes" "[0, 4096]" \
	"$(/usr/bin/python3 -c 'import csv,sys
print(sorted(int(r["in_bytes"]) for r in csv.DictReader(open(sys.argv[1]))))' "$WORK/arena.csv")"

check_of() {	# check_of REPORT FUNCTION FIELD
	json "[e['$3'] for e in j['worksize_check'] if e['function'] == '$2' and e['method'] == 'fast'][0]" "$1"
}

# 1. BLAS from numpy: cblas_dgemm (by value) and the dgemm_ it calls
#    (Fortran: every scalar by pointer, on cblas_dgemm's stack).
wrap_blas_paper "$WORK/libwrap-blas.so" worksize.fast
cat >"$WORK/matmul.py" <<'PY'
import numpy as np
rng = np.random.default_rng(7)
for m, k, n in [(32, 48, 64), (100, 100, 100), (7, 200, 13), (256, 64, 128), (300, 20, 5)]:
    a = rng.random((m, k)); b = rng.random((k, n))
    print(m, k, n, round(float((a @ b).sum()), 6))
PY
/usr/bin/python3 "$WORK/matmul.py" >"$WORK/plain.out"
"$SIBYL" trace -o "$WORK/np.trace" --wrap "$WORK/libwrap-blas.so" -- \
	/usr/bin/python3 "$WORK/matmul.py" >"$WORK/traced.out"
cmp -s "$WORK/plain.out" "$WORK/traced.out" || fail "numpy output differs with worksize.fast"
"$SIBYL" report "$WORK/np.trace" --worksize-check --json >"$WORK/np.json"
expect_eq "cblas_dgemm calls compared" 5 "$(check_of "$WORK/np.json" cblas_dgemm calls)"
expect_eq "dgemm_ calls compared" 5 "$(check_of "$WORK/np.json" dgemm_ calls)"
# numpy allocates exactly the matrices: only the by-value scalars differ.
rmse=$(check_of "$WORK/np.json" cblas_dgemm rmse_bytes)
/usr/bin/python3 -c "import sys; sys.exit(not 0 < $rmse <= 64)" || fail "cblas_dgemm RMSE $rmse B"
echo "ok: cblas_dgemm RMSE $rmse B"
# Without the caller's frame bound the scalars would drag in the whole
# stack above them (kilobytes); with it, only part of cblas_dgemm's frame.
rmse=$(check_of "$WORK/np.json" dgemm_ rmse_bytes)
/usr/bin/python3 -c "import sys; sys.exit(not 0 < $rmse <= 256)" || fail "dgemm_ RMSE $rmse B"
echo "ok: dgemm_ RMSE $rmse B"
"$SIBYL" report "$WORK/np.trace" --worksize-check --plot "$WORK/np.png" >/dev/null
file "$WORK/np.png" | grep -q PNG || fail "no PNG scatter plot"

# 2. openssl enc: the ciphertext is unchanged and every update is sized.
cat >"$WORK/evp.defs" <<'DEFS'
libcrypto*::EVP_*Update::postfix {
	input_size = inl > 0 ? (uint64_t)inl : 0;
	output_size = *outl > 0 ? (uint64_t)*outl : 0;
}
DEFS
"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h --functions 'EVP_EncryptUpdate' \
	--gen time,trace,worksize.manual,worksize.fast --defs "$WORK/evp.defs" \
	-o "$WORK/libwrap-crypto.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap crypto"; }
head -c 300000 /dev/urandom >"$WORK/plain.bin"
enc() { openssl enc -aes-256-cbc -K 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \
	-iv 0f0e0d0c0b0a09080706050403020100 -in "$WORK/plain.bin" -out "$1"; }
enc "$WORK/plain.enc"
"$SIBYL" trace -o "$WORK/enc.trace" --wrap "$WORK/libwrap-crypto.so" -- bash -c "$(declare -f enc); WORK=$WORK; enc $WORK/traced.enc"
cmp "$WORK/plain.enc" "$WORK/traced.enc" || fail "ciphertext differs with worksize.fast"
"$SIBYL" report "$WORK/enc.trace" --json >"$WORK/enc.report.json"
"$SIBYL" report "$WORK/enc.trace" --worksize-check --json >"$WORK/enc.json"
expect_eq "EVP_EncryptUpdate calls compared" "$(calls_of "$WORK/enc.report.json" EVP_EncryptUpdate)" \
	"$(check_of "$WORK/enc.json" EVP_EncryptUpdate calls)"

# 3. ImageMagick with libjpeg, loaded by dlopen: scanlines through row
#    pointer arrays; without manual sizes the call records carry fast's.
"$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h \
	--functions 'jpeg_read_scanlines,jpeg_write_scanlines' --gen time,trace,worksize.fast \
	-o "$WORK/libwrap-jpeg.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap jpeg"; }
convert -size 320x240 gradient:blue-yellow "$WORK/in.jpg"
convert "$WORK/in.jpg" -resize 50% "$WORK/plain.jpg"
"$SIBYL" trace -o "$WORK/im.trace" --wrap "$WORK/libwrap-jpeg.so" -- \
	convert "$WORK/in.jpg" -resize 50% "$WORK/traced.jpg"
cmp "$WORK/plain.jpg" "$WORK/traced.jpg" || fail "JPEG output differs with worksize.fast"
"$SIBYL" report "$WORK/im.trace" --json >"$WORK/im.json"
# Each row is 320 x 3 bytes read (240 calls); fast sees at least the rows.
out=$(json "sum(f['out_bytes'] for f in j['functions'] if f['name'] == 'jpeg_read_scanlines')" "$WORK/im.json")
[ "$out" -ge $((240 * 320 * 3)) ] || fail "jpeg_read_scanlines output $out B < the rows read"
echo "ok: jpeg_read_scanlines output $out B >= $((240 * 320 * 3)) B"
"$SIBYL" report "$WORK/im.trace" --worksize-check --json >"$WORK/im.check.json"
expect_eq "jpeg compared calls (no manual sizes)" 0 "$(check_of "$WORK/im.check.json" jpeg_read_scanlines calls)"
echo "worksize.fast checks passed"
