#!/usr/bin/env bash
# worksize.full on the paper's three cases (section V.B), beside the
# manual expressions: the traced programs' outputs are byte-identical to
# untraced runs, and the RMSE of the automatic sizes is within the
# issue's 64 bytes where the method can see what changed (docs/worksize.md).
. "$(dirname "$0")/lib.sh"

check_of() {	# check_of REPORT FUNCTION FIELD
	json "[e['$3'] for e in j['worksize_check'] if e['function'] == '$2' and e['method'] == 'full'][0]" "$1"
}
rmse_at_most() {	# rmse_at_most REPORT FUNCTION BYTES
	local r
	r=$(check_of "$1" "$2" rmse_bytes)
	/usr/bin/python3 -c "import sys; sys.exit(not 0 <= $r <= $3)" || fail "$2: full RMSE $r B > $3 B"
	echo "ok: $2 full RMSE $r B (<= $3)"
}

# 1. BLAS from numpy (reference BLAS): cblas_dgemm and the dgemm_ it
#    calls, nested: each level has its own view of what changed.
wrap_blas_paper "$WORK/libwrap-blas.so" worksize.full
cat >"$WORK/matmul.py" <<'PY'
import numpy as np
rng = np.random.default_rng(7)
for i in range(40):
    m, k, n = rng.integers(1, 200, 3)
    print(m, k, n, round(float((rng.random((m, k)) @ rng.random((k, n))).sum()), 6))
PY
/usr/bin/python3 "$WORK/matmul.py" >"$WORK/plain.out"
"$SIBYL" trace -o "$WORK/np.trace" --wrap "$WORK/libwrap-blas.so" -- \
	/usr/bin/python3 "$WORK/matmul.py" >"$WORK/traced.out"
cmp -s "$WORK/plain.out" "$WORK/traced.out" || fail "numpy output differs with worksize.full"
"$SIBYL" report "$WORK/np.trace" --worksize-check --json >"$WORK/np.json"
expect_eq "cblas_dgemm calls compared" 40 "$(check_of "$WORK/np.json" cblas_dgemm calls)"
expect_eq "dgemm_ calls compared" 40 "$(check_of "$WORK/np.json" dgemm_ calls)"
rmse_at_most "$WORK/np.json" cblas_dgemm 64
rmse_at_most "$WORK/np.json" dgemm_ 64
# beta = 0 (numpy): C is output only, A and B input only; C comes from
# recycled memory, whose leftovers are not input.  beta = 1 (cblas_dgemm
# through ctypes): C, 256 KiB of fresh memory filled by the program, is
# in-out from the first call on (never seen by the library: input,
# although the pointer is not to const).
"$SIBYL" export "$WORK/np.trace" --format sqlite -o "$WORK/np.db"
inout() {	# inout DB: in-out bytes of each cblas_dgemm call
	/usr/bin/python3 -c 'import sqlite3,sys
print(*(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT c.full_inout_bytes FROM calls c"
  " JOIN functions f ON f.id = c.function_id WHERE f.name = \"cblas_dgemm\" ORDER BY c.start_ns")))' "$1"
}
expect_eq "in-out bytes with beta = 0 above 64 B" "" \
	"$(inout "$WORK/np.db" | tr ' ' '\n' | awk '$1 > 64')"
cat >"$WORK/beta1.py" <<'PY'
import ctypes, numpy as np
# Through the global scope, where the preloaded wrapper comes first.
ctypes.CDLL("libblas.so.3", mode=ctypes.RTLD_GLOBAL)
blas = ctypes.CDLL(None)
rng = np.random.default_rng(3)
d, i = ctypes.c_double, ctypes.c_int
p = lambda x: x.ctypes.data_as(ctypes.c_void_p)
m, k, n = 256, 32, 128
a, b, c = rng.random((m, k)), rng.random((k, n)), np.empty((m, n))
for _ in range(2):
    c[:] = rng.random((m, n))
    blas.cblas_dgemm(i(101), i(111), i(111), i(m), i(n), i(k), d(1.0), p(a), i(k), p(b), i(n),
                     d(1.0), p(c), i(n))
    print(round(float(c.sum()), 6))
PY
/usr/bin/python3 "$WORK/beta1.py" >"$WORK/plain1.out"
"$SIBYL" trace -o "$WORK/b1.trace" --wrap "$WORK/libwrap-blas.so" -- \
	/usr/bin/python3 "$WORK/beta1.py" >"$WORK/traced1.out"
cmp -s "$WORK/plain1.out" "$WORK/traced1.out" || fail "ctypes dgemm output differs with worksize.full"
"$SIBYL" export "$WORK/b1.trace" --format sqlite -o "$WORK/b1.db"
expect_eq "in-out bytes with beta = 1, C filled then refilled" "$((256 * 128 * 8)) $((256 * 128 * 8))" \
	"$(inout "$WORK/b1.db")"

# 2. openssl enc and enc -d on files of many sizes: inl in, *outl out.
#    With -bufsize 4096 each read is one update; by default openssl
#    reads 8 KiB and its cipher BIO updates 4 KiB at a time: the first
#    update finds all 8 KiB new, the second reads its half, and a carry
#    record gives it back (docs/worksize.md, "A buffer read in parts").
cat >"$WORK/evp.defs" <<'DEFS'
libcrypto*::EVP_*Update::postfix {
	input_size = inl > 0 ? (uint64_t)inl : 0;
	output_size = *outl > 0 ? (uint64_t)*outl : 0;
}
DEFS
"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h --functions 'EVP_EncryptUpdate,EVP_DecryptUpdate' \
	--gen time,trace,worksize.manual,worksize.full --defs "$WORK/evp.defs" \
	-o "$WORK/libwrap-crypto.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap crypto"; }
SIZES="1 100 4095 4096 5000 20000 100000"
for s in $SIZES; do head -c "$s" /dev/urandom >"$WORK/p$s.bin"; done
cat >"$WORK/enc.sh" <<'SH'
K=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
for s in $SIZES; do
	openssl enc -aes-256-cbc -K $K -iv 0f0e0d0c0b0a09080706050403020100 $BS -in "$D/p$s.bin" -out "$D/$O$s.enc"
	openssl enc -d -aes-256-cbc -K $K -iv 0f0e0d0c0b0a09080706050403020100 $BS -in "$D/$O$s.enc" -out "$D/$O$s.dec"
done
SH
for bs in "-bufsize 4096" ""; do
	tag=${bs:+4096}
	D=$WORK SIZES=$SIZES BS=$bs O=plain bash "$WORK/enc.sh"
	D=$WORK SIZES=$SIZES BS=$bs O=traced "$SIBYL" trace -f -o "$WORK/enc$tag.trace" --wrap "$WORK/libwrap-crypto.so" -- \
		bash "$WORK/enc.sh"
	for s in $SIZES; do
		cmp -s "$WORK/plain$s.enc" "$WORK/traced$s.enc" || fail "ciphertext of $s B differs with worksize.full"
		cmp -s "$WORK/p$s.bin" "$WORK/traced$s.dec" || fail "decryption of $s B differs with worksize.full"
	done
done
"$SIBYL" report "$WORK/enc4096.trace" --worksize-check --json >"$WORK/enc.json"
rmse_at_most "$WORK/enc.json" EVP_EncryptUpdate 64
rmse_at_most "$WORK/enc.json" EVP_DecryptUpdate 64
"$SIBYL" report "$WORK/enc.trace" --worksize-check --json >"$WORK/enc8.json"
rmse_at_most "$WORK/enc8.json" EVP_EncryptUpdate 64
rmse_at_most "$WORK/enc8.json" EVP_DecryptUpdate 64

# 3. ImageMagick convert with libjpeg, enlarging (the paper's repeated
#    scanlines): rows through JSAMPARRAYs; lines x width x components.
cat >"$WORK/jpeg.defs" <<'DEFS'
libjpeg*::jpeg_read_scanlines::postfix {
	output_size = (uint64_t)sibyl_result * cinfo->output_width * cinfo->output_components;
}
libjpeg*::jpeg_write_scanlines::postfix {
	input_size = (uint64_t)sibyl_result * cinfo->image_width * cinfo->input_components;
}
DEFS
"$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h \
	--functions 'jpeg_read_scanlines,jpeg_write_scanlines' --gen time,trace,worksize.manual,worksize.full \
	--defs "$WORK/jpeg.defs" -o "$WORK/libwrap-jpeg.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap jpeg"; }
convert -size 320x240 -seed 3 plasma:fractal "$WORK/in.jpg"
convert "$WORK/in.jpg" -resize 150% "$WORK/plain.jpg"
"$SIBYL" trace -o "$WORK/im.trace" --wrap "$WORK/libwrap-jpeg.so" -- \
	convert "$WORK/in.jpg" -resize 150% "$WORK/traced.jpg"
cmp "$WORK/plain.jpg" "$WORK/traced.jpg" || fail "JPEG output differs with worksize.full"
"$SIBYL" report "$WORK/im.trace" --worksize-check --json >"$WORK/im.json"
expect_eq "jpeg_read_scanlines calls compared" 240 "$(check_of "$WORK/im.json" jpeg_read_scanlines calls)"
expect_eq "jpeg_write_scanlines calls compared" 360 "$(check_of "$WORK/im.json" jpeg_write_scanlines calls)"
rmse_at_most "$WORK/im.json" jpeg_read_scanlines 64
rmse_at_most "$WORK/im.json" jpeg_write_scanlines 64


# 4. predict takes automatic sizes where it takes manual ones: the same
#    what-if AES profile ("input bytes") over the manual trace and over a
#    trace sized by worksize.full alone predicts nearly the same time.
"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h --functions 'EVP_EncryptUpdate' \
	--gen time,trace,worksize.full -o "$WORK/libwrap-crypto-full.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap crypto (full only)"; }
D=$WORK SIZES="20000 100000" BS="-bufsize 4096" O=auto "$SIBYL" trace -f -o "$WORK/auto.trace" \
	--wrap "$WORK/libwrap-crypto-full.so" -- bash "$WORK/enc.sh"
cat >"$WORK/aes.json" <<JSON
{"format": "sibyl-profile", "version": 1, "min_version": 1, "name": "what-if-aes",
 "work_metric": "input bytes", "range": [1, 1048576], "complete": true,
 "points": [[1, 1e-06], [1048576, 1e-02]]}
JSON
"$SIBYL" predict "$WORK/auto.trace" --model "EVP_EncryptUpdate=$WORK/aes.json" --json >"$WORK/auto.json" ||
	fail "predict over worksize.full sizes"
expect_eq "size method of the calls predicted" "full" \
	"$("$SIBYL" export "$WORK/auto.trace" --format csv -o - | /usr/bin/python3 -c 'import csv,sys
print(*sorted({r["size_method"] for r in csv.DictReader(sys.stdin) if r["function"] == "EVP_EncryptUpdate"}))')"
/usr/bin/python3 - "$WORK/auto.json" <<'PY' || fail "predict did not use the automatic input sizes"
import json, sys
p = json.load(open(sys.argv[1]))
k = [k for k in p['kernels'] if k['name'] == 'EVP_EncryptUpdate'][0]
assert 4096 <= k['work_max'] <= 4096 + 64, k['work_max']	# inl, and a few bytes of context
# 120000 bytes in 4 KiB updates: 1e-6 s + 1e-8 s per byte each, roughly.
want = sum(1e-06 + (n - 1) * (1e-02 - 1e-06) / (1048576 - 1) for n in
           [4096] * (20000 // 4096) + [20000 % 4096] + [4096] * (100000 // 4096) + [100000 % 4096])
print('ok: predicted %.6g s for EVP_EncryptUpdate from automatic sizes (expected %.6g s)' % (k['predicted_s'], want))
assert abs(k['predicted_s'] - want) <= 0.05 * want, (k, want)
PY
# 5. Threads.  Two threads whose blocks share pages call the library at
#    once: every call's sizes are its own (shadows are per byte, and the
#    entry-changed bits per word).  Another thread writing into a call's
#    output block while the call runs: its bytes count as that call's
#    output, and the next call reading them finds them seen.
"$SIBYL" wrap "$TARGETS_LIB/libsibylwsshared.so" --header "$SIBYL_SOURCE/tests/integration/targets/ws_shared.h" \
	--functions ws_copy,ws_copy2,ws_copy_hold,ws_bump --gen time,trace,worksize.full -o "$WORK/wsth.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap ws_shared"; }
for mode in "shared 2000" during parts two fork recycled; do
	"$TARGETS_BIN/ws_threads" $mode >"$WORK/th_plain.out"
	"$SIBYL" trace -f -o "$WORK/th.trace" --wrap "$WORK/wsth.so" -- "$TARGETS_BIN/ws_threads" $mode >"$WORK/th_traced.out"
	cmp -s "$WORK/th_plain.out" "$WORK/th_traced.out" || fail "ws_threads $mode output differs with worksize.full"
	"$SIBYL" export "$WORK/th.trace" --format csv -o "$WORK/th_${mode% *}.csv"
done
sizes() {	# sizes CSV: "function in out in-out" and how many calls had them
	/usr/bin/python3 -c 'import csv,sys,collections
c = collections.Counter((r["function"], r["in_bytes"], r["out_bytes"], r["inout_bytes"])
                        for r in csv.DictReader(open(sys.argv[1])))
print("; ".join("%s %s %s %s x%d" % (k + (v,)) for k, v in sorted(c.items())))' "$1"
}
# 1000 bytes (+8 for n by value) in; ws_bump's buffer, refilled by the
# program, in-out.
expect_eq "threads sharing pages" "ws_bump 1008 1000 1000 x4000; ws_copy 1008 1000 0 x4000" \
	"$(sizes "$WORK/th_shared.csv")"
expect_eq "another thread writing during a call" "ws_copy 8 500 0 x1; ws_copy_hold 1008 1500 0 x1" \
	"$(sizes "$WORK/th_during.csv")"
# A buffer read in parts by calls on two threads (the second one while
# the first still runs, in two rounds of four): each has its own 4096
# bytes in (+8 for n), not the first call all 8192.
expect_eq "a buffer read in parts on two threads" "ws_copy 4104 4096 0 x6; ws_copy_hold 4104 4096 0 x2" \
	"$(sizes "$WORK/th_parts.csv")"
# A buffer in memory malloc recycled: filled by the program in fresh
# memory, then (same memory) bumped as it came back (its bytes are an
# earlier buffer's, not input), then filled by the program first (all
# input, although the pointer is not to const).
expect_eq "recycled memory: input of the three buffers" "4008 8 4008" \
	"$(/usr/bin/python3 -c 'import csv,sys
print(*[r["in_bytes"] for r in csv.DictReader(open(sys.argv[1]))][1:])' "$WORK/th_recycled.csv")"
ins() {	# ins CSV: "function in" and how many calls had them
	/usr/bin/python3 -c 'import csv,sys,collections
c = collections.Counter((r["function"], r["in_bytes"]) for r in csv.DictReader(open(sys.argv[1])))
print("; ".join("%s %s x%d" % (k + (v,)) for k, v in sorted(c.items())))' "$1"
}
# One call reading the second halves of two buffers, each copied whole
# by another call (on two threads): one carry record names one source,
# the first part's; the other part stays its copier's input, not both.
expect_eq "parts of one call from two calls" "ws_copy 4104 x1; ws_copy 8200 x1; ws_copy2 4104 x1" \
	"$(ins "$WORK/th_two.csv")"
# After fork: the child's thread carries from the child's main thread,
# which the record names by the child's tid, not the parent's.
expect_eq "a buffer read in parts after fork" "ws_copy 4104 x2; ws_copy 8200 x1" "$(ins "$WORK/th_fork.csv")"
# 6. Pages that cannot have changed are not compared (write protection,
#    where the kernel has it; docs/worksize.md): a 1 MiB buffer passed six
#    times, changed between calls by a store, read(2) (the kernel
#    writes), another thread, madvise(MADV_DONTNEED) (zeros without a
#    write); then 1 MiB of shared memory, written by a child through its
#    own mapping (first seen: its 1 MiB less the zeros copied in).  Each
#    change is seen, nothing else: n (8 B) plus the bytes.
head -c 100 /dev/zero >"$WORK/zero100"
"$TARGETS_BIN/ws_threads" pages "$WORK/zero100" >"$WORK/th_plain.out"
"$SIBYL" trace -f -o "$WORK/th.trace" --wrap "$WORK/wsth.so" -- \
	"$TARGETS_BIN/ws_threads" pages "$WORK/zero100" >"$WORK/th_traced.out"
cmp -s "$WORK/th_plain.out" "$WORK/th_traced.out" || fail "ws_threads pages output differs with worksize.full"
"$SIBYL" export "$WORK/th.trace" --format csv -o "$WORK/th_pages.csv"
expect_eq "big buffer: input of calls 2 to 9" "8 16 108 16 4104 1044372 8 16" \
	"$(/usr/bin/python3 -c 'import csv,sys
print(*[r["in_bytes"] for r in csv.DictReader(open(sys.argv[1]))][1:])' "$WORK/th_pages.csv")"
# 7. A static buffer straddling .data and .bss (the file-backed mapping
#    and the anonymous one after it): the whole 8 KiB it was given is
#    output (it measured 4000 B, the part in .data, when the two
#    mappings were two areas).
cat >"$WORK/straddle.c" <<'C'
#include <stddef.h>
#include <stdio.h>
#include <string.h>
void ws_copy(const char *in, char *out, size_t n);
static char in[8192] = { 1 };
static char out[8192];
int main(void)
{
	memset(in, 7, sizeof(in));	/* every byte of out changes */
	ws_copy(in, out, sizeof(out));
	printf("%d\n", out[0]);
	return 0;
}
C
cc -O1 -o "$WORK/straddle" "$WORK/straddle.c" -L"$TARGETS_LIB" -lsibylwsshared -Wl,-rpath,"$TARGETS_LIB"
"$SIBYL" trace -f -o "$WORK/st.trace" --wrap "$WORK/wsth.so" -- "$WORK/straddle" >/dev/null
expect_eq "a static buffer across .data and .bss: out bytes" 8192 \
	"$("$SIBYL" export "$WORK/st.trace" --format csv -o - | /usr/bin/python3 -c 'import csv,sys
print(*[r["out_bytes"] for r in csv.DictReader(sys.stdin)])')"
echo "worksize.full checks passed"
