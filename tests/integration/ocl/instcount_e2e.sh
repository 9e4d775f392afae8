#!/bin/bash
# End to end: `sibyl kernel -i` (instrumented SPIR on the device, PoCL
# here) against `oclgrind --inst-counts` running the plain `sibyl kernel
# --spir` with the same seed: both load the same clang-14 bitcode with
# clCreateProgramWithBinary and get the same generated arguments, so
# Oclgrind counts exactly the IR that -i instruments. The listings must
# be equal line by line, for every kernel of tests/kernels/control, and
# Oclgrind must report nothing (no invalid access).
#
# SOURCE=yes rows also compare with the plain source path (`sibyl kernel`
# without --spir, built by Oclgrind's own front end). memory.cl and
# args.cl are not among them: Oclgrind's front end rewrites their stores
# into vector components (its removeLValueLoads pass: `v.y = x` becomes a
# scalar getelementptr + store instead of load/insertelement/store), so
# from source Oclgrind counts different IR (docs/instcounts.md).
source "$(dirname "$0")/../lib.sh"

KERNELS="$SIBYL_SOURCE/tests/kernels/control"
command -v oclgrind >/dev/null || fail "oclgrind is not installed"

listing() {	# the listing block: header through the first empty line
	awk '/^Instructions executed for kernel/ { on = 1 } on { print } on && /^$/ { exit }' "$1"
}

# under_oclgrind NAME KERNEL ARGS...: Oclgrind's listing in $WORK/NAME.txt
under_oclgrind() {
	local name=$1 kernel=$2
	shift 2
	LC_ALL=C oclgrind --inst-counts "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
		fail "$kernel: sibyl kernel under oclgrind ($name) failed: $(head -2 "$WORK/$name.err")"
	listing "$WORK/$name.out" >"$WORK/$name.txt"
}

while read -r file kernel g l source extra; do
	# shellcheck disable=SC2086
	args=(kernel "$KERNELS/$file.cl" -k "$kernel" -g "$g" -l "$l" --seed 11 $extra)
	"$SIBYL" "${args[@]}" -i >"$WORK/sibyl.out" 2>"$WORK/sibyl.err" ||
		fail "$kernel: sibyl kernel -i failed: $(head -2 "$WORK/sibyl.err")"
	listing "$WORK/sibyl.out" >"$WORK/sibyl.txt"
	[ "$(wc -l <"$WORK/sibyl.txt")" -gt 3 ] || fail "$kernel: no listing from sibyl kernel -i"
	under_oclgrind spir "$kernel" "$SIBYL" "${args[@]}" --spir
	[ -s "$WORK/spir.err" ] && fail "$kernel: oclgrind reported: $(head -3 "$WORK/spir.err")"
	diff -u "$WORK/spir.txt" "$WORK/sibyl.txt" ||
		fail "$kernel: sibyl kernel -i differs from oclgrind --inst-counts sibyl kernel --spir (- oclgrind, + sibyl)"
	how="--spir"
	if [ "$source" = yes ]; then
		under_oclgrind source "$kernel" --build-options -O0 "$SIBYL" "${args[@]}"
		diff -u "$WORK/source.txt" "$WORK/sibyl.txt" ||
			fail "$kernel: sibyl kernel -i differs from oclgrind --inst-counts sibyl kernel (source; - oclgrind, + sibyl)"
		how="--spir and source"
	fi
	echo "ok: $kernel: $(($(wc -l <"$WORK/sibyl.txt") - 2)) lines equal ($how)"
done <<'TABLE'
shortcircuit  shortcircuit   256 64  yes
ternary       ternary        256 32  yes
loops         loops          128 16  yes
switch        switches       256 64  yes
barrier       reduce         256 64  yes
early_return  early_return   200 40  yes
helpers       helpers        128 32  yes
helpers       helpers_other  64  16  yes
structs       structs        64  16  yes
locals        locals         128 64  yes
memory        memory         64  16  no  --elements 192
args          args           64  8   no
legacy_atomics legacy_atomics 128 32 no
TABLE
