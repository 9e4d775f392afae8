#!/usr/bin/env bash
# The invocations a new user tries first (docs/wrap.md, docs/report.md,
# docs/export.md), one check each: files in the current directory, a
# program found on PATH, a program whose imports live in its libraries,
# -o into a missing directory, definition-file and header-order errors,
# report/export without a directory, the export format from the name, and
# no OUT.so.skipped.txt left by a failed wrap.
. "$(dirname "$0")/lib.sh"
cd "$WORK"
cp "$TARGETS_LIB/libsibyltest.so" libtiny.so
cp "$SIBYL_SOURCE/tests/integration/targets/testlib.h" tiny.h

# 1. A library and a header in the current directory, by their names.
"$SIBYL" wrap libtiny.so --header tiny.h -o tiny.so 2>err || { cat err; fail "wrap libtiny.so --header tiny.h"; }
grep -q "function(s) wrapped" err || fail "wrap libtiny.so: no summary"
grep -q '#include "'"$WORK"'/tiny.h"' <("$SIBYL" wrap libtiny.so --header tiny.h -o t2.so --emit-c t2.c 2>/dev/null; cat t2.c) ||
	fail "--header tiny.h is not included from the current directory"
echo "ok: wrap libtiny.so --header tiny.h in their directory"

# 2. --app NAME is looked up in PATH, like the shell does.
"$SIBYL" wrap libz.so.1 --header zlib.h --app pigz -o z-name.so 2>name.err || { cat name.err; fail "--app pigz"; }
"$SIBYL" wrap libz.so.1 --header zlib.h --app "$(command -v pigz)" -o z-path.so 2>path.err
expect_eq "--app pigz wraps what --app $(command -v pigz) wraps" \
	"$(sed 's/list in .*//' path.err)" "$(sed 's/list in .*//' name.err)"
rc=0
"$SIBYL" wrap libz.so.1 --header zlib.h --app no-such-program-here -o z-none.so 2>err || rc=$?
expect_eq "--app not on PATH: exit status" 1 "$rc"
grep -q "no-such-program-here: no such program in \$PATH" err || fail "--app missing: $(cat err)"

# 3. A program that reaches the library only through its own libraries:
# ImageMagick's convert calls zlib from libMagickCore and libpng.
IM=$(readlink -f /usr/bin/convert)
"$SIBYL" wrap libz.so.1 --header zlib.h --app "$IM" -v -o z-im.so 2>err || { cat err; fail "--app convert"; }
grep -q "imports 0 of libz.so.1's functions itself, its libraries import: .*libpng16.so.16 [1-9]" err ||
	{ cat err; fail "--app convert: which library imports what is not said"; }
grep -q "^  libpng16.so.16: .*inflate" err || fail "--app convert -v: libpng's imports not listed"
wrapped=$(sed -n 's/.*: \([0-9]*\) function(s) wrapped.*/\1/p' err)
[ "$wrapped" -gt 0 ] || fail "--app convert: nothing wrapped"
echo "ok: --app convert wraps $wrapped zlib functions its libraries import"

# 4. -o into a directory that does not exist: said before any compiling.
printf '#!/bin/sh\ntouch "%s/compiled"\nexit 1\n' "$WORK" >fake-cc && chmod +x fake-cc
rc=0
CC="$WORK/fake-cc" "$SIBYL" wrap libtiny.so --header tiny.h -o no/such/dir/w.so 2>err || rc=$?
expect_eq "-o into a missing directory: exit status" 1 "$rc"
grep -q "no/such/dir/w.so: directory no/such/dir: No such file or directory" err || fail "-o: $(cat err)"
[ ! -e compiled ] || fail "-o into a missing directory: the compiler ran first"

# 5. An unknown name in a definition file: the compiler's error at the
# .defs line, and the names the code can use there.  No skipped list.
printf 'libtiny*::testlib_sum::postfix {\n\tinput_size = nn * sizeof(double);\n}\n' >tiny.defs
rc=0
"$SIBYL" wrap libtiny.so --header tiny.h --defs tiny.defs -o defs.so 2>err || rc=$?
expect_eq "defs error: exit status" 1 "$rc"
grep -q "^tiny.defs:2:[0-9]*: error: .*nn" err || { cat err; fail "defs error not at tiny.defs:2"; }
grep -q "tiny.defs:1: the postfix code of 'libtiny\*::testlib_sum' can use the parameters of testlib_sum(in, n, out), and input_size, output_size, work, sibyl_result" err ||
	{ cat err; fail "defs error: the valid names are not listed"; }
[ ! -e defs.so ] && [ ! -e defs.so.skipped.txt ] || fail "a failed build left defs.so or its skipped list"

# 6. Headers in the wrong order: which header to name first.
rc=0
"$SIBYL" wrap libjpeg.so.62 --header jpeglib.h -o jpeg.so 2>err || rc=$?
expect_eq "jpeglib.h alone: exit status" 1 "$rc"
grep -q "jpeglib.h uses size_t, FILE before any header declares them; .*: --header stdio.h --header jpeglib.h$" err ||
	{ cat err; fail "jpeglib.h without stdio.h: not explained"; }
printf 'typedef struct { int n; } tiny_ctx;\n' >ctx.h
printf 'int testlib_work(int x);\nint tiny_use(tiny_ctx *c);\n' >use.h
"$SIBYL" wrap libtiny.so --header use.h --header ctx.h -o order.so 2>err && fail "use.h before ctx.h was accepted"
grep -q "use.h uses tiny_ctx before any header declares it; .*: --header ctx.h --header use.h$" err ||
	{ cat err; fail "use.h before ctx.h: not explained"; }
[ ! -e jpeg.so.skipped.txt ] && [ ! -e order.so.skipped.txt ] || fail "a failed wrap left a skipped list"

# 7. No function to wrap: no skipped list either.
"$SIBYL" wrap libtiny.so --header ctx.h -o none.so 2>err && fail "nothing to wrap was accepted"
grep -q "no function to wrap" err || fail "nothing to wrap: $(cat err)"
[ ! -e none.so.skipped.txt ] || fail "a failed wrap left none.so.skipped.txt"

# 8. report and export read ./sibyl.data (sibyl trace's default) when
# given no directory, as perf report reads perf.data.
rc=0
"$SIBYL" report 2>err || rc=$?
expect_eq "report without a trace here: exit status" 1 "$rc"
grep -q "sibyl.data: No such file or directory" err || fail "report without a trace: $(cat err)"
# (fixed_calls loads the library from the build tree: wrap that one.)
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header tiny.h -o real.so 2>/dev/null
"$SIBYL" trace --wrap ./real.so -- "$TARGETS_BIN/fixed_calls" >/dev/null
[ -d sibyl.data ] || fail "sibyl trace without -o did not record into sibyl.data"
"$SIBYL" report --json >default.json
"$SIBYL" report --json sibyl.data >given.json
cmp default.json given.json || fail "report without DIR differs from report sibyl.data"
expect_eq "report without DIR: calls" 19 "$(json 'j["calls"]' default.json)"

# 9. export infers the format from -o's name.
"$SIBYL" export -o calls.csv
expect_eq "export -o calls.csv: CSV rows" 20 "$(wc -l <calls.csv)"
"$SIBYL" export -o calls.db
expect_eq "export -o calls.db: SQLite calls" 19 "$(sqlite3 calls.db 'SELECT count(*) FROM calls')"
rc=0
"$SIBYL" export -o calls.txt 2>err || rc=$?
expect_eq "export -o calls.txt: exit status" 2 "$rc"
grep -q "calls.txt: cannot tell the format from the name" err || fail "export -o calls.txt: $(cat err)"
[ ! -e calls.txt ] || fail "export -o calls.txt wrote a file"
echo "all natural-invocation checks passed"
