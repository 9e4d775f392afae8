#!/usr/bin/env bash
# Reference BLAS redirected to the CLBlast shim (examples/accel/clblast_*.c)
# on the OpenCL device: a real program's products (numpy, and dgemm_ /
# cblas_dgemm through ctypes with transposes, alpha/beta, ld > rows, both
# layouts, threads, fork) equal numpy's own long-double product; every
# call is still traced; invalid arguments and the bundled demo give the
# same output and exit status as on reference BLAS.
. "$(dirname "$0")/lib.sh"

SHIM=$TARGETS_LIB/libsibyl-accel-clblast.so
CHECK=$SIBYL_SOURCE/tests/integration/clblast_check.py
wrap() {	# wrap OUT.so EXTRA-GENERATORS
	"$SIBYL" wrap libblas.so.3 --header cblas.h --header cblas_f77.h \
		-I /usr/include/x86_64-linux-gnu --functions 'cblas_dgemm,dgemm_' \
		--gen "time,trace,worksize.manual$2" --defs "$SIBYL_SOURCE/examples/blas.defs" \
		-o "$1" 2>/dev/null
}
wrap "$WORK/ref.so" ""
wrap "$WORK/cl.so" ",redirect:library=$SHIM"

kinds=(numpy fortran cblas nan threads)
"$SIBYL" trace -o "$WORK/cl.trace" --wrap "$WORK/cl.so" -- \
	/usr/bin/python3 "$CHECK" "$SHIM" "${kinds[@]}" fork >"$WORK/cl.out" ||
	{ cat "$WORK/cl.out"; fail "products through CLBlast"; }
cat "$WORK/cl.out"
grep -q "^device: every product ran through CLBlast" "$WORK/cl.out" || fail "not on the device"

# The redirected calls are traced like the original ones.  Reference
# cblas_dgemm calls dgemm_ once per product; the shim does not, and
# fork's child adds one cblas_dgemm (numpy's a @ b) in its own process.
"$SIBYL" trace -o "$WORK/ref.trace" --wrap "$WORK/ref.so" -- \
	/usr/bin/python3 "$CHECK" "$SHIM" "${kinds[@]}" >/dev/null || fail "reference run"
"$SIBYL" report --json "$WORK/cl.trace" >"$WORK/cl.json"
"$SIBYL" report --json "$WORK/ref.trace" >"$WORK/ref.json"
cblas=$(calls_of "$WORK/ref.json" cblas_dgemm)
fortran=$(calls_of "$WORK/ref.json" dgemm_)
[ "$cblas" -gt 0 ] && [ "$fortran" -gt "$cblas" ] || fail "reference run: $cblas, $fortran calls"
expect_eq "cblas_dgemm calls traced through the shim" $((cblas + 1)) "$(calls_of "$WORK/cl.json" cblas_dgemm)"
expect_eq "dgemm_ calls traced through the shim" $((fortran - cblas)) "$(calls_of "$WORK/cl.json" dgemm_)"

# Invalid arguments: the original reports them; output and status unchanged.
status() { "$@" >"$WORK/out" 2>&1 && echo 0 || echo $?; }
ref_status=$(status "$SIBYL" trace -f -o "$WORK/bad.trace" --wrap "$WORK/ref.so" -- \
	/usr/bin/python3 "$CHECK" "$SHIM" bad)
mv "$WORK/out" "$WORK/bad.ref"
cl_status=$(status "$SIBYL" trace -f -o "$WORK/bad.trace" --wrap "$WORK/cl.so" -- \
	/usr/bin/python3 "$CHECK" "$SHIM" bad)
expect_eq "exit status on invalid arguments" "$ref_status" "$cl_status"
cmp -s "$WORK/bad.ref" "$WORK/out" || { diff "$WORK/bad.ref" "$WORK/out"; fail "invalid arguments: output differs"; }
grep -q "parameter number 8" "$WORK/out" || fail "invalid arguments: not reported"
echo "ok: invalid arguments reported by the original BLAS, as without the shim"

# The bundled demo prints the same checksum.
"$SIBYL" trace -f -o "$WORK/m.trace" --wrap "$WORK/ref.so" -- "$TARGETS_BIN/matmul" 128 >"$WORK/m.ref"
"$SIBYL" trace -f -o "$WORK/m.trace" --wrap "$WORK/cl.so" -- "$TARGETS_BIN/matmul" 128 >"$WORK/m.cl"
expect_eq "matmul's output through CLBlast" "$(cat "$WORK/m.ref")" "$(cat "$WORK/m.cl")"
