#!/bin/bash
# Running: -t per-sample times, crash and timeout reported in one line
# with the seed, sweeps into JSON lines, the instrumented-binary cache.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args"

"$SIBYL" kernel "$K/loop.cl" -k loop -g 256 -n 4 --time-it --json > "$WORK/t.json"
expect_eq "samples" 4 "$(json "len(j['samples'])" "$WORK/t.json")"
expect_eq "sample seeds" "[0, 1, 2, 3]" "$(json "[s['seed'] for s in j['samples']]" "$WORK/t.json")"
for f in host_ns device_ns queue_ns submit_ns transfer_ns; do
	expect_eq "$f in every sample" True \
		"$(json "all(s['$f'] >= 0 for s in j['samples'])" "$WORK/t.json")"
	expect_eq "$f summary" "['mean', 'median', 'stdev']" \
		"$(json "sorted(j['times']['$f'])" "$WORK/t.json")"
done
expect_eq "device time measured" True "$(json "all(s['device_ns'] > 0 for s in j['samples'])" "$WORK/t.json")"
# The process's CPU time over each launch (the enqueue at least).
expect_eq "CPU time measured" True "$(json "all(s['cpu_ns'] > 0 for s in j['samples'])" "$WORK/t.json")"
"$SIBYL" kernel "$K/loop.cl" -k loop -g 256 -n 2 --time-it > "$WORK/t.txt"
grep -q "^Time per sample for kernel 'loop'" "$WORK/t.txt" || fail "no -t table"
grep -Eq '^  device +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$WORK/t.txt" || fail "no device row"

# A crash and a hang take the child down, not sibyl.
if "$SIBYL" kernel "$K/crash.cl" -k null_deref -g 64 --seed 5 2> "$WORK/err"; then
	fail "crash: exit status 0"
fi
expect_eq "crash message" "sibyl: kernel null_deref crashed (signal 11) with seed 5 (gsize 64)" \
	"$(cat "$WORK/err")"
if "$SIBYL" kernel "$K/crash.cl" -k forever -g 4 --timeout 3 2> "$WORK/err"; then
	fail "hang: exit status 0"
fi
expect_eq "timeout message" "sibyl: kernel forever timed out after 3 s with seed 0 (gsize 4)" \
	"$(cat "$WORK/err")"

# Sweeps: one line per sample; crashes are skipped and the sweep goes on.
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64:256:64 -n 3 --time-it -o "$WORK/d.jsonl"
expect_eq "sweep lines" 12 "$(wc -l < "$WORK/d.jsonl")"
expect_eq "sweep gsizes" "[64, 64, 64, 128, 128, 128, 192, 192, 192, 256, 256, 256]" \
	"$(/usr/bin/python3 -c 'import json,sys; print([json.loads(l)["gsize"] for l in open(sys.argv[1])])' "$WORK/d.jsonl")"
if "$SIBYL" kernel "$K/loop.cl" -k loop -g 64:128:64 -o "$WORK/d.jsonl" 2> "$WORK/err"; then
	fail "sweep replaced an existing file without --force"
fi
expect_eq "kept" 12 "$(wc -l < "$WORK/d.jsonl")"
status=0
"$SIBYL" kernel "$K/crash.cl" -k null_deref -g 32:64:32 -n 2 -o "$WORK/c.jsonl" 2> "$WORK/err" || status=$?
expect_eq "a crashing sweep exits as a crash" 5 "$status"
expect_eq "crashes reported, sweep continued" 4 "$(grep -c 'crashed (signal 11)' "$WORK/err")"

# -i: counts, and the instrumented binary cached for the second run.
export XDG_CACHE_HOME="$WORK/cache"
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i --json > "$WORK/i1.json"
expect_eq "first run" miss "$(json "j['cache']" "$WORK/i1.json")"
ls "$WORK"/cache/sibyl/*.e1 > /dev/null || fail "no cache entry"
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i --json > "$WORK/i2.json"
expect_eq "second run" hit "$(json "j['cache']" "$WORK/i2.json")"
expect_eq "same counts" "$(json "j['instcounts']" "$WORK/i1.json")" "$(json "j['instcounts']" "$WORK/i2.json")"
expect_eq "ret per work-item" "[64]" "$(json "[r['count'] for r in j['instcounts'] if r['op'] == 'ret']" "$WORK/i2.json")"
# Records, no data in keys: the same fields whatever the sample moved.
expect_eq "record fields" "[['bytes', 'count', 'op', 'space'], ['callee', 'count', 'op'], ['count', 'op']]" \
	"$(json "sorted(set(tuple(sorted(r)) for r in j['instcounts'] + j['samples'][0]['instcounts']), key=len, reverse=True)" "$WORK/i2.json" | tr '()' '[]')"
expect_eq "a global load's bytes" True \
	"$(json "any(r['op'] == 'load' and r['space'] == 'global' and r['bytes'] >= 4 * r['count'] > 0 for r in j['instcounts'])" "$WORK/i2.json")"
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i --coarse --json > "$WORK/i3.json"
expect_eq "coarse: one global load, calls without callee" "1 True False" \
	"$(json "sum(r['op'] == 'load' and r['space'] == 'global' for r in j['instcounts']), any(r['op'] == 'call' for r in j['instcounts']), any('callee' in r for r in j['instcounts'])" "$WORK/i3.json" | tr -d '(),')"
# The mean of samples that moved different bytes is one line per operation.
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i -n 3 > "$WORK/mean.txt"
expect_eq "one 'load global' line in the mean" 1 "$(grep -c ' - load global (' "$WORK/mean.txt")"

# An included file is part of the key: changing it is a miss.
cp -r "$K/include.cl" "$K/inc" "$WORK/"
hits() { "$SIBYL" kernel "$WORK/include.cl" -k scaled -g 8 -D SCALE=2 -i --json > "$WORK/h.json"; json "j['cache']" "$WORK/h.json"; }
expect_eq "include: first" miss "$(hits)"
expect_eq "include: again" hit "$(hits)"
sed -i 's/((x) \* SCALE)/((x) * SCALE + 1)/' "$WORK/inc/scale.h"
expect_eq "include changed" miss "$(hits)"

# --spir: the plain SPIR bitcode through clCreateProgramWithBinary (the
# runner passes no counters argument), cached apart from -i's binary,
# computing what the source build computes (-D applies).
spir() { "$SIBYL" kernel "$WORK/include.cl" -k scaled -g 8 -D SCALE=3 --seed 4 --dump-args --json "$@"; }
spir --spir > "$WORK/s1.json"
expect_eq "--spir: first" miss "$(json "j['cache']" "$WORK/s1.json")"
spir --spir -O1 > "$WORK/s2.json"
expect_eq "--spir -O1: another key" miss "$(json "j['cache']" "$WORK/s2.json")"
spir --spir > "$WORK/s3.json"
expect_eq "--spir: again" hit "$(json "j['cache']" "$WORK/s3.json")"
expect_eq "--spir: no counts" False "$(json "'instcounts' in j or 'instcounts' in j['samples'][0]" "$WORK/s3.json")"
spir > "$WORK/src.json"
expect_eq "--spir: no cache on the source path" False "$(json "'cache' in j" "$WORK/src.json")"
for f in s1 s2 s3; do
	expect_eq "--spir ($f) computes what the source build does" \
		"$(json "j['samples'][0]['after']" "$WORK/src.json")" "$(json "j['samples'][0]['after']" "$WORK/$f.json")"
done
spir -i --spir > "$WORK/si.json"
expect_eq "-i --spir: --spir ignored, counted" True "$(json "'instcounts' in j" "$WORK/si.json")"

# A warm-up launch is not reported and does not leak into the counts.
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i --warmup 2 -n 2 --json > "$WORK/w.json"
expect_eq "samples after warm-up" 2 "$(json "len(j['samples'])" "$WORK/w.json")"
expect_eq "warm-up leaves the counts alone" "$(json "j['samples'][0]['instcounts']" "$WORK/i1.json")" \
	"$(json "j['samples'][0]['instcounts']" "$WORK/w.json")"

# A progress bar on a terminal, nothing on a pipe.
if command -v script > /dev/null; then
	script -qec "'$SIBYL' kernel '$K/loop.cl' -k loop -g 64:128:64 -n 2 -o '$WORK/p.jsonl'" \
		/dev/null > "$WORK/tty.txt"
	grep -q 'sibyl: kernel sweep: 4/4 samples, gsize 128  100%' "$WORK/tty.txt" || fail "no progress line"
	echo "ok: progress line on a terminal"
fi
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64:128:64 -o "$WORK/q.jsonl" 2> "$WORK/quiet.txt"
[ ! -s "$WORK/quiet.txt" ] || fail "progress output without a terminal: $(cat "$WORK/quiet.txt")"

# --static counts the IR without running; -O changes the IR counted.
"$SIBYL" kernel "$K/loop.cl" -k loop --static > "$WORK/static.txt"
head -1 "$WORK/static.txt" | grep -qx "Static instruction counts for kernel 'loop':" || fail "--static header"
"$SIBYL" kernel "$K/loop.cl" -k loop --static --json > "$WORK/static.json"
expect_eq "--static --json is labelled static" True "$(json "j['static']" "$WORK/static.json")"
expect_eq "one ret in the IR" "[1]" "$(json "[r['count'] for r in j['instcounts'] if r['op'] == 'ret']" "$WORK/static.json")"
"$SIBYL" kernel "$K/loop.cl" -k loop --static -O2 --json > "$WORK/static2.json"
expect_eq "-O2 removes the allocas" "[]" "$(json "[r for r in j['instcounts'] if r['op'] == 'alloca']" "$WORK/static2.json")"
"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i -O2 --json > "$WORK/o2.json"
expect_eq "-i -O2: no private memory traffic" False \
	"$(json "any(r['op'] == 'load' and r['space'] == 'private' for r in j['instcounts'])" "$WORK/o2.json")"

# --fence: a read one element past the end faults at once (--no-infer:
# else `in` is made as long as the read reaches).
if "$SIBYL" kernel "$K/bounds.cl" -k past_end -g 1024 --fence --no-infer --seed 4 2> "$WORK/err"; then
	fail "--fence: an out-of-bounds read went unnoticed"
fi
expect_eq "--fence message" "sibyl: kernel past_end crashed (signal 11) with seed 4 (gsize 1024): it read or wrote past the end of 'in'" \
	"$(cat "$WORK/err")"
"$SIBYL" kernel "$K/pointers.cl" -k pointers -g 64 -l 16 --fence --dump-args --json > "$WORK/f.json"
/usr/bin/python3 "$(dirname "$0")/kernel_args_check.py" pointers "$WORK/f.json" 64

# A runner that never reports (a hanging build) gets --build-timeout.
printf '#!/bin/sh\nexec sleep 30\n' > "$WORK/hang-runner"
chmod +x "$WORK/hang-runner"
rc=0
SIBYL_KERNEL_RUNNER="$WORK/hang-runner" "$SIBYL" kernel "$K/loop.cl" -k loop -g 4 --timeout 0.2 \
	--build-timeout 1 2> "$WORK/err" || rc=$?
expect_eq "hanging build: exit status" 6 "$rc"
expect_eq "hanging build" \
	"sibyl: kernel: compiling loop for the device took longer than 1 s (--build-timeout)" \
	"$(cat "$WORK/err")"

# A runner that fails later in a sweep (here one that stops after gsize
# 128 with an error) leaves the samples measured so far.
cat > "$WORK/picky-runner" <<EOS
#!/bin/sh
sed 's/"gsize_to":256/"gsize_to":128/' "\$1" > "\$1.picky"
"$SIBYL_BUILD/bin/sibyl-kernel-run" "\$1.picky"
echo "sibyl: kernel: out of resources" >&2
exit 1
EOS
chmod +x "$WORK/picky-runner"
if TMPDIR="$WORK" SIBYL_KERNEL_RUNNER="$WORK/picky-runner" "$SIBYL" kernel "$K/loop.cl" -k loop -g 64:256:64 -n 2 \
	--out "$WORK/partial.jsonl" 2> "$WORK/err"; then
	fail "a failing sweep: exit status 0"
fi
expect_eq "samples kept" 4 "$(wc -l < "$WORK/partial.jsonl")"
grep -q "sweep stopped at gsize 192; 4 samples kept" "$WORK/err" || fail "no stop message: $(cat "$WORK/err")"

# --all runs every kernel of a file, going on after failures.
if "$SIBYL" kernel "$K/crash.cl" --all -g 16 --timeout 3 > "$WORK/all.txt" 2> "$WORK/err"; then
	fail "--all with crashing kernels: exit status 0"
fi
expect_eq "--all summary" "$K/crash.cl: 2 kernels: 0 ran, 2 failed, 0 unsupported" "$(tail -1 "$WORK/all.txt")"
expect_eq "--all failures" 2 "$(grep -c -e 'crashed (signal 11)' -e 'timed out after 3 s' "$WORK/err")"
"$SIBYL" kernel "$K/two.cl" --all -g 16 -l 8 > "$WORK/all.txt"
expect_eq "--all on two kernels" "$K/two.cl: 2 kernels: 2 ran, 0 failed, 0 unsupported" "$(tail -1 "$WORK/all.txt")"
