#!/bin/bash
# sibyl device: --list, one-line errors for bad platform/device/options,
# an existing output is never overwritten without --force, and damaged
# or foreign profiles are refused with one line.
source "$(dirname "$0")/../lib.sh"

one_line_error() {	# one_line_error WHAT PATTERN CMD...
	local what=$1 pattern=$2
	shift 2
	if "$@" >"$WORK/out" 2>"$WORK/err"; then fail "$what: succeeded"; fi
	expect_eq "$what: stderr lines" 1 "$(wc -l <"$WORK/err")"
	grep -q -- "$pattern" "$WORK/err" || fail "$what: '$(cat "$WORK/err")' lacks '$pattern'"
	[ ! -s "$WORK/out" ] || fail "$what: printed to stdout"
}

"$SIBYL" device --list >"$WORK/list.txt" || fail "--list failed"
grep -q '^platform 0: Portable Computing Language$' "$WORK/list.txt" || fail "--list: no PoCL"
grep -q '^  device 0: ' "$WORK/list.txt" || fail "--list: no device 0"
"$SIBYL" device --list --json >"$WORK/list.json" || fail "--list --json failed"
expect_eq "--list --json platform" "Portable Computing Language" \
	"$(json 'j["platforms"][0]["name"]' "$WORK/list.json")"

one_line_error "bad --platform" "have 0: Portable Computing Language" \
	"$SIBYL" device --quick --platform 7
one_line_error "bad --platform name" "no OpenCL platform matches 'nvidia'" \
	"$SIBYL" device --quick --platform nvidia
one_line_error "bad --device" "have 0: pthread" "$SIBYL" device --quick --device xyz
one_line_error "bad --max-bytes" "--max-bytes: '12X'" "$SIBYL" device --max-bytes 12X
one_line_error "tiny --max-bytes" "at least 64 bytes" "$SIBYL" device --max-bytes 10
one_line_error "bad --repeat" "--repeat: '0' is not a whole number in 1..100000" \
	"$SIBYL" device --repeat 0
# -1 was the "not given" sentinel: it measured with the default.
for r in -1 100001 9223372036854775808 2x ''; do
	one_line_error "--repeat '$r'" "^sibyl: device: --repeat: '$r' is not a whole number in 1..100000$" \
		"$SIBYL" device --quick --repeat "$r"
done
# Past 2^62 the count of bandwidth steps (x4 each) wrapped and looped
# forever; the curve holds 24 points, 64 B .. 4 PiB.
for m in 4611686018427387904 18446744073709551615 4097T; do
	one_line_error "--max-bytes $m" "at most 4 PiB" timeout 60 "$SIBYL" device --quick --max-bytes $m
done
one_line_error "operand" "unexpected argument" "$SIBYL" device foo

# Refuse to overwrite; the file stays as it was.  --force replaces it.
echo keep >"$WORK/p.json"
one_line_error "existing -o" "exists (use --force" \
	"$SIBYL" device --quick --max-bytes 256 -o "$WORK/p.json"
expect_eq "existing file kept" keep "$(cat "$WORK/p.json")"
"$SIBYL" device --quick --max-bytes 256 -o "$WORK/p.json" --force >/dev/null ||
	fail "--force failed"
expect_eq "--force wrote a profile" 1 "$(json 'j["version"]' "$WORK/p.json")"

# Damaged, foreign and future profiles.
head -c 300 "$WORK/p.json" >"$WORK/trunc.json"
one_line_error "truncated profile" "not valid JSON" "$SIBYL" device --show "$WORK/trunc.json"
sed 's/"version": 1,/"version": 99,/' "$WORK/p.json" >"$WORK/v99.json"
one_line_error "future version" "version 99 is not supported" \
	"$SIBYL" device --show "$WORK/v99.json"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); del j["latencies"]["d2h"]; json.dump(j, open(sys.argv[2], "w"))' \
	"$WORK/p.json" "$WORK/nofield.json"
one_line_error "missing field" "missing field 'latencies.d2h'" \
	"$SIBYL" device --show "$WORK/nofield.json"
echo '{"format": "sibyl-profile", "version": 1}' >"$WORK/other.json"
one_line_error "other format" "not a device profile" "$SIBYL" device --show "$WORK/other.json"
one_line_error "missing file" "No such file" "$SIBYL" device --show "$WORK/none.json"
# The measuring child failing in every way still gives one line.
printf '#!/bin/sh\nkill -SEGV $$\n' >"$WORK/crash.sh"
printf '#!/bin/sh\necho "{not json" >&3\n' >"$WORK/garbage.sh"
chmod +x "$WORK/crash.sh" "$WORK/garbage.sh"
SIBYL_DEVICE_RUNNER="$WORK/crash.sh" one_line_error "child crash" "crashed (signal 11)" \
	"$SIBYL" device --quick
SIBYL_DEVICE_RUNNER=/bin/false one_line_error "child status" "exited with status 1" \
	"$SIBYL" device --quick
SIBYL_DEVICE_RUNNER="$WORK/none" one_line_error "no child" "cannot run" \
	"$SIBYL" device --quick
SIBYL_DEVICE_RUNNER="$WORK/garbage.sh" one_line_error "child garbage" "gave a bad profile" \
	"$SIBYL" device --quick -o "$WORK/g.json"
[ ! -e "$WORK/g.json" ] || fail "a bad profile was written"
echo "ok: device errors"
