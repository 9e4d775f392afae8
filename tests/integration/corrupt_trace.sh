#!/usr/bin/env bash
# Damaged traces: report and export fail with one line on stderr, a
# non-zero status, and never destroy an existing output file.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>/dev/null
"$SIBYL" trace -o "$WORK/good" --wrap "$WORK/libwrap-test.so" -- "$TARGETS_BIN/lifecycle" threads 2000 >/dev/null
"$SIBYL" report "$WORK/good" >/dev/null || fail "the intact trace must report"

# expect_error NAME: report on $WORK/bad must fail with exactly one line.
expect_error() {
	local rc=0
	"$SIBYL" report "$WORK/bad" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$1: report succeeded on a damaged trace"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "$1: expected one error line"; }
	grep -q '^sibyl: ' "$WORK/err" || fail "$1: error line lacks the sibyl: prefix"
	echo "ok: $1: $(cat "$WORK/err")"
	# Exports must fail the same way and keep an existing output intact.
	echo precious >"$WORK/keep.csv"
	if "$SIBYL" export "$WORK/bad" --format csv --force -o "$WORK/keep.csv" 2>/dev/null; then
		fail "$1: export succeeded on a damaged trace"
	fi
	[ "$(cat "$WORK/keep.csv")" = precious ] || fail "$1: export clobbered its output"
}

fresh() { rm -rf "$WORK/bad"; cp -r "$WORK/good" "$WORK/bad"; }
first_events() { ls "$WORK"/bad/*.events | head -1; }

fresh; truncate -s 200 "$(first_events)"; expect_error "truncated events file"
fresh; printf 'XXXXXXXX' | dd of="$(first_events)" conv=notrunc status=none; expect_error "bad magic"
fresh; printf '\x63\x00' | dd of="$(first_events)" bs=1 seek=8 conv=notrunc status=none
printf '\x63\x00' | dd of="$(first_events)" bs=1 seek=10 conv=notrunc status=none; expect_error "future version"
fresh; echo '{"format": "sibyl-trace", "version": ' >"$WORK/bad/meta.json"; expect_error "malformed meta.json"
fresh; rm -f "$WORK"/bad/*.events "$WORK"/bad/*.proc "$WORK"/bad/meta.json "$WORK"/bad/functions.tsv; expect_error "empty directory"
rm -rf "$WORK/bad"; expect_error "missing directory"
echo "corrupt-trace checks passed"
