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

# -i on Oclgrind: its interpreter lacks 64-bit atomics, but counters in
# rows of their own per work-item (small ranges, docs/instcounts.md) need
# none, so the instrumented kernel counts there too, and the same as on
# the default device.
LC_ALL=C oclgrind "$SIBYL" kernel "$K/loop.cl" -k loop -g 16 --seed 3 -i > "$WORK/og-i.list" ||
	fail "-i on Oclgrind failed"
"$SIBYL" kernel "$K/loop.cl" -k loop -g 16 --seed 3 -i > "$WORK/pocl-i.list"
diff "$WORK/og-i.list" "$WORK/pocl-i.list" || fail "-i on Oclgrind and on the device differ"
echo "ok: -i on Oclgrind counts as on the device"
