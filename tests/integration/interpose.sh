#!/usr/bin/env bash
# sibyl trace's default interposition (the audit module) changes only the
# bindings to the wrapped library: a program that does not link it sees
# what it sees untraced (weak reference, dlsym(RTLD_DEFAULT), ctypes'
# CDLL(None)), calls made through dlopen + dlsym are recorded, and so are
# calls from -z now, LD_BIND_NOW and -fno-plt binaries and through
# function pointers stored in data.  Preload mode
# shows the difference the audit mode removes.
. "$(dirname "$0")/lib.sh"

LIB="$TARGETS_LIB/libsibyltest.so"
"$SIBYL" wrap "$LIB" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
BIND="$TARGETS_BIN/binding"

# traced NAME MODE CMD...: trace CMD, check its output and status are the
# untraced run's, report into NAME.json.
traced() {
	local name=$1 mode=$2 plain_rc=0 traced_rc=0
	shift 2
	"$@" >"$WORK/$name.plain" 2>&1 || plain_rc=$?
	"$SIBYL" trace --interpose "$mode" -o "$WORK/$name.trace" --wrap "$WORK/libwrap-test.so" -- \
		"$@" >"$WORK/$name.out" 2>&1 || traced_rc=$?
	expect_eq "$name: exit status" "$plain_rc" "$traced_rc"
	cmp -s "$WORK/$name.plain" "$WORK/$name.out" ||
		fail "$name: output differs: '$(cat "$WORK/$name.plain")' untraced, '$(cat "$WORK/$name.out")' traced"
	"$SIBYL" report --json "$WORK/$name.trace" >"$WORK/$name.json" || fail "$name: report"
}

# A weak reference to a function of a library the program does not link.
traced weak audit "$BIND" weak
expect_eq "weak reference untraced" "weak testlib_work: NULL" "$(cat "$WORK/weak.out")"
"$SIBYL" trace --interpose preload -o "$WORK/weak-pre.trace" --wrap "$WORK/libwrap-test.so" -- \
	"$BIND" weak >"$WORK/weak-pre.out"
expect_eq "preload mode: the wrapper defines it" "weak testlib_work: defined, testlib_work(1) = 2" \
	"$(cat "$WORK/weak-pre.out")"

traced default audit "$BIND" default
expect_eq "dlsym(RTLD_DEFAULT)" "dlsym(RTLD_DEFAULT, testlib_work): not found" "$(cat "$WORK/default.out")"

# dlopen(RTLD_LOCAL) + dlsym(handle): recorded, and still not global.
traced dlopen audit "$BIND" dlopen "$LIB" 1000
expect_eq "dlsym(handle) calls recorded" 1000 "$(calls_of "$WORK/dlopen.json" testlib_work)"
grep -q "testlib_work): not found" "$WORK/dlopen.out" || fail "dlopen: the library became global"

# Python's ctypes: CDLL(path) is dlopen + dlsym; CDLL(None) the global scope.
PY='import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print(sum(lib.testlib_work(i) for i in range(500)))
print("global:", hasattr(ctypes.CDLL(None), "testlib_work"))'
traced ctypes audit /usr/bin/python3 -c "$PY" "$LIB"
expect_eq "ctypes calls recorded" 500 "$(calls_of "$WORK/ctypes.json" testlib_work)"
grep -q "global: False" "$WORK/ctypes.out" || fail "ctypes: CDLL(None) finds testlib_work"

# Bound at start-up (-z now, LD_BIND_NOW) and through the GOT (-fno-plt):
# fixed_calls makes 10 + 3 + 4 + 1 + 1 calls (testlib_recurse(3) is 4 levels).
readelf -d "$TARGETS_BIN/fixed_calls_now" | grep -q 'BIND_NOW\|NOW' || fail "fixed_calls_now is not -z now"
readelf -r "$TARGETS_BIN/fixed_calls_noplt" | grep -q 'GLOB_DAT.*testlib_work' ||
	fail "fixed_calls_noplt does not call through a GLOB_DAT slot"
readelf -r "$TARGETS_BIN/fixed_calls_noplt" | grep -q 'JUMP_SLO.*testlib' &&
	fail "fixed_calls_noplt calls through the PLT"
calls() { json "sum(f['calls'] for f in j['functions'])" "$1"; }
for prog in fixed_calls_now fixed_calls_noplt; do
	traced "$prog" audit "$TARGETS_BIN/$prog"
	expect_eq "$prog: calls recorded" 19 "$(calls "$WORK/$prog.json")"
done
# Through a function pointer the dynamic linker stored in data (R_X86_64_64).
readelf -r "$TARGETS_BIN/table_calls" | grep -q 'R_X86_64_64 .*testlib_work' ||
	fail "table_calls has no R_X86_64_64 relocation for testlib_work"
traced table audit "$TARGETS_BIN/table_calls" 100
expect_eq "table: calls recorded" 100 "$(calls_of "$WORK/table.json" testlib_work)"
LD_BIND_NOW=1 traced bindnow audit "$TARGETS_BIN/fixed_calls"
expect_eq "LD_BIND_NOW: calls recorded" 19 "$(calls "$WORK/bindnow.json")"

# The audit module by hand, with wrappers it cannot use (not ELF, missing,
# not a wrapper, truncated, not a regular file): it interposes nothing and
# the program runs as ever.
"$TARGETS_BIN/fixed_calls" >"$WORK/bad-wrappers.plain"
head -c 3000 "$WORK/libwrap-test.so" >"$WORK/truncated.so"
LD_AUDIT="$SIBYL_BUILD/lib/libsibyl-audit.so" \
	SIBYL_WRAPPERS="/etc/passwd:$WORK/missing.so:$LIB:$WORK/truncated.so:/dev/null" \
	"$TARGETS_BIN/fixed_calls" >"$WORK/bad-wrappers.out" || fail "bad SIBYL_WRAPPERS: the program failed"
cmp -s "$WORK/bad-wrappers.plain" "$WORK/bad-wrappers.out" || fail "bad SIBYL_WRAPPERS: output differs"
echo "ok: unusable SIBYL_WRAPPERS change nothing"

# A start-up probe that ignores LD_AUDIT (statically linked) measures
# nothing: the trace says why instead of a cost (predict quotes it).
printf 'int main(void) { return 0; }\n' >"$WORK/static_true.c"
if cc -static -o "$WORK/static_true" "$WORK/static_true.c" 2>/dev/null; then
	SIBYL_STARTUP_PROBE="$WORK/static_true" "$SIBYL" trace -o "$WORK/static.trace" -- true ||
		fail "trace with a static probe"
	/usr/bin/python3 - "$WORK/static.trace/meta.json" "$WORK/static_true" <<'PY' ||
import json, sys
i = json.load(open(sys.argv[1]))['interposition']
assert i['startup_ns'] is None, i
assert i['startup_error'] == sys.argv[2] + ' ran without the runtime (statically linked?)', i
PY
		fail "a static start-up probe is not reported"
	echo "ok: a static start-up probe says why it measured nothing"
fi

rc=0
"$SIBYL" trace --interpose ptrace -o "$WORK/bad.trace" -- true 2>"$WORK/bad.err" || rc=$?
expect_eq "--interpose ptrace: exit status" 2 "$rc"
expect_eq "--interpose ptrace: message" "sibyl: trace: --interpose must be 'audit' or 'preload', not 'ptrace'" \
	"$(cat "$WORK/bad.err")"
echo "all interposition checks passed"
