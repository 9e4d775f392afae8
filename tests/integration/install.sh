#!/usr/bin/env bash
# `cmake --install` gives a relocatable tree (docs/install.md): installed
# into one prefix, moved to another, with the build and source trees
# hidden (a tmpfs over each in a private mount namespace), the demo's
# steps run from the moved tree -- wrap, trace, report, a short plan
# (through the plan worker helper), predict -- and a program built with
# `pkg-config sibyl` reads the trace.  Needs root and `unshare -m`;
# skipped (status 77) otherwise.
SIBYL_NEEDS_MOUNT_NS="to hide the build tree"
. "$(dirname "$0")/lib.sh"
case "$WORK/" in
"$SIBYL_BUILD"/* | "$SIBYL_SOURCE"/*) fail "scratch folder $WORK is inside the trees to hide" ;;
esac

cmake --install "$SIBYL_BUILD" --prefix "$WORK/first" >"$WORK/install.log" ||
	{ cat "$WORK/install.log"; fail "cmake --install"; }
mv "$WORK/first" "$WORK/moved"
P="$WORK/moved"
for f in bin/sibyl libexec/sibyl/sibyl-plan-worker lib/libsibyl-rt.so lib/libsibyl-regions.so \
	lib/libsibyl-trace.so lib/pkgconfig/sibyl.pc include/sibyl/trace.h include/sibyl/adapter.h \
	lib/sibyl/adapters/libsibyl-accel-blas.so share/man/man1/sibyl.1 \
	share/bash-completion/completions/sibyl share/doc/sibyl/LICENSE; do
	[ -s "$P/$f" ] || fail "not installed: $f"
done
[ ! -e "$P/bin/sibyl-plan-worker" ] || fail "helpers belong in libexec/sibyl, not bin/"
grep -q "GNU GENERAL PUBLIC LICENSE" "$P/share/doc/sibyl/LICENSE" || fail "LICENSE is not the GPL"
echo "ok: installed and moved"

# What the steps need from the source tree, copied before it is hidden.
mkdir "$WORK/demo"
cp "$SIBYL_SOURCE/examples/blas.defs" "$SIBYL_SOURCE/examples/adapter/example_adapter.c" "$WORK/demo/"
cc -O2 -o "$WORK/demo/matmul" "$SIBYL_SOURCE/examples/matmul.c" -lblas || fail "building matmul"
cat >"$WORK/demo/count.c" <<'C'
/* Reads a trace through the installed library: calls, and nested calls. */
#include <sibyl/trace.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[512];
	struct sibyl_trace *t = sibyl_trace_open(argv[1], err, sizeof(err));
	struct sibyl_trace_call c;
	unsigned long long n = 0;

	if (!t || argc != 2) {
		fprintf(stderr, "count: %s\n", t ? "usage: count DIR" : err);
		return 1;
	}
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	while (sibyl_trace_iter_next(it, &c))
		n++;
	printf("%llu\n", n);
	sibyl_trace_iter_free(it);
	sibyl_trace_close(t);
	return n == sibyl_trace_call_count(t) ? 0 : 1;
}
C

mount -t tmpfs tmpfs "$SIBYL_BUILD" || fail "cannot hide $SIBYL_BUILD"
mount -t tmpfs tmpfs "$SIBYL_SOURCE" || fail "cannot hide $SIBYL_SOURCE"
[ ! -e "$SIBYL" ] || fail "the build tree is still visible"
echo "ok: build and source trees hidden"

cd "$WORK/demo"
export PATH="$P/bin:$PATH" OPENBLAS_NUM_THREADS=1
N=64
sibyl --version
sibyl wrap libblas.so.3 --header cblas.h --functions cblas_dgemm \
	--gen time,trace,worksize.manual --defs blas.defs -o libwrap-blas.so 2>wrap.err ||
	{ cat wrap.err; fail "installed sibyl wrap"; }
sibyl trace -o mm.trace --wrap ./libwrap-blas.so -- ./matmul $N >mm.out || fail "installed sibyl trace"
sibyl report --json mm.trace >mm.json || fail "installed sibyl report"
calls=$(json "sum(f['calls'] for f in j['functions'] if f['name'] == 'cblas_dgemm')" mm.json)
[ "$calls" -ge 1 ] || fail "no cblas_dgemm call recorded"
echo "ok: wrap, trace, report from the moved prefix ($calls cblas_dgemm calls)"
# A short plan.  What is tested is that the installed sibyl plans (the
# worker helper found), not the profile's quality: errors are loose and
# the speed guard off, so that a loaded machine (load 9 here, where the
# demo's settings gave no segment in 40 s) still gives segments.
sibyl plan --adapter-so "$P/lib/sibyl/adapters/libsibyl-accel-blas.so:openblas-dgemm" \
	--range "$((2 * 16 * 16 * 16)):$((2 * N * N * N))" --speed-guard 0 --segment-error 50 \
	--sample-error 50 --fit-error 0 --max-seconds 60 -o openblas.json \
	2>plan.err || [ -s openblas.json ] || { cat plan.err; fail "installed sibyl plan"; }
sibyl predict mm.trace --model "*dgemm*=openblas.json" >predict.out 2>predict.err ||
	{ cat predict.err; fail "installed sibyl predict"; }
grep -qi "speedup" predict.out || fail "predict printed no speedup: $(cat predict.out)"
echo "ok: plan (through libexec/sibyl/sibyl-plan-worker) and predict"

# pkg-config: the reader library and the adapter header.
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
# shellcheck disable=SC2046
cc -o count count.c $(pkg-config --cflags --libs sibyl) -Wl,-rpath,"$P/lib" ||
	fail "building against pkg-config sibyl"
expect_eq "calls read through libsibyl-trace.so" "$(json "j['calls']" mm.json)" "$(./count mm.trace)"
# shellcheck disable=SC2046
cc -shared -fPIC -o adapter.so example_adapter.c $(pkg-config --cflags sibyl) ||
	fail "building an adapter against pkg-config sibyl"
sibyl plan list --adapter-so ./adapter.so >list.out 2>&1 || { cat list.out; fail "plan list of it"; }
echo "install checks passed"
