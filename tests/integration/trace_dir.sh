#!/usr/bin/env bash
# What `sibyl trace` does to its directory: --force replaces only a sibyl
# trace's own files (never a project that happens to hold a meta.json),
# works in place for `-o .` and through a symlink, locks the directory
# against a second writer, creates it private (0700, files 0600) unless
# --shared, and checks every --wrap before running anything.
. "$(dirname "$0")/lib.sh"

LIFE="$TARGETS_BIN/lifecycle"
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
cd "$WORK"

# trace DIR N [options]: trace `lifecycle threads N` (4 threads x N calls).
trace() {
	local dir=$1 n=$2
	shift 2
	"$SIBYL" trace -o "$dir" --wrap "$WORK/libwrap-test.so" "$@" -- "$LIFE" threads "$n" >/dev/null
}
calls() {
	"$SIBYL" report --json "$1" >"$WORK/r.json" || fail "report $1"
	calls_of "$WORK/r.json" testlib_work
}
# one_line_error FILE: sibyl said exactly one line, starting "sibyl: ".
one_line_error() {
	[ "$(wc -l <"$1")" = 1 ] && grep -q '^sibyl: ' "$1" || { cat "$1"; fail "expected one error line in $1"; }
}

# A project holding a meta.json that is not a trace survives --force.
mkdir -p proj/src proj/.git
echo 'int main;' >proj/src/main.c
echo '{"name": "my-project"}' >proj/meta.json
rc=0; trace proj 10 --force 2>err || rc=$?
expect_eq "--force on a project: exit status" 2 "$rc"
one_line_error err
[ -f proj/src/main.c ] && [ -d proj/.git ] && grep -q my-project proj/meta.json || fail "the project was touched"

# A trace with a note: --force replaces the trace's files, keeps the note.
trace t1 100
echo "my notes" >t1/NOTES
mkdir t1/plots
trace t1 200 --force
expect_eq "replaced trace: calls" 800 "$(calls t1)"
[ -f t1/NOTES ] && [ -d t1/plots ] || fail "--force removed files that are not the trace's"

# -o . inside a trace, and -o through a symbolic link to a trace.
(cd t1 && trace . 300 --force) || fail "trace -o . --force"
expect_eq "-o .: calls" 1200 "$(calls t1)"
ln -s t1 link
trace link 50 --force || fail "trace -o LINK --force"
[ -L link ] || fail "the symbolic link was replaced"
expect_eq "-o LINK: calls" 200 "$(calls t1)"

# Private by default, readable by others with --shared.
trace priv 10
expect_eq "trace directory mode" 700 "$(stat -c %a priv)"
expect_eq "files not 0600" "" "$(find priv -type f ! -perm 600)"
(umask 022 && trace shared 10 --shared)
expect_eq "--shared directory mode" 755 "$(stat -c %a shared)"
expect_eq "--shared files not 0644" "" "$(find shared -type f ! -perm 644)"

# A second writer on a directory being traced gets one line, exit 2, and
# the first trace is complete.
"$SIBYL" trace -o busy --wrap "$WORK/libwrap-test.so" -- sh -c \
	'touch started; while [ ! -e release ]; do sleep 0.05; done; exec "$0" threads 1000' "$LIFE" >/dev/null &
first=$!
while [ ! -e started ]; do sleep 0.05; done
rc=0; trace busy 10 --force 2>err || rc=$?
touch release
wait $first || fail "the first trace failed"
expect_eq "second writer: exit status" 2 "$rc"
one_line_error err
expect_eq "first trace after a second writer: calls" 4000 "$(calls busy)"

# Wrappers: not a sibyl wrapper -> one line, exit 2, nothing run.
for bad in /etc/passwd "$TARGETS_LIB/libsibyltest.so" /dev/null; do
	rc=0
	"$SIBYL" trace -o bad --wrap "$bad" -- touch ran 2>err || rc=$?
	expect_eq "--wrap $bad: exit status" 2 "$rc"
	one_line_error err
	[ ! -e ran ] && [ ! -e bad ] || fail "--wrap $bad: the command ran or a trace was made"
done
# A wrapper built by another sibyl, for another runtime interface: one
# line naming both versions, nothing run (its inline fast path would
# write records the runtime does not lay out).
printf '__attribute__((visibility("default"))) const unsigned sibyl_wrapper_abi = 999;\n' >other.c
cc -shared -fPIC -o libwrap-other.so other.c
rc=0
"$SIBYL" trace -o bad --wrap libwrap-other.so -- touch ran 2>err || rc=$?
expect_eq "--wrap from another sibyl: exit status" 2 "$rc"
one_line_error err
grep -q "another sibyl for wrapper interface 999; this sibyl's runtime speaks [0-9]" err ||
	fail "--wrap from another sibyl: $(cat err)"
[ ! -e ran ] && [ ! -e bad ] || fail "--wrap from another sibyl: the command ran"
# A wrapper whose path holds a space and a colon is preloaded whole.
mkdir "dir with space:colon"
cp libwrap-test.so "dir with space:colon/lib wrap:1.so"
"$SIBYL" trace -o spaced --wrap "dir with space:colon/lib wrap:1.so" -- "$LIFE" threads 100 >/dev/null
expect_eq "wrapper path with a space and a colon: calls" 400 "$(calls spaced)"
echo "all trace directory checks passed"
