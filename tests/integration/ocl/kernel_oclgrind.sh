#!/bin/bash
# Oclgrind as the OpenCL platform runs sibyl's plain path, and counts the
# very same run as sibyl -i (same seed, same arguments).
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args"
command -v oclgrind > /dev/null || fail "oclgrind is not installed"

for k in loop pointers; do
	l=; [ $k = pointers ] && l="-l 8"
	LC_ALL=C oclgrind --inst-counts --build-options -O0 \
		"$SIBYL" kernel "$K/$k.cl" -k $k -g 32 $l --seed 3 > "$WORK/og.txt"
	grep -q "on Oclgrind Simulator" "$WORK/og.txt" || fail "$k did not run on Oclgrind"
	sed -n "/^Instructions executed for kernel '$k':/,/^\$/p" "$WORK/og.txt" > "$WORK/og.list"
	"$SIBYL" kernel "$K/$k.cl" -k $k -g 32 $l --seed 3 -i > "$WORK/sibyl.list"
	diff "$WORK/og.list" "$WORK/sibyl.list" || fail "$k: Oclgrind and sibyl -i counts differ"
	echo "ok: $k: $(wc -l < "$WORK/sibyl.list") lines equal to Oclgrind's"
done

# -i on Oclgrind: its interpreter lacks the counters' 64-bit atomics; the
# empty counts are refused, not printed.
if LC_ALL=C oclgrind "$SIBYL" kernel "$K/loop.cl" -k loop -g 16 -i > /dev/null 2> "$WORK/err"; then
	fail "-i on Oclgrind: exit status 0"
fi
grep -q "^sibyl: kernel: the counters stayed zero" "$WORK/err" || fail "no message: $(tail -3 "$WORK/err")"
echo "ok: -i on Oclgrind refused"
