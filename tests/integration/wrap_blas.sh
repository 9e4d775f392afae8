#!/bin/bash
# sibyl wrap on reference BLAS: C and Fortran interfaces, a defs file,
# the skipped list, and a traced run whose work sizes come from the defs.
set -eu
: "${SIBYL:?}" "${SIBYL_BUILD:?}" "${SIBYL_SOURCE:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

"$SIBYL" wrap libblas.so.3 --header cblas.h --header cblas_f77.h \
	--defs "$SIBYL_SOURCE/tests/unit/wrapgen/blas.defs" --emit-c blas.c -o blas.so 2>err.txt
cat err.txt
grep -q 'function(s) wrapped' err.txt
for f in cblas_dgemm dgemm_ cblas_ddot sgemm_; do
	nm -D --defined-only blas.so | grep -qw "$f" || { echo "missing export $f"; exit 1; }
done
# Nothing but the wrapped functions is exported (all helpers static).
if nm -D --defined-only blas.so | grep -w 'sibyl_' ; then echo "sibyl_ symbol exported"; exit 1; fi
# Not linked against the library it wraps.
if readelf -d blas.so | grep -q 'libblas'; then echo "linked against libblas"; exit 1; fi
grep -qP '^ddot_\tno-prototype\t' blas.so.skipped.txt
grep -qP '^cblas_xerbla\tvariadic\t' blas.so.skipped.txt
grep -qP '\tdata-symbol\t' blas.so.skipped.txt
grep -q 'output_size = (uint64_t)M \* N' blas.c

# A small program through the wrapper: the trace has the calls and sizes.
cat > t.c <<'PROG'
#include <cblas.h>
#include <stdio.h>
int main(void)
{
	double a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 0, 0, 1 }, c[4] = { 0 };
	for (int i = 0; i < 3; i++)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2,
			    0.0, c, 2);
	printf("%g %g %g %g\n", c[0], c[1], c[2], c[3]);
	return 0;
}
PROG
cc -o t t.c -lblas
"$SIBYL" trace -o tr --wrap ./blas.so -- ./t > out.txt
grep -q '^1 2 3 4$' out.txt
"$SIBYL" export tr --format csv -o calls.csv
grep -q cblas_dgemm calls.csv
grep -q dgemm_ calls.csv
echo "wrap_blas: ok"
