# Shared helpers for the integration tests (sourced by bash scripts).
# Environment from CTest: SIBYL (the sibyl binary), SIBYL_BUILD, SIBYL_SOURCE.
set -euo pipefail

: "${SIBYL:?run through ctest}"
# A test that mounts (a tmpfs) sets SIBYL_NEEDS_MOUNT_NS=WHY before
# sourcing this file: it then runs again as root in a private mount
# namespace, or is skipped (status 77, the test's SKIP_RETURN_CODE).
if [ -n "${SIBYL_NEEDS_MOUNT_NS:-}" ] && [ "${SIBYL_IN_MOUNT_NS:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
		echo "SKIP: needs root and unshare -m $SIBYL_NEEDS_MOUNT_NS"
		exit 77
	fi
	SIBYL_IN_MOUNT_NS=1 exec unshare -m "$0" "$@"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sibyl-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TARGETS_LIB="$SIBYL_BUILD/lib"
TARGETS_BIN="$SIBYL_BUILD/bin"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# json QUERY FILE: evaluate a Python expression over the parsed JSON `j`.
json() {
	/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

# expect_one_error WHAT STATUS PATTERN -- COMMAND...: COMMAND exits with
# STATUS and prints one line, "sibyl: ...PATTERN...", on stderr.
expect_one_error() {
	local what=$1 want=$2 pattern=$3 status=0
	shift 4
	"$@" > "$WORK/out" 2> "$WORK/err" || status=$?
	[ "$status" -eq "$want" ] || { cat "$WORK/err"; fail "$what: exit status $status, not $want"; }
	[ "$(wc -l < "$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "$what: not one error line"; }
	grep -q "^sibyl: .*$pattern" "$WORK/err" || fail "$what: '$(cat "$WORK/err")' lacks '$pattern'"
	echo "ok: $what: $(cat "$WORK/err")"
}

expect_eq() {	# expect_eq WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = $3"
}

# calls_of REPORT.json FUNCTION: the number of calls of one function.
calls_of() {
	json "sum(f['calls'] for f in j['functions'] if f['name'] == '$2')" "$1"
}

# wrap_blas_paper OUT.so GENERATOR: reference BLAS's cblas_dgemm and
# dgemm_ wrapped with the paper's work-size expressions (named Fortran
# parameters, inputs A and B, output C) beside GENERATOR, for the
# automatic work-size tests to be checked against.
wrap_blas_paper() {
	cat >"$WORK/fblas.h" <<'H'
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc);
H
	cat >"$WORK/blas.defs" <<'DEFS'
libblas*::cblas_dgemm::postfix {
	output_size = (uint64_t)M * N * sizeof(*C);
	input_size = (uint64_t)M * K * sizeof(*A) + (uint64_t)K * N * sizeof(*B);
}
libblas*::dgemm_::postfix {
	output_size = (uint64_t)*m * *n * sizeof(*c);
	input_size = (uint64_t)*m * *k * sizeof(*a) + (uint64_t)*k * *n * sizeof(*b);
}
DEFS
	"$SIBYL" wrap libblas.so.3 --header cblas.h --header "$WORK/fblas.h" -I /usr/include/x86_64-linux-gnu \
		--functions 'cblas_dgemm,dgemm_' --gen "time,trace,worksize.manual,$2" \
		--defs "$WORK/blas.defs" -o "$1" 2>"$WORK/wrap.err" ||
		{ cat "$WORK/wrap.err"; fail "sibyl wrap blas"; }
}

# no_spir_runner PATH: a sibyl-kernel-run that answers the device probe as
# a driver without cl_khr_spir (NVIDIA's, AMD's) would, refuses SPIR, and
# runs everything else as it is (SIBYL_KERNEL_RUNNER=PATH).
no_spir_runner() {
	cat >"$1" <<EOS
#!/bin/sh
if grep -q '"probe":true' "\$1"; then
	echo '{"event":"device","platform":"p","device":"d","spir":false}' >&3
	exit 0
fi
grep -q '"spir":' "\$1" && { echo '{"event":"error","text":"kernel: SPIR given"}' >&3; exit 4; }
exec "$SIBYL_BUILD/bin/sibyl-kernel-run" "\$@"
EOS
	chmod +x "$1"
}
