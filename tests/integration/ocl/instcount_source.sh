#!/bin/bash
# `sibyl kernel -i --source-counters` (the OpenCL C source marked through
# libclang, built by the device from source) against `sibyl kernel -i`
# (the instrumented SPIR), both on PoCL with the same seed: the listings
# must be equal line by line, for every kernel under tests/kernels (the
# kmodel suite included) that the SPIR path runs. The kernels it cannot
# run by design are listed below with the reason; a kernel in neither
# list fails the test, so a new kernel file is compared as it arrives.
source "$(dirname "$0")/../lib.sh"

K="$SIBYL_SOURCE/tests/kernels"

options() {	# the shape and macros a file needs
	case $1 in
	control/memory.cl) echo "-g 64 -l 16 --elements 192" ;;	# vload3 reads 3 per item
	args/include.cl) echo "-g 64 -l 16 -D SCALE=3" ;;
	ndrange/grid.cl) echo "-g 16,8 -l 8,4" ;;	# `fixed` requires 8,4
	*) echo "-g 64 -l 16" ;;
	esac
}

expected_skip() {	# FILE:KERNEL that no path runs, by design
	case $1 in
	args/crash.cl:*) echo "crashes or hangs on purpose" ;;
	args/unsupported.cl:*) echo "an image array argument" ;;
	check/barriers.cl:half_barrier | check/barriers.cl:loop_barrier | \
	check/barriers.cl:data_after_half)
		echo "a barrier in divergent code: PoCL crashes (kernel --check finds it)" ;;
	failures/device_only.cl:*) echo "only the device compiler refuses it" ;;
	failures/undefined.cl:*)
		echo "calls, or sits beside, a function never defined: the source build fails" ;;
	source/macros.cl:pasted | source/macros.cl:late_paste)
		echo "refused: a macro that branches and pastes (checked below)" ;;
	*) return 1 ;;
	esac
}

compared=0
for path in "$K"/*/*.cl; do
	rel=${path#"$K"/}
	# shellcheck disable=SC2046
	if ! "$SIBYL" kernel "$path" --json $(options "$rel" | grep -o -- '-D [^ ]*') \
		>"$WORK/list.json" 2>"$WORK/list.err"; then
		case $rel in
		args/boolarg.cl | failures/errors.cl) echo "skip: $rel does not compile (on purpose)" ;;
		*) fail "$rel: cannot list its kernels: $(head -2 "$WORK/list.err")" ;;
		esac
		continue
	fi
	for k in $(json '" ".join(x["name"] for x in j["kernels"])' "$WORK/list.json"); do
		if why=$(expected_skip "$rel:$k"); then
			echo "skip: $rel $k: $why"
			continue
		fi
		read -ra shape <<<"$(options "$rel")"
		args=(kernel "$path" -k "$k" --seed 11 "${shape[@]}")
		"$SIBYL" "${args[@]}" -i >"$WORK/ir.txt" 2>"$WORK/ir.err" ||
			fail "$rel $k: sibyl kernel -i failed: $(head -2 "$WORK/ir.err")"
		"$SIBYL" "${args[@]}" -i --source-counters >"$WORK/src.txt" 2>"$WORK/src.err" ||
			fail "$rel $k: -i --source-counters failed: $(head -2 "$WORK/src.err")"
		grep -q '^Instructions executed for kernel' "$WORK/src.txt" ||
			fail "$rel $k: no listing from --source-counters"
		diff -u "$WORK/ir.txt" "$WORK/src.txt" ||
			fail "$rel $k: --source-counters differs from the SPIR path (- SPIR, + source)"
		compared=$((compared + 1))
		echo "ok: $rel $k: $(($(wc -l <"$WORK/src.txt") - 2)) lines equal"
	done
done
[ "$compared" -ge 70 ] || fail "only $compared kernels compared"
echo "ok: $compared kernels equal both ways"

# One shared row with 64-bit atomics once per-item rows pass 32 MiB.
args=(kernel "$K/control/shortcircuit.cl" -k shortcircuit -g 1048576 -l 64 --seed 3)
"$SIBYL" "${args[@]}" -i >"$WORK/ir.txt"
"$SIBYL" "${args[@]}" -i --source-counters -v >"$WORK/src.txt" 2>"$WORK/src.err"
grep -q 'counters per work-item, 64-bit atomics' "$WORK/src.err" ||
	fail "-v does not say the atomics are used: $(cat "$WORK/src.err")"
diff -u "$WORK/ir.txt" "$WORK/src.txt" || fail "atomics: --source-counters differs"
echo "ok: 1048576 work-items through atomics, equal"

# Refusals: one line each, nothing run.
rc=0
"$SIBYL" kernel "$K/source/macros.cl" -k pasted -g 64 -i --source-counters \
	>"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "exit status of a refused kernel" 1 "$rc"
expect_eq "its message" "sibyl: kernel: $K/source/macros.cl:40: a macro that branches and pastes tokens (# or ##) or is variadic: not supported by --source-counters" "$(cat "$WORK/err")"
# After a branching macro spread over three lines, expanded onto one:
# the lines below keep their numbers.
rc=0
"$SIBYL" kernel "$K/source/macros.cl" -k late_paste -g 64 -i --source-counters \
	>"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "exit status of the late refusal" 1 "$rc"
expect_eq "its line" "sibyl: kernel: $K/source/macros.cl:60: a macro that branches and pastes tokens (# or ##) or is variadic: not supported by --source-counters" "$(cat "$WORK/err")"
rc=0
"$SIBYL" kernel "$K/control/loops.cl" -k loops -g 64 -i --source-counters -O2 2>"$WORK/err" || rc=$?
expect_eq "exit status of -O2" 2 "$rc"
grep -q 'counts the -O0 IR only' "$WORK/err" || fail "-O2: $(cat "$WORK/err")"
rc=0
"$SIBYL" kernel "$K/control/loops.cl" -k loops -g 64 --source-counters 2>"$WORK/err" || rc=$?
expect_eq "exit status without -i" 2 "$rc"

# A device without cl_khr_spir (NVIDIA's, AMD's): -i alone counts through
# the source and -v says so. The runner here answers the device probe as
# such a driver would and runs everything else as it is.
no_spir_runner "$WORK/no-spir-runner"
args=(kernel "$K/control/helpers.cl" -k helpers -g 128 -l 32 --seed 11 -i)
"$SIBYL" "${args[@]}" >"$WORK/ir.txt"
SIBYL_KERNEL_RUNNER="$WORK/no-spir-runner" "$SIBYL" "${args[@]}" -v >"$WORK/auto.txt" 2>"$WORK/auto.err" ||
	fail "-i on a device without SPIR: $(cat "$WORK/auto.err")"
grep -q 'does not take SPIR (no cl_khr_spir): -i counts through the marked source' "$WORK/auto.err" ||
	fail "-v does not say -i went through the source: $(cat "$WORK/auto.err")"
diff -u "$WORK/ir.txt" "$WORK/auto.txt" || fail "-i without SPIR differs from the SPIR path"
echo "ok: -i on a device without SPIR counts through the source, equal"
