#!/usr/bin/env bash
# Calls left abnormally (docs/runtime.md): a call left by longjmp, a C++
# exception or exit() is recorded, flagged, and the depth comes back, so
# later calls are not counted as nested.  Programs written here, then a
# truncated PNG through ImageMagick (libpng's png_error longjmps out of
# png_read_row).  Outputs and exit statuses are those of untraced runs.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }

# same NAME CMD...: trace CMD; stdout, stderr and exit status as untraced.
same() {
	local name=$1 plain_rc=0 traced_rc=0
	shift
	"$@" >"$WORK/plain.out" 2>"$WORK/plain.err" || plain_rc=$?
	"$SIBYL" trace -o "$WORK/$name.trace" --wrap "${WRAP:-$WORK/libwrap-test.so}" -- \
		"$@" >"$WORK/traced.out" 2>"$WORK/traced.err" || traced_rc=$?
	expect_eq "$name: exit status" "$plain_rc" "$traced_rc"
	cmp -s "$WORK/plain.out" "$WORK/traced.out" || fail "$name: stdout differs"
	cmp -s "$WORK/plain.err" "$WORK/traced.err" || fail "$name: stderr differs"
	"$SIBYL" export "$WORK/$name.trace" --format csv -o "$WORK/$name.csv"
}

# rows NAME: "function depth abandoned" per call, counted, sorted.
rows() {
	/usr/bin/python3 -c '
import collections, csv, sys
c = collections.Counter((r["function"], r["depth"], r["abandoned"]) for r in csv.DictReader(open(sys.argv[1])))
print(";".join("%s %s %s x%d" % (k + (n,)) for k, n in sorted(c.items())))' "$WORK/$1.csv"
}

same longjmp "$TARGETS_BIN/abandon" longjmp 50
expect_eq "longjmp: visits left, work at depth 0" \
	"testlib_visit 0 1 x50;testlib_work 0 0 x50" "$(rows longjmp)"

# The inner visit is left by longjmp into the outer one's callback, which
# returns: the outer call closes it when it returns.
same inner "$TARGETS_BIN/abandon" inner 20
expect_eq "inner: inner visits left at depth 1, outer ones return" \
	"testlib_visit 0 0 x20;testlib_visit 1 1 x40;testlib_work 0 0 x20" "$(rows inner)"

same exit "$TARGETS_BIN/abandon" exit
expect_eq "exit: the visit exit() was called from" "testlib_visit 0 1 x1" "$(rows exit)"

same cxx "$TARGETS_BIN/abandon_cxx" 30
expect_eq "C++ exception: visits left, work at depth 0" \
	"testlib_visit 0 1 x30;testlib_work 0 0 x30" "$(rows cxx)"

"$SIBYL" report "$WORK/cxx.trace" >"$WORK/cxx.txt"
grep -q '^# note: *30 calls left abnormally' "$WORK/cxx.txt" || { cat "$WORK/cxx.txt"; fail "report: no note"; }
grep -q 'testlib_visit .*(30 left abnormally)' "$WORK/cxx.txt" || fail "report: function not marked"
"$SIBYL" report --json "$WORK/cxx.trace" >"$WORK/cxx.json"
expect_eq "report --json: abandoned" 30 "$(json 'j["abandoned"]' "$WORK/cxx.json")"
"$SIBYL" export "$WORK/cxx.trace" --format sqlite -o "$WORK/cxx.db"
expect_eq "sqlite: abandoned calls" 30 \
	"$(sqlite3 "$WORK/cxx.db" 'SELECT count(*) FROM calls WHERE abandoned = 1')"

# A real program: ImageMagick reading a truncated PNG.  libpng's
# png_error longjmps out of png_read_row to the coder's setjmp; the
# coder then destroys the read struct, at depth 0.
IM=/usr/bin/convert
[ -x "$IM" ] || IM=convert
"$IM" -size 320x240 gradient:blue-yellow "$WORK/in.png"
head -c "$(( $(stat -c %s "$WORK/in.png") / 2 ))" "$WORK/in.png" >"$WORK/trunc.png"
"$SIBYL" wrap libpng16.so.16 --header png.h -o "$WORK/libwrap-png.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap libpng"; }
WRAP="$WORK/libwrap-png.so" same png "$IM" "$WORK/trunc.png" "$WORK/out.bmp"
expect_eq "png: calls left (png_read_row, png_error, png_longjmp at depths 0, 1, 2)" \
	"png_error 1 1 x1;png_longjmp 2 1 x1;png_read_row 0 1 x1" \
	"$(rows png | tr ';' '\n' | grep ' 1 x' | paste -sd ';')"
expect_eq "png: png_destroy_read_struct after the longjmp, at depth 0" \
	"png_destroy_read_struct 0 0 x1" "$(rows png | tr ';' '\n' | grep '^png_destroy_read_struct')"
echo "all abandon checks passed"
