#!/usr/bin/env bash
# Writes tests/fuzz/seeds-parsers/ from the project's own files: the first
# byte of a seed picks the parser of fuzz_parsers.c (0 performance
# profile, 1 device profile, 2 trace meta.json, 3 definition file), the
# rest is the file.  Run from the source tree with a built sibyl:
#   tests/fuzz/make_parser_seeds.sh build/bin/sibyl
set -euo pipefail
SIBYL=$(realpath "$1")
cd "$(dirname "$0")/../.."
OUT=tests/fuzz/seeds-parsers
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"

seed() {	# seed SELECTOR NAME FILE
	{ printf "\\x$1"; cat "$3"; } >"$OUT/$2"
}

# Bench profiles, their samples cut to 20 to keep the seeds small.
for name in matmul insertion-sort; do
	/usr/bin/python3 - "bench/plan/results/2026-11-25/pass-1/$name.profile.json" "$WORK/$name.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['samples'] = j['samples'][:20]
json.dump(j, open(sys.argv[2], 'w'), indent=1)
PY
	seed 00 "profile-$name" "$WORK/$name.json"
done
# An envelope (pieces) of two profiles over one range.
/usr/bin/python3 - "$WORK/insertion-sort.json" "$WORK/slow.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['name'] = 'slow'
j['points'] = [[x, y * 2 - 1e-3] for x, y in j['points']]
j.pop('segments', None)
json.dump(j, open(sys.argv[2], 'w'))
PY
"$SIBYL" plan envelope "$WORK/insertion-sort.json" "$WORK/slow.json" -o "$WORK/env.json" >/dev/null
seed 00 profile-envelope "$WORK/env.json"

"$SIBYL" device --quick --repeat 2 --max-bytes 4K -o "$WORK/device.json" >/dev/null
seed 01 device-quick "$WORK/device.json"

"$SIBYL" trace -o "$WORK/trace" -- /bin/true
seed 02 meta-true "$WORK/trace/meta.json"

seed 03 defs-examples-blas examples/blas.defs
seed 03 defs-unit-blas tests/unit/wrapgen/blas.defs
ls -l "$OUT"
