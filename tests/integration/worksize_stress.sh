#!/usr/bin/env bash
# The region tracker under load: ws_stress's four threads hand blocks to
# each other while a 200 us timer interrupts them anywhere, hooks
# included.  Every ws_scan's input must be its whole block, every
# handler's ws_copy output its fresh page: a slot of the event ring
# claimed and not yet published, or a held block's record being logged,
# once made lookups on other threads miss blocks (tens to hundreds of
# wrong sizes per run); an event lost to a full ring did too.  So did a
# free whose slot was published while the log was applied past it, then
# applied after the same address's next allocation: one wrong size in
# about ten runs (issue 27).
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibylwsshared.so" --header "$SIBYL_SOURCE/tests/integration/targets/ws_shared.h" \
	--functions ws_scan,ws_copy --gen time,trace,worksize.fast -o "$WORK/ws.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap ws_scan,ws_copy"; }
"$TARGETS_BIN/ws_stress" 1000 "$WORK/plain.sizes" >"$WORK/plain.out"
for run in 1 2; do
	"$SIBYL" trace -o "$WORK/t" --wrap "$WORK/ws.so" -- "$TARGETS_BIN/ws_stress" 200000 "$WORK/sizes" >"$WORK/out"
	cmp -s "$WORK/plain.out" "$WORK/out" || fail "ws_stress: output differs traced"
	"$SIBYL" export "$WORK/t" --format csv -o "$WORK/t.csv"
	# scans, wrong scans, copies, wrong copies: each thread's calls in
	# order against the sizes it wrote down.
	got=$(/usr/bin/python3 -c 'import collections, csv, sys
want = collections.defaultdict(list)
for line in open(sys.argv[2]):
    tid, n = line.split()
    want[tid].append(int(n))
got = collections.defaultdict(list)
copies = []
for r in sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["start_ns"])):
    if r["function"] == "ws_scan":
        got[r["tid"]].append(int(r["in_bytes"]))
    else:
        copies.append(int(r["out_bytes"]))
if sorted(want) != sorted(got) or any(len(want[t]) != len(got[t]) for t in want):
    sys.exit("calls do not match the sizes written down")
print(sum(map(len, want.values())) > 5000, sum(a != b for t in want for a, b in zip(want[t], got[t])),
      len(copies) > 1, sum(c != 4096 for c in copies))' "$WORK/t.csv" "$WORK/sizes")
	expect_eq "run $run: many scans, wrong scan sizes, copies, wrong copy sizes" "True 0 True 0" "$got"
	rm -rf "$WORK/t" "$WORK/t.csv"
done
