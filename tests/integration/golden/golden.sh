#!/usr/bin/env bash
# Golden tests: the text of sibyl report, export --format csv and plan
# (list, run, show, evaluate, envelope), normalised by normalise.py, must
# be the *.txt and *.csv files beside this script (README.md).  After a
# deliberate change of that text, rewrite them and review the diff:
#   cd build && SIBYL_GOLDEN_UPDATE=1 ctest -R golden
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
failed=()

# golden NAME KIND COMMAND...: the command's standard output, normalised,
# against $HERE/NAME.
golden() {
	local name=$1 kind=$2
	shift 2
	"$@" > "$WORK/$name.raw" || fail "$name: exit status $? from $*"
	/usr/bin/python3 "$HERE/normalise.py" "$kind" "WORK=$WORK" "BUILD=$SIBYL_BUILD" \
		"SOURCE=$SIBYL_SOURCE" < "$WORK/$name.raw" > "$WORK/$name"
	[ -s "$WORK/$name" ] || fail "$name: no output"
	if [ -n "${SIBYL_GOLDEN_UPDATE:-}" ]; then
		cp "$WORK/$name" "$HERE/$name"
		echo "updated: $name"
	elif diff -u "$HERE/$name" "$WORK/$name"; then
		echo "ok: $name"
	else
		failed+=("$name")
	fi
}

# A trace of a program making a fixed sequence of calls, through wrappers
# with work sizes.
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	--defs "$HERE/testlib.defs" --output "$WORK/libwrap-test.so" 2> "$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap"; }
"$SIBYL" trace --output "$WORK/calls.trace" --wrap "$WORK/libwrap-test.so" -- \
	"$TARGETS_BIN/fixed_calls" > "$WORK/calls.out"
golden report.txt report "$SIBYL" report --sort name "$WORK/calls.trace"
golden export.csv csv "$SIBYL" export "$WORK/calls.trace" --format csv --output -

# Plans on the test adapters' synthetic clock (plan/test_adapters.c): the
# same samples, profile and errors on any machine; one run a sample.
cc -shared -fPIC -O2 -I"$SIBYL_SOURCE/include" "$SIBYL_SOURCE/tests/integration/plan/test_adapters.c" \
	-o "$WORK/test.so"
KINK=(--adapter-so "$WORK/test.so:kink" --repeat 1 --rounds 1 --sample-time 0 --speed-guard 0)
golden plan-list.txt plan "$SIBYL" plan list
golden plan-run.txt plan "$SIBYL" plan run "${KINK[@]}" --output "$WORK/kink.json"
golden plan-show.txt plan "$SIBYL" plan show "$WORK/kink.json"
golden plan-evaluate.txt plan "$SIBYL" plan evaluate "${KINK[@]}" --profile "$WORK/kink.json" \
	--evaluate 50
"$SIBYL" plan run --adapter-so "$WORK/test.so:spin" --repeat 1 --rounds 1 --sample-time 0 \
	--speed-guard 0 --output "$WORK/spin.json" > /dev/null
golden plan-envelope.txt plan "$SIBYL" plan envelope "$WORK/kink.json" "$WORK/spin.json" \
	--output "$WORK/envelope.json"
golden plan-show-envelope.txt plan "$SIBYL" plan show "$WORK/envelope.json"

[ ${#failed[@]} -eq 0 ] || fail "output differs from the golden files: ${failed[*]}" \
	"(if that is intended: cd build && SIBYL_GOLDEN_UPDATE=1 ctest -R golden)"
echo "ok: golden"
