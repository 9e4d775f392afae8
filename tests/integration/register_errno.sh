#!/usr/bin/env bash
# A wrapper registers its functions in its constructor, inside the traced
# program's start-up: sibyl_rt_register and sibyl_rt_declare_work must
# leave errno as they found it, even when their writes fail (the target
# puts directories where their tables go).  Untraced, the target says so.
. "$(dirname "$0")/lib.sh"

PROG="$TARGETS_BIN/register_errno"
rc=0
"$PROG" >"$WORK/plain.out" || rc=$?
expect_eq "untraced: exit status" 2 "$rc"
rc=0
"$SIBYL" trace -o "$WORK/t.trace" -- "$PROG" >"$WORK/traced.out" 2>"$WORK/traced.err" || rc=$?
expect_eq "traced: $(cat "$WORK/traced.out" "$WORK/traced.err")" 0 "$rc"
expect_eq "traced: output" "errno kept" "$(cat "$WORK/traced.out")"
echo "ok: registering leaves errno as it was"
