#!/usr/bin/env bash
# How each process image ended (docs/report.md, "Processes"): _exit,
# SIGKILL from the parent, abort, exec, vfork + exec, posix_spawn, and the
# shells on the way folded into one line unless --all-processes.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
PROG="$TARGETS_BIN/proc_ends"

"$PROG" >"$WORK/plain.out"
"$SIBYL" trace -o "$WORK/t" --wrap "$WORK/libwrap-test.so" -- sh -c "env $PROG; exit 9" \
	>"$WORK/traced.out" && fail "the shell's exit status 9 was lost" || expect_eq "exit status" 9 $?
cmp "$WORK/plain.out" "$WORK/traced.out" || fail "output differs under tracing"

SH=$(basename "$(readlink -f /bin/sh)")
"$SIBYL" report --json "$WORK/t" >"$WORK/t.json"
# One line per image: "exe-base-name end end_code", sorted.
ends=$(json '";".join(sorted("%s %s %s" % (p["exe"].rsplit("/", 1)[-1], p["end"], p["end_code"]) for p in j["processes"]))' "$WORK/t.json")
expect_eq "how each image ended" \
	"$SH exit 9;env exec None;proc_ends exec None;proc_ends exit 0;proc_ends exit 3;proc_ends exit 4;proc_ends exit 5;proc_ends exit 6;proc_ends signal 6;proc_ends signal 9" \
	"$ends"

"$SIBYL" report --processes "$WORK/t" >"$WORK/folded.txt"
for label in "exit 5" "killed by SIGKILL" "killed by SIGABRT" "exec'd" "exit 3" "exit 6" "exit 4" "exit 0"; do
	grep -q "  $label  *[^ ]*proc_ends\$" "$WORK/folded.txt" || { cat "$WORK/folded.txt"; fail "no '$label' line"; }
done
grep -q "did not exit" "$WORK/folded.txt" && fail "an image is labelled 'did not exit'"
grep -q "+ 2 process images without wrapped calls (--all-processes lists them): $SH, env\$" \
	"$WORK/folded.txt" || { cat "$WORK/folded.txt"; fail "shell and env not folded"; }
"$SIBYL" report --processes --all-processes "$WORK/t" >"$WORK/all.txt"
grep -q "  exit 9  *[^ ]*$SH\$" "$WORK/all.txt" || { cat "$WORK/all.txt"; fail "--all-processes: no shell line"; }
grep -q "  exec'd  *[^ ]*env\$" "$WORK/all.txt" || fail "--all-processes: no env line"
grep -q "without wrapped calls" "$WORK/all.txt" && fail "--all-processes still folds"
echo "all process-end checks passed"
