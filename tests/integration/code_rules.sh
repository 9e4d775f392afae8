#!/usr/bin/env bash
# The rules of issue 25 that a machine can check, over the source tree:
#  - every child process is started by the runner (src/core/run.c);
#  - library code does not print: only src/cli, core/log.c's printer and
#    core/alloc.c's last words before abort write to stderr, and a helper
#    program's main only to say it was started by hand;
#  - no function over 60 lines or over 20 in cyclomatic complexity
#    (pmccabe), no source file over 600 lines;
#  - the sibyl binary does not link libOpenCL, and the helpers that do
#    (they may load PoCL and its LLVM 15) do not link LLVM 14.
# Each finding is one line "file:line: what"; any finding fails the test.
. "$(dirname "$0")/lib.sh"

cd "$SIBYL_SOURCE"
command -v pmccabe >/dev/null || fail "pmccabe is not installed (scripts/install-deps)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard >"$WORK/files"
else
	find . -path ./build -prune -o -type f -print | sed 's|^\./||' >"$WORK/files"
fi
# Files that were deleted but are still listed by git.
while read -r f; do [ -f "$f" ] && echo "$f"; done <"$WORK/files" >"$WORK/present"
grep -E '\.(c|h)$' "$WORK/present" >"$WORK/c" || true
grep -E '^src/.*\.c$' "$WORK/present" >"$WORK/src" || true
findings="$WORK/findings"
: >"$findings"

# 1. Child processes only through the runner.  The runtime's wait
#    interposers (src/rt/exit_status.c) start nothing: they pass the traced
#    program's own waits through and note how its children ended.
xargs -r grep -nE '\b(fork|vfork|execv|execvp|execve|execl|execlp|execle|execvpe|posix_spawnp?|waitpid|wait4|waitid|system|popen)[[:space:]]*\(' \
	<"$WORK/src" | grep -vE '^src/core/run\.c:|^src/rt/exit_status\.c:' | grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)' |
	sed 's/$/  <- a child process outside src\/core\/run.c/' >>"$findings" || true

# 2. Library code does not print.
xargs -r grep -nE 'fprintf[[:space:]]*\([[:space:]]*stderr|fputs[[:space:]]*\([^;]*stderr|perror[[:space:]]*\(|\bsibyl_err(_errno)?[[:space:]]*\(' \
	<"$WORK/src" | grep -vE '^src/cli/|^src/core/log\.c:|^src/core/alloc\.c:' |
	grep -vE '^src/[^:]*_main\.c:[0-9]+:.*(internal helper|usage:)' |
	sed 's/$/  <- library code printing (return the error, or sibyl_notice)/' >>"$findings" || true

# 3. Function length and complexity.  pmccabe: CCN, CCN, statements,
#    first line, lines, "file(line): name".
xargs -r pmccabe <"$WORK/c" 2>/dev/null |
	awk -F'\t' '$1 > 20 || $5 > 60 {
		split($6, w, /[(): ]+/)
		printf "%s:%s: %s has %d lines, complexity %d (limits 60, 20)\n", w[1], $4, w[3], $5, $1
	}' >>"$findings"

# 4. File length, for code (docs and test data are prose and fixtures).
grep -E '\.(c|h|sh|py|cmake)$|CMakeLists\.txt$' "$WORK/present" | xargs -r wc -l |
	awk '$2 != "total" && $1 > 600 { printf "%s:1: %d lines (limit 600)\n", $2, $1 }' >>"$findings"

# 5. Which process links what.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needed "$SIBYL" | grep -q '^libOpenCL' &&
	echo "$SIBYL: links libOpenCL (OpenCL work belongs in a helper, src/ocl/README.md)" >>"$findings"
for helper in sibyl-kernel-run sibyl-device-run sibyl-plan-worker; do
	needed "$TARGETS_BIN/$helper" | grep -qE '^libLLVM|^libclang' &&
		echo "$TARGETS_BIN/$helper: links LLVM 14 beside an OpenCL runtime" >>"$findings"
done

if [ -s "$findings" ]; then
	cat "$findings" >&2
	fail "$(wc -l <"$findings") finding(s)"
fi
echo "ok: runner only, no printing library code, short functions and files, OpenCL in helpers"
