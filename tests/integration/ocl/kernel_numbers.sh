#!/bin/bash
# Every numeric option of `sibyl kernel` out of range is one line and
# exit status 2, before anything runs: sizes whose product overflows
# (--elements 2^62 overflowed a heap buffer in the runner), sweeps that
# would run nothing, a negative or huge --timeout, seeds past the last.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args"

refused() {	# refused WHAT PATTERN OPTION...: pointers.cl with OPTION...
	local what=$1 pattern=$2 st=0
	shift 2
	"$SIBYL" kernel "$K/pointers.cl" -k pointers "$@" > "$WORK/out" 2> "$WORK/err" || st=$?
	expect_eq "$what: exit status" 2 "$st"
	expect_eq "$what: one line" 1 "$(wc -l < "$WORK/err")"
	grep -q -- "^sibyl: kernel: $pattern" "$WORK/err" || fail "$what: $(cat "$WORK/err")"
	[ ! -s "$WORK/out" ] || fail "$what: printed $(cat "$WORK/out")"
}
G=(-g 64 -l 16)

# Buffer sizes: count * element size must fit (pointers' first is a float*).
refused "--elements 2^62" "argument 'in': 4611686018427387904 elements of 4 bytes do not fit in memory" \
	"${G[@]}" --elements 4611686018427387904
refused "-g 2^62" "argument 'in': 4611686018427387904 elements of 4 bytes" -g 4611686018427387904
# A sweep's largest size counts (2^61 x 4 bytes fits, 2^62 x 4 does not).
refused "sweep to 2^62" "argument 'in': 4611686018427387904 elements" \
	-g 2305843009213693952:4611686018427387904:2305843009213693952
refused "-g past JSON integers" "--gsize: 9223372036854775808 is larger than 9223372036854775807" \
	-g 9223372036854775808
refused "-g 2^64-1" "--gsize: 18446744073709551615 is larger" -g 1:18446744073709551615:1
# A sweep whose samples do not fit in the runner's counters ran nothing
# and exited 0.
refused "sweep of 2^32 sizes" "-g 1:4294967296:1 -n 1: more than 2147483647 samples in one run" \
	-g 1:4294967296:1
refused "sweep x samples" "-g 64:128:64 -n 2000000000: more than 2147483647 samples" \
	-g 64:128:64 -n 2000000000
refused "sweep of 2^63 sizes" "-g 1:9223372036854775807:1 -n 2: more than" -g 1:9223372036854775807:1 -n 2

refused "--samples 0" "--samples: 0 is not in 1..2147483647" "${G[@]}" -n 0
refused "--samples -1" "--samples: -1 is not in" "${G[@]}" -n -1
refused "--samples 2^31" "--samples: 2147483648 is not in" "${G[@]}" -n 2147483648
refused "--lsize -1" "--lsize: expected N or N,N or N,N,N" "${G[@]}" -l -1
refused "--elements -1" "--elements: -1 is not in 0.." "${G[@]}" --elements -1
refused "--warmup -1" "--warmup: -1 is not in 0.." "${G[@]}" --warmup -1
refused "--seed -1" "--seed: -1 is not in 0.." "${G[@]}" --seed -1
refused "last seed past the end" "--seed: 9223372036854775807 is not in 0..9223372036854775806" \
	"${G[@]}" --seed 9223372036854775807 -n 2
for t in -1 -0.5 86401 1e300 inf nan; do
	refused "--timeout $t" "--timeout: [-a-z0-9.+]* is not a number of seconds in 0..86400 (0: no limit)$" \
		"${G[@]}" --timeout "$t"
done
refused "not a number" "--samples: not an integer: '1x'" "${G[@]}" -n 1x

# The limits themselves still run.
"$SIBYL" kernel "$K/pointers.cl" -k pointers "${G[@]}" --timeout 86400 --seed 9223372036854775806 \
	--json > "$WORK/edge.json" || fail "the largest timeout and seed"
expect_eq "largest seed" 9223372036854775806 "$(json "j['samples'][0]['seed']" "$WORK/edge.json")"
"$SIBYL" kernel "$K/pointers.cl" -k pointers "${G[@]}" --timeout 0 --warmup 0 > /dev/null ||
	fail "--timeout 0"
echo "ok: kernel numbers"
