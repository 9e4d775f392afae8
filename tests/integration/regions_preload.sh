#!/usr/bin/env bash
# The region tracker replaces the program's allocator entry points, so
# `sibyl trace` preloads it only when a --wrap library asks for it
# (worksize.fast).  A worksize.fast wrapper preloaded by hand without it
# still works: the calls are recorded, without automatic sizes.
. "$(dirname "$0")/lib.sh"

H="$SIBYL_SOURCE/tests/integration/targets/testlib.h"
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$H" -o "$WORK/plain.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap (plain)"; }
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$H" --gen time,trace,worksize.fast \
	-o "$WORK/fast.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap (fast)"; }

# The traced program's own view of what is mapped.
maps_of() {	# maps_of WRAPPER: the sibyl libraries mapped in the traced program
	"$SIBYL" trace -f -o "$WORK/maps.trace" --wrap "$1" -- cat /proc/self/maps |
		grep -o 'libsibyl-[a-z]*\.so' | sort -u | tr '\n' ' '
}
# (The audit module is in every traced program: sibyl trace's default.)
expect_eq "mapped with a plain wrapper" "libsibyl-audit.so libsibyl-rt.so " "$(maps_of "$WORK/plain.so")"
expect_eq "mapped with a worksize.fast wrapper" "libsibyl-audit.so libsibyl-regions.so libsibyl-rt.so " \
	"$(maps_of "$WORK/fast.so")"
expect_eq "mapped with both wrappers" "libsibyl-audit.so libsibyl-regions.so libsibyl-rt.so " \
	"$("$SIBYL" trace -f -o "$WORK/maps.trace" --wrap "$WORK/plain.so" --wrap "$WORK/fast.so" -- \
		cat /proc/self/maps | grep -o 'libsibyl-[a-z]*\.so' | sort -u | tr '\n' ' ')"

# Through sibyl trace: automatic sizes (testlib_sum's input and output).
FIXED="$TARGETS_BIN/fixed_calls"
"$FIXED" >"$WORK/plain.out"
"$SIBYL" trace -o "$WORK/fast.trace" --wrap "$WORK/fast.so" -- "$FIXED" >"$WORK/traced.out"
cmp -s "$WORK/plain.out" "$WORK/traced.out" || fail "output differs under sibyl trace"
"$SIBYL" report "$WORK/fast.trace" --json >"$WORK/fast.json"
in=$(json "[f['in_bytes'] for f in j['functions'] if f['name'] == 'testlib_sum'][0]" "$WORK/fast.json")
[ "$in" -gt 0 ] || fail "testlib_sum has no automatic input size under sibyl trace"
echo "ok: testlib_sum input $in B under sibyl trace"

# By hand, without the tracker: same output, calls recorded, no sizes.
SIBYL_TRACE_DIR="$WORK/hand.trace" LD_PRELOAD="$WORK/fast.so" "$FIXED" >"$WORK/hand.out" ||
	fail "the program failed with the wrapper preloaded by hand"
cmp -s "$WORK/plain.out" "$WORK/hand.out" || fail "output differs with the wrapper preloaded by hand"
"$SIBYL" report "$WORK/hand.trace" --json >"$WORK/hand.json"
expect_eq "testlib_sum calls by hand" 3 "$(calls_of "$WORK/hand.json" testlib_sum)"
expect_eq "testlib_sum input by hand" 0 \
	"$(json "[f['in_bytes'] for f in j['functions'] if f['name'] == 'testlib_sum'][0]" "$WORK/hand.json")"
"$SIBYL" report "$WORK/hand.trace" --worksize-check --json >"$WORK/hand.check.json"
# Functions with pointer arguments have no worksize record; by-value
# arguments alone are still sized.
expect_eq "functions with worksize records by hand" "['testlib_fail', 'testlib_recurse', 'testlib_work']" \
	"$(json "sorted(e['function'] for e in j['worksize_check'])" "$WORK/hand.check.json")"
echo "regions preload checks passed"
