#!/usr/bin/env bash
# Every fenced block marked "```sh run" in docs/*.md is a runnable example:
# run each in a fresh directory (with examples/ and tests/ of the source
# tree linked in, and the build's bin/ on PATH) and fail on the first
# block that exits non-zero.  Keeps the documentation honest.
. "$(dirname "$0")/lib.sh"

export PATH="$SIBYL_BUILD/bin:$PATH"
blocks=0
for doc in "$SIBYL_SOURCE"/docs/*.md; do
	# Split the page into one file per runnable block.
	rm -f "$WORK"/block.*
	awk -v out="$WORK/block" '
		/^```sh run[ \t]*$/ { n++; inside = 1; next }
		/^```/ && inside    { inside = 0; next }
		inside              { print > (out "." n) }
	' "$doc"
	for block in "$WORK"/block.*; do
		[ -e "$block" ] || continue
		blocks=$((blocks + 1))
		dir=$(mktemp -d "$WORK/run.XXXXXX")
		ln -s "$SIBYL_SOURCE/examples" "$dir/examples"
		ln -s "$SIBYL_SOURCE/tests" "$dir/tests"
		if ! (cd "$dir" && bash -euo pipefail "$block") >"$dir/out" 2>&1; then
			cat "$dir/out"
			echo "--- the block:"
			cat "$block"
			fail "$(basename "$doc"): example ${block##*.} failed"
		fi
		echo "ok: $(basename "$doc") example ${block##*.}"
	done
done
[ "$blocks" -gt 0 ] || fail "no runnable examples found in docs/"
echo "ok: $blocks documentation examples ran"
