#!/bin/bash
# sibyl device with Oclgrind as the OpenCL platform (`oclgrind sibyl ...`):
# the platform/device names come from Oclgrind and the profile is valid.
source "$(dirname "$0")/../lib.sh"
command -v oclgrind >/dev/null || fail "oclgrind is not installed (scripts/install-deps)"

oclgrind "$SIBYL" device --list >"$WORK/list.txt" || fail "oclgrind --list failed"
grep -q '^platform 0: Oclgrind$' "$WORK/list.txt" || fail "no Oclgrind platform: $(cat "$WORK/list.txt")"
oclgrind "$SIBYL" device --quick --max-bytes 16K -o "$WORK/p.json" >/dev/null ||
	fail "oclgrind sibyl device failed"
expect_eq "platform" Oclgrind "$(json 'j["provenance"]["platform"]' "$WORK/p.json")"
expect_eq "sizes" "[64, 256, 1024, 4096, 16384]" \
	"$(json '[q["bytes"] for q in j["bandwidth"]["h2d"]]' "$WORK/p.json")"
expect_eq "mapped sizes" "[64, 256, 1024, 4096, 16384]" \
	"$(json '[q["bytes"] for q in j["bandwidth"]["d2h_map"]]' "$WORK/p.json")"
expect_eq "launch measured" True "$(json 'j["latencies"]["kernel_launch"]["host"]["median"] > 0' "$WORK/p.json")"
echo "ok: device under oclgrind"
