#!/usr/bin/env bash
# The adapters as `sibyl plan` sees them: every built-in listed with its
# kind, the example user adapter loaded from its .so (which exports only
# sibyl_adapters), and a malformed adapter spec refused in one line.
. "$SIBYL_SOURCE/tests/integration/lib.sh"

"$SIBYL" plan --list-adapters --json > "$WORK/builtin.json"
expect_eq "built-in adapters" 14 "$(json 'len(j)' "$WORK/builtin.json")"
for name in heap-sort insertion-sort lcs quick-sort conv2d circ-conv floyd-warshall \
	    inner-product matmul matmul-paper mean-filter optical-flow prewitt inner-product-ocl; do
	[ "$(json "sum(a['name'] == '$name' for a in j)" "$WORK/builtin.json")" = 1 ] ||
		fail "built-in adapter $name not listed once"
done
expect_eq "threaded adapters" 9 "$(json "sum(a['kind'] == 'threads' for a in j)" "$WORK/builtin.json")"
expect_eq "OpenCL adapter kind" opencl \
	"$(json "[a['kind'] for a in j if a['name'] == 'inner-product-ocl'][0]" "$WORK/builtin.json")"
expect_eq "matmul parameters" m,n,p \
	"$(json "[a['params'] for a in j if a['name'] == 'matmul'][0]" "$WORK/builtin.json")"

so="$SIBYL_BUILD/lib/libexample-adapter.so"
[ -f "$so" ] || fail "no $so"
expect_eq "exported symbols" sibyl_adapters \
	"$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | tr '\n' ' ' | sed 's/ $//')"
"$SIBYL" plan --list-adapters --adapter-so "$so" --json > "$WORK/example.json"
expect_eq "example adapters" "naive-search memchr-search" \
	"$(json "' '.join(a['name'] for a in j)" "$WORK/example.json")"

if "$SIBYL" plan --adapter-so "$so:no-such-adapter" -o "$WORK/x.json" 2> "$WORK/err"; then
	fail "an unknown adapter name was accepted"
fi
expect_eq "one error line" 1 "$(wc -l < "$WORK/err")"
