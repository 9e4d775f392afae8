#!/bin/bash
# The kmodel training suite: at least 30 kernels of every required shape,
# each one a kernel its file defines (compiled by clang-14 through `sibyl
# kernel`), with sweepable global sizes; and a few of them really run at
# their largest size (the rest run in kmodel_dataset's sweeps).
. "$(dirname "$0")/../lib.sh"
SUITE="$SIBYL_SOURCE/tests/kernels/suite"
args=()
for f in "$SUITE"/*.cl; do
	b=$(basename "$f")
	"$SIBYL" kernel "$f" --json > "$WORK/$b.json" || fail "$b does not compile"
	args+=("$b=$WORK/$b.json")
done
/usr/bin/python3 "$(dirname "$0")/suite_check.py" "$SUITE/suite.json" "${args[@]}"
# One quadratic kernel and one with local memory, at their largest size.
"$SIBYL" kernel "$SUITE/nbody.cl" -k nbody -g 4096 --timeout 60 > /dev/null ||
	fail "nbody at its largest size"
"$SIBYL" kernel "$SUITE/scan.cl" -k scan_blelloch -g 131072 -l 128 -i > /dev/null ||
	fail "scan_blelloch counted at its largest size"
echo "ok: suite"
