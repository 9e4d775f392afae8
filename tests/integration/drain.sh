#!/usr/bin/env bash
# Ring mode (the default of sibyl trace) against direct mode (--no-drain):
# the same exact counts whatever the ring size, rings that wrap thousands
# of times and make the program wait for the drainer, crashes drained
# after the fact, and nothing of the machinery left in the trace.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
LIFE="$TARGETS_BIN/lifecycle"

# traced NAME EXPECTED_RC OPTIONS... -- MODE N: trace, then check status and leftovers.
traced() {
	local name=$1 want_rc=$2 rc=0
	shift 2
	"$SIBYL" trace -o "$WORK/$name" --wrap "$WORK/libwrap-test.so" "$@" >/dev/null 2>"$WORK/$name.err" || rc=$?
	expect_eq "$name: exit status" "$want_rc" "$rc"
	if ls "$WORK/$name" | grep -E '\.ring$|^drain\.ctl$'; then
		fail "$name: ring files left in the trace"
	fi
	"$SIBYL" report --json "$WORK/$name" >"$WORK/$name.json" || fail "$name: report"
}

# 8 KiB rings hold 128 records: 4 threads x 20000 calls wrap each ring
# ~150 times, so producers must wait for the drainer again and again.
traced small-ring 0 --ring-kb 8 -- "$LIFE" threads 20000
expect_eq "small ring: calls" 80000 "$(calls_of "$WORK/small-ring.json" testlib_work)"
expect_eq "small ring: nothing dropped" 0 "$(json 'sum(t["dropped"] for t in j["threads"])' "$WORK/small-ring.json")"

traced direct 0 --no-drain -- "$LIFE" threads 20000
expect_eq "direct mode: calls" 80000 "$(calls_of "$WORK/direct.json" testlib_work)"

traced fork-ring 0 --ring-kb 8 -- "$LIFE" fork 3000
expect_eq "fork with small rings: calls" 12000 "$(calls_of "$WORK/fork-ring.json" testlib_work)"

# Killed by SIGKILL: what the ring held is drained after the death.
traced killed 137 --ring-kb 8 -- "$LIFE" kill 1000
expect_eq "killed: calls before the kill" 1000 "$(calls_of "$WORK/killed.json" testlib_work)"

# Signal handlers making intercepted calls in the middle of the runtime's
# recording: nothing may crash, and every call is either recorded or
# counted as dropped (only a handler that interrupted a recording drops).
for opts in "--ring-kb 8" "--ring-kb 4096" "--no-drain"; do
	name=storm-${opts// /}
	"$SIBYL" trace -o "$WORK/$name" --wrap "$WORK/libwrap-test.so" $opts -- \
		"$LIFE" sigstorm 400000 >"$WORK/$name.out" || fail "$name: exit status $?"
	"$SIBYL" report --json "$WORK/$name" >"$WORK/$name.json" || fail "$name: report"
	made=$(sed -n 's/^calls //p' "$WORK/$name.out")
	seen=$(json 'sum(f["calls"] for f in j["functions"]) + sum(t["dropped"] for t in j["threads"])' "$WORK/$name.json")
	expect_eq "$name: calls recorded + dropped" "$made" "$seen"
done

# A grandchild still running when the command ends must not be harmed
# (its ring is no longer drained; it must not get SIGBUS).
traced outlive 0 -- "$LIFE" outlive 100 "$WORK/outlive.status" "$WORK/outlive.go"
touch "$WORK/outlive.go"
for _ in $(seq 600); do [ -s "$WORK/outlive.status" ] && break; sleep 0.1; done
expect_eq "outliving grandchild's end" "exit 0" "$(cat "$WORK/outlive.status" 2>/dev/null)"

# Ring and direct mode agree on nested calls.
traced ring-rec 0 -- "$LIFE" recurse 300
traced direct-rec 0 --no-drain -- "$LIFE" recurse 300
expect_eq "recursion: calls, ring vs direct" \
	"$(calls_of "$WORK/direct-rec.json" testlib_recurse)" "$(calls_of "$WORK/ring-rec.json" testlib_recurse)"

# The first thread to record takes the spare ring the drainer keeps ready
# (same inode, its pages already provided), and the drainer makes another.
cat >"$WORK/spare.sh" <<EOF
ring_dir=\$(dd if="$WORK/spare/drain.ctl" bs=1 skip=64 count=448 2>/dev/null | tr -d '\\0')
stat -c %i "\$ring_dir/spare" >"$WORK/spare.before" || exit 1
"$LIFE" recurse 1 >/dev/null || exit 1
for _ in \$(seq 100); do [ -e "\$ring_dir/spare" ] && break; sleep 0.02; done
stat -c %i "\$ring_dir/spare" >"$WORK/spare.after" || exit 1
stat -c %i "\$ring_dir"/*.ring >"$WORK/spare.rings"
EOF
traced spare 0 -- sh "$WORK/spare.sh"
expect_eq "spare: rings" 1 "$(wc -l <"$WORK/spare.rings")"
expect_eq "spare: taken by the thread" "$(cat "$WORK/spare.before")" "$(cat "$WORK/spare.rings")"
[ "$(cat "$WORK/spare.after")" != "$(cat "$WORK/spare.before")" ] || fail "spare: not replaced"
expect_eq "spare: calls (recurse 1: two)" 2 "$(calls_of "$WORK/spare.json" testlib_recurse)"

"$SIBYL" trace --ring-kb 1 -o "$WORK/bad" -- true 2>"$WORK/bad.err" && fail "--ring-kb 1 accepted"
grep -q "ring-kb" "$WORK/bad.err" || fail "no clear error for --ring-kb 1"
echo "ok: drain"
