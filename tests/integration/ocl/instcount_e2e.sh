#!/bin/bash
# End to end: `sibyl kernel -i` (instrumented SPIR on the device, PoCL
# here) against `oclgrind --inst-counts` running the plain `sibyl kernel`
# with the same seed, so both count the same generated arguments. The
# listings must be equal line by line.
#
# Not in the table: memory.cl and args.cl. The plain `sibyl kernel` builds
# from source, and Oclgrind's own front end then rewrites stores into
# vector components (its removeLValueLoads pass: `v.y = x` becomes a
# scalar getelementptr + store instead of load/insertelement/store), so
# Oclgrind counts different IR. instcount_oclgrind compares those two on
# the very same bitcode.
source "$(dirname "$0")/../lib.sh"

KERNELS="$SIBYL_SOURCE/tests/kernels/control"
command -v oclgrind >/dev/null || fail "oclgrind is not installed"

listing() {	# the listing block: header through the first empty line
	awk '/^Instructions executed for kernel/ { on = 1 } on { print } on && /^$/ { exit }' "$1"
}

while read -r file kernel g l; do
	args=(kernel -f "$KERNELS/$file.cl" -k "$kernel" -g "$g" -l "$l" --seed 11)
	"$SIBYL" "${args[@]}" -i >"$WORK/sibyl.out" 2>"$WORK/sibyl.err" ||
		fail "$kernel: sibyl kernel -i failed: $(head -2 "$WORK/sibyl.err")"
	LC_ALL=C oclgrind --inst-counts --build-options -O0 "$SIBYL" "${args[@]}" \
		>"$WORK/oclgrind.out" 2>"$WORK/oclgrind.err" ||
		fail "$kernel: sibyl kernel under oclgrind failed: $(head -2 "$WORK/oclgrind.err")"
	listing "$WORK/sibyl.out" >"$WORK/sibyl.txt"
	listing "$WORK/oclgrind.out" >"$WORK/oclgrind.txt"
	[ "$(wc -l <"$WORK/sibyl.txt")" -gt 3 ] || fail "$kernel: no listing from sibyl kernel -i"
	diff -u "$WORK/oclgrind.txt" "$WORK/sibyl.txt" ||
		fail "$kernel: sibyl kernel -i differs from oclgrind --inst-counts (- oclgrind, + sibyl)"
	echo "ok: $kernel: $(($(wc -l <"$WORK/sibyl.txt") - 2)) lines equal"
done <<'TABLE'
shortcircuit  shortcircuit   256 64
ternary       ternary        256 32
loops         loops          128 16
switch        switches       256 64
barrier       reduce         256 64
early_return  early_return   200 40
helpers       helpers        128 32
helpers       helpers_other  64  16
structs       structs        64  16
locals        locals         128 64
TABLE
