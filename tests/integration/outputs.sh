#!/usr/bin/env bash
# How commands write their outputs: never over something that is not a
# regular file (a FIFO, a device, a symbolic link) nor over their own
# input, `wrap` only with --force like every other writer, and no
# temporary left behind when SIGINT or SIGTERM arrives.
. "$(dirname "$0")/lib.sh"

LIFE="$TARGETS_BIN/lifecycle"
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
cd "$WORK"
"$SIBYL" trace -o t --wrap ./libwrap-test.so -- "$LIFE" threads 100 >/dev/null
one_line_error() {
	[ "$(wc -l <"$1")" = 1 ] && grep -q '^sibyl: ' "$1" || { cat "$1"; fail "expected one error line in $1"; }
}
# refused WHAT STATUS CMD...: CMD fails with STATUS and one line.
refused() {
	local what=$1 want=$2 rc=0
	shift 2
	"$@" 2>err >/dev/null || rc=$?
	expect_eq "$what: exit status" "$want" "$rc"
	one_line_error err
}

# Not regular files: a FIFO, a device node (root only), a symbolic link.
mkfifo fifo
refused "export --force -o FIFO" 1 "$SIBYL" export t --format csv -o fifo --force
[ -p fifo ] || fail "the FIFO was replaced"
if [ "$(id -u)" = 0 ]; then
	mknod null c 1 3
	refused "export --force -o DEVICE" 1 "$SIBYL" export t --format csv -o null --force
	[ -c null ] || fail "the device node was replaced"
fi
echo secret >victim
ln -s victim link
refused "export --force -o SYMLINK" 1 "$SIBYL" export t --format sqlite -o link --force
[ -L link ] && [ "$(cat victim)" = secret ] || fail "the symbolic link or its target was replaced"

# The command's own input, even with --force.
cp t/meta.json meta.before
refused "export -o TRACE/meta.json --force" 1 "$SIBYL" export t --format csv -o t/meta.json --force
cmp -s meta.before t/meta.json || fail "export replaced its own input"
"$SIBYL" report t >/dev/null || fail "the trace no longer reads"

# wrap follows the --force rule.
echo keep >w.so
refused "wrap -o EXISTING" 1 "$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" \
	--header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" -o w.so
expect_eq "wrap -o EXISTING: file kept" keep "$(cat w.so)"
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o w.so --force 2>/dev/null || fail "wrap --force"
file -L w.so | grep -q 'shared object' || fail "wrap --force did not write the library"

# SIGTERM or SIGINT just before the output is renamed into place: the
# temporary is removed and nothing is left at OUT.
for sig in 15 2; do
	for fmt in csv sqlite; do
		rc=0
		LD_PRELOAD="$TARGETS_LIB/libsibylsignalatrename.so" SIBYL_TEST_SIGNAL_AT_RENAME=$sig \
			"$SIBYL" export t --format $fmt -o out.$fmt 2>/dev/null || rc=$?
		expect_eq "export $fmt, signal $sig: exit status" $((128 + sig)) "$rc"
		expect_eq "export $fmt, signal $sig: files left" "" "$(ls -d out.$fmt* 2>/dev/null || true)"
	done
done
# kernel --out the same way (its scratch directory, left by the signal,
# goes to the test's directory).
rc=0
mkdir scratch
TMPDIR="$WORK/scratch" LD_PRELOAD="$TARGETS_LIB/libsibylsignalatrename.so" SIBYL_TEST_SIGNAL_AT_RENAME=15 \
	"$SIBYL" kernel "$SIBYL_SOURCE/tests/kernels/args/loop.cl" -k loop -g 64 -n 1 -o k.jsonl \
	>/dev/null 2>&1 || rc=$?
expect_eq "kernel --out, SIGTERM: exit status" 143 "$rc"
expect_eq "kernel --out, SIGTERM: files left" "" "$(ls -d k.jsonl* 2>/dev/null || true)"

# Scratch files go to private directories under $TMPDIR, never to a name
# known in advance: the runner's configuration was $TMPDIR/sibyl-run-PID.json,
# which another user could plant.  In a new PID namespace sibyl is pid 1,
# so that name is known here (root only).
if unshare -pf --mount-proc true 2>/dev/null; then
	mkdir -p tmp/sibyl-run-1.json
	TMPDIR="$WORK/tmp" unshare -pf --mount-proc "$SIBYL" kernel "$SIBYL_SOURCE/tests/kernels/args/loop.cl" \
		-k loop -g 64 -n 1 >/dev/null 2>err || { cat err; fail "kernel with a planted sibyl-run-1.json"; }
	expect_eq "kernel: scratch left in TMPDIR" sibyl-run-1.json "$(ls tmp)"
fi
echo "all output checks passed"
