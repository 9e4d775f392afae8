#!/usr/bin/env bash
# Every reader of a trace, profile, device profile or definition file
# reads regular files only, within a size limit: a FIFO, /dev/zero or a
# huge sparse file gets one line "sibyl: FILE: <why>" and a non-zero
# status, at once (a reader waiting on a FIFO or reading /dev/zero until
# memory runs out is stopped by `timeout` and fails the test).
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>/dev/null
"$SIBYL" trace -o "$WORK/good" --wrap "$WORK/libwrap-test.so" -- "$TARGETS_BIN/lifecycle" threads 20 >/dev/null
echo '{"format": "sibyl-profile", "version": 1, "min_version": 1, "range": [1, 2], "points": [[1, 1], [2, 2]]}' >"$WORK/ok.json"
mkfifo "$WORK/fifo"
ln -s /dev/zero "$WORK/zero"
truncate -s 300M "$WORK/huge"	# sparse: no disk used

# expect_refused WHAT PATTERN -- COMMAND...: within 30 s, non-zero (not
# the timeout's 124), exactly one stderr line "sibyl: ..." with PATTERN.
expect_refused() {
	local what=$1 pattern=$2 status=0
	shift 3
	timeout 30 "$@" </dev/null >"$WORK/out" 2>"$WORK/err" || status=$?
	[ "$status" -ne 124 ] || fail "$what: still reading after 30 s"
	[ "$status" -ne 0 ] || fail "$what: exit status 0"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "$what: not one error line"; }
	grep -q "^sibyl: .*$pattern" "$WORK/err" || fail "$what: '$(cat "$WORK/err")' lacks '$pattern'"
	echo "ok: $what: $(cat "$WORK/err")"
}

# A trace whose file NAME is replaced by SPECIAL (a FIFO, /dev/zero, huge).
bad_trace() {
	local name=$1 special=$2
	rm -rf "$WORK/bad"
	cp -r "$WORK/good" "$WORK/bad"
	[ -e "$WORK/bad/$name" ] || name=$(cd "$WORK/bad" && ls $name | head -1)
	rm -f "$WORK/bad/$name"
	case $special in
	fifo) mkfifo "$WORK/bad/$name" ;;
	zero) ln -s /dev/zero "$WORK/bad/$name" ;;
	huge) truncate -s 2G "$WORK/bad/$name" ;;
	esac
	echo "$name"
}

for file in meta.json functions.tsv '*.proc' '*.events'; do
	for special in fifo zero; do
		name=$(bad_trace "$file" $special)
		expect_refused "report, $name a $special" "$name: not a regular file" -- "$SIBYL" report "$WORK/bad"
		expect_refused "export, $name a $special" "$name: not a regular file" -- \
			"$SIBYL" export "$WORK/bad" --format csv -o "$WORK/out.csv"
	done
done
for file in meta.json functions.tsv '*.proc'; do
	name=$(bad_trace "$file" huge)
	expect_refused "report, $name of 2 GiB" "$name: too large" -- "$SIBYL" report "$WORK/bad"
done

for special in fifo zero huge; do
	why="not a regular file"
	[ $special != huge ] || why="too large"
	expect_refused "device --show $special" "$special: $why" -- "$SIBYL" device --show "$WORK/$special"
	expect_refused "plan show $special" "$special: $why" -- "$SIBYL" plan show "$WORK/$special" -o "$WORK/p.png"
	expect_refused "plan envelope $special" "$special: $why" -- \
		"$SIBYL" plan envelope "$WORK/ok.json" "$WORK/$special" -o "$WORK/e.json"
	expect_refused "plan --profile $special --evaluate" "$special: $why" -- \
		"$SIBYL" plan --adapter insertion-sort --profile "$WORK/$special" --evaluate 3
	expect_refused "predict --model F=$special" "$special: $why" -- \
		"$SIBYL" predict "$WORK/good" --model "testlib_work=$WORK/$special"
	expect_refused "predict --transfer $special" "$special: $why" -- \
		"$SIBYL" predict "$WORK/good" --model "testlib_work=$WORK/ok.json" --transfer "$WORK/$special"
	expect_refused "wrap --defs $special" "$special: $why" -- \
		"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
		--defs "$WORK/$special" -o "$WORK/w.so"
done
expect_refused "wrap of a FIFO library" "fifo: not a regular file" -- \
	"$SIBYL" wrap "$WORK/fifo" -o "$WORK/w2.so"
expect_refused "wrap --header FIFO" "fifo: not a regular file" -- \
	"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$WORK/fifo" -o "$WORK/w2.so"
[ ! -e "$WORK/p.png" ] && [ ! -e "$WORK/e.json" ] && [ ! -e "$WORK/w.so" ] || fail "an output was written"
echo "special-input checks passed"
