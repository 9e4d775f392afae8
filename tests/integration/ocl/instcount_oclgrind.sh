#!/bin/bash
# Dynamic instruction counts measured on the device (instrumented SPIR on
# the first OpenCL platform, PoCL here) must equal Oclgrind's
# `--inst-counts` for the same bitcode and the same arguments, line by
# line, for every control-flow shape in tests/kernels/control.
# The test host (instcount-host) loads the very same clang-14 -O0 bitcode
# in both runs with clCreateProgramWithBinary; under `oclgrind` the host's
# OpenCL calls go to Oclgrind, which interprets that bitcode unchanged.
source "$(dirname "$0")/../lib.sh"

HOST="$SIBYL_BUILD/bin/instcount-host"
KERNELS="$SIBYL_SOURCE/tests/kernels/control"
CLANG="${CLANG14:-clang-14}"
command -v oclgrind >/dev/null || fail "oclgrind is not installed"

compile() {	# compile NAME: .cl -> .bc with the recipe PoCL and Oclgrind both take
	"$CLANG" -target spir64 -x cl -cl-std=CL1.2 -Xclang -finclude-default-header \
		-emit-llvm -c -O0 -Xclang -disable-O0-optnone "$KERNELS/$1.cl" -o "$WORK/$1.bc" ||
		fail "clang-14 cannot compile $1.cl"
}

# FILE KERNEL GSIZE LSIZE ARGS...
while read -r file kernel g l args; do
	[ -z "$file" ] || [ "${file:0:1}" = "#" ] && continue
	[ -f "$WORK/$file.bc" ] || compile "$file"
	# shellcheck disable=SC2086
	"$HOST" --count "$WORK/$file.bc" "$kernel" "$g" "$l" $args >"$WORK/sibyl.txt" ||
		fail "$kernel: instrumented run failed"
	# shellcheck disable=SC2086
	LC_ALL=C oclgrind --inst-counts "$HOST" --plain "$WORK/$file.bc" "$kernel" "$g" "$l" $args \
		>"$WORK/oclgrind.txt" 2>"$WORK/oclgrind.err" || fail "$kernel: oclgrind failed: $(head -3 "$WORK/oclgrind.err")"
	[ -s "$WORK/oclgrind.err" ] && fail "$kernel: oclgrind reported: $(head -3 "$WORK/oclgrind.err")"
	grep -q "^Instructions executed for kernel '$kernel':" "$WORK/sibyl.txt" || fail "$kernel: no listing"
	diff -u "$WORK/oclgrind.txt" "$WORK/sibyl.txt" || fail "$kernel: counts differ from Oclgrind (- oclgrind, + sibyl)"
	# the same with per-work-item rows (devices without 64-bit atomics)
	# shellcheck disable=SC2086
	INSTCOUNT_ROWS=1 "$HOST" --count "$WORK/$file.bc" "$kernel" "$g" "$l" $args >"$WORK/rows.txt" ||
		fail "$kernel: instrumented run with per-item rows failed"
	diff -u "$WORK/oclgrind.txt" "$WORK/rows.txt" || fail "$kernel: per-item rows differ from Oclgrind"
	echo "ok: $kernel ($file.cl, g=$g l=$l): $(($(wc -l <"$WORK/sibyl.txt") - 2)) lines equal (atomics and per-item rows)"
done <<'TABLE'
shortcircuit  shortcircuit   256 64  g:int:256 g:int:256 s:int:200
ternary       ternary        256 32  g:float:256 g:float:256 s:int:256
loops         loops          128 16  g:int:128 g:int:128 s:int:5
switch        switches       256 64  g:int:256 g:int:256
barrier       reduce         256 64  g:float:256 g:float:4 l:float:64
barrier       reduce         96  32  g:float:96 g:float:3 l:float:32
early_return  early_return   256 64  g:int:256 g:int:256 s:int:200
helpers       helpers        128 32  g:int:128 c:int:8 g:int:128 l:int:32
helpers       helpers_other  64  16  g:int:64 c:int:8
locals        locals         128 64  g:int:128
memory        memory         64  16  g:float4:64 g:float:256 g:uchar:64 g:long:64 g:double:64 g:int:1 g:uchar:1280 g:float:64
args          args           64  8   s:char:-3 s:uchar:200 s:short:-300 s:int:7 s:uint:9 s:long:-5 s:ulong:11 s:float:2 s:double:3 g:int4:64 g:float4:64
TABLE
