#!/bin/bash
# Listing without -k, and one-line refusals: images, bool parameters,
# missing files, compile errors, unknown kernels.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args"

"$SIBYL" kernel "$K/two.cl" < /dev/null > "$WORK/list.txt"
grep -q '^first$' "$WORK/list.txt" || fail "kernel 'first' not listed"
grep -q 'arg 1: t (int\*, local)' "$WORK/list.txt" || fail "local argument not listed"
# A script (stdin not a terminal) gets the listing, never a prompt.
"$SIBYL" kernel "$K/two.cl" -g 4 < /dev/null > "$WORK/list2.txt"
cmp -s "$WORK/list.txt" "$WORK/list2.txt" || fail "listing with -g differs"
"$SIBYL" kernel "$K/two.cl" --json > "$WORK/list.json"
expect_eq "kernels" "['first', 'second']" "$(json "[k['name'] for k in j['kernels']]" "$WORK/list.json")"
expect_eq "second's arguments" "['buffer', 'local', 'value']" \
	"$(json "[a['kind'] for a in j['kernels'][1]['args']]" "$WORK/list.json")"

one_line_error() {	# one_line_error WHAT PATTERN CMD...
	local what=$1 pattern=$2
	shift 2
	if "$@" > "$WORK/out" 2> "$WORK/err"; then fail "$what: exit status 0"; fi
	[ "$(wc -l < "$WORK/err")" = 1 ] || fail "$what: not one line: $(cat "$WORK/err")"
	grep -q "$pattern" "$WORK/err" || fail "$what: unexpected message: $(cat "$WORK/err")"
	echo "ok: $what: $(cat "$WORK/err")"
}
one_line_error "image array argument" "unsupported" "$SIBYL" kernel "$K/unsupported.cl" -k layers -g 4
# A compile error: clang's messages in full, then sibyl's one line.
compile_error() {	# compile_error WHAT PATTERN CMD...
	local what=$1 pattern=$2 rc=0
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "$what: exit status" 3 "$rc"
	tail -n 1 "$WORK/err" | grep -q "^sibyl: kernel: compiling .*$pattern" ||
		fail "$what: unexpected last line: $(cat "$WORK/err")"
	grep -q "^[^ ]*: error: .*$pattern" "$WORK/err" || fail "$what: clang's message missing"
}
compile_error "bool parameter" "cannot be used as the type of a kernel parameter" \
	"$SIBYL" kernel "$K/boolarg.cl" -k flag -g 4
one_line_error "missing file" "No such file" "$SIBYL" kernel "$WORK/none.cl" -k x -g 4
printf '__kernel void bad(__global int *a) { a[0] = b; }\n' > "$WORK/bad.cl"
compile_error "compile error" "undeclared identifier 'b'" "$SIBYL" kernel "$WORK/bad.cl" -k bad -g 4
one_line_error "unknown kernel" "no kernel 'third'" "$SIBYL" kernel "$K/two.cl" -k third -g 4
one_line_error "bad gsize" "gsize" "$SIBYL" kernel "$K/two.cl" -k first -g 10:2
one_line_error "local size not dividing" "multiple of the local size 64" \
	"$SIBYL" kernel "$K/two.cl" -k first -g 100 -l 64
one_line_error "sweep step not a multiple" "multiple of the local size 64" \
	"$SIBYL" kernel "$K/two.cl" -k first -g 64:256:32 -l 64
one_line_error "too much __local memory" "the __local arguments need 8000000 bytes" \
	"$SIBYL" kernel "$K/pointers.cl" -k pointers -g 64 -l 64 --elements 2000000

# On a terminal (script(1) gives one) with -g, sibyl asks which kernel.
if command -v script > /dev/null; then
	printf '2\n' | script -qec "'$SIBYL' kernel '$K/two.cl' -g 8" /dev/null > "$WORK/tty.txt"
	grep -q "kernel to run \[1-2\]" "$WORK/tty.txt" || fail "no prompt on a terminal"
	grep -q "kernel 'second' ran 1 sample" "$WORK/tty.txt" || fail "the chosen kernel did not run"
	echo "ok: prompt on a terminal"
fi
