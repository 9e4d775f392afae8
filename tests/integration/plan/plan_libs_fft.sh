#!/usr/bin/env bash
# The FFTW adapter of bench/plan/libs keeps a plan per size, as the
# program it measures does: replayed sizes alternating call by call, its
# timed runs fault no pages in (a plan and buffers made afresh at each
# change faulted in the output, 256 pages at 65536 points, and the
# replayed profile put those calls at 7 times the program's).  Skipped
# when FFTW was not found at build time.  (A prime size, 1009, faults
# a few pages in FFTW's own buffers, as in the program: not tested.)
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FFT="$SIBYL_BUILD/lib/libsibyl-plan-fft.so"
[ -e "$FFT" ] || { echo "SKIP: $FFT not built (libfftw3-dev)"; exit 77; }
cc -O2 -I"$SIBYL_SOURCE/include" "$HERE/adapter_faults.c" -o "$WORK/adapter_faults" -ldl
faults=$("$WORK/adapter_faults" "$FFT" 65536 32768 44100)
[ "$faults" -le 4 ] || fail "a timed run faulted $faults pages in (sizes alternating)"
echo "ok: at most $faults page faults in a timed run"

# The program's first execution at each size faults its output in and
# meets its twiddles cold, and so does the adapter's (it no longer
# touches the output in setup): a replay of the traced calls records
# each size's first call apart (stats.one_time.first_calls), and the
# check against the trace charges it to the first call at each size.
APP="$SIBYL_BUILD/bin/plan_fft_app"
DEFS="$SIBYL_SOURCE/bench/plan/libs"
"$SIBYL" wrap libfftw3.so.3 --header fftw3.h --functions fftw_execute,fftw_plan_dft_1d \
	--gen-path "$DEFS" --gen time,trace,fftw_plans --defs "$DEFS/fftw.defs" \
	-o "$WORK/fftw-wrap.so" 2> "$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
"$SIBYL" trace -o "$WORK/app.trace" --wrap "$WORK/fftw-wrap.so" -- "$APP" 600 > /dev/null
"$SIBYL" plan run --adapter "$FFT" --from-trace "$WORK/app.trace" --function fftw_execute \
	--replay -o "$WORK/fft.json" > /dev/null 2> "$WORK/plan.err" || { cat "$WORK/plan.err"; fail "plan"; }
n=$(json "len(j['stats']['one_time'].get('first_calls', {}).get('metrics', []))" "$WORK/fft.json")
[ "$n" -ge 10 ] || fail "first calls recorded apart at $n sizes, not 10 or more"
dearer=$(json "sum(m[1] > m[2] for m in j['stats']['one_time']['first_calls']['metrics'])" "$WORK/fft.json")
[ "$dearer" -ge $((n / 2 + 1)) ] || fail "only $dearer of $n first calls dearer than the profile"
"$SIBYL" plan evaluate --adapter "$FFT" --profile "$WORK/fft.json" --from-trace "$WORK/app.trace" \
	--function fftw_execute --json > "$WORK/check.json"
charged=$(json "j['trace_check']['first_at_calls']" "$WORK/check.json")
[ "$charged" -eq "$n" ] || [ "$charged" -eq $((n - 1)) ] ||
	fail "$charged first calls charged, not $n (or $n less the process's first)"
echo "ok: $n sizes' first calls apart, $dearer dearer than warm, $charged charged"

# The trace-guided plan runs each size's first sample once more before
# its runs and records that run apart the same way.
"$SIBYL" plan run --adapter "$FFT" --from-trace "$WORK/app.trace" --function fftw_execute \
	--speed-guard 0 -o "$WORK/guided.json" > /dev/null 2> "$WORK/guided.err" ||
	{ cat "$WORK/guided.err"; fail "guided plan"; }
g=$(json "len(j['stats']['one_time'].get('first_calls', {}).get('metrics', []))" "$WORK/guided.json")
[ "$g" -ge 10 ] || fail "guided: first calls recorded apart at $g sizes, not 10 or more"
echo "ok: guided: $g sizes' first calls apart"
