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
