#!/usr/bin/env bash
# Added cost per intercepted call (issue: Observe, section 5).
# 10^6 calls to a trivial shared-library function, R interleaved
# repetitions of every configuration in one run; medians reported.
#   baseline      no interposition
#   passthrough   sibyl wrapper with funcptr,loader,caller only
#                 (preloaded; and through the audit module, bound lazily
#                 and at start-up through a thunk: the mechanism alone)
#   time+trace    sibyl wrapper with the default generators, traced
#                 (rings drained by sibyl trace, audit interposition:
#                 the defaults)
#   preload       the same, --interpose preload (wrapper in LD_PRELOAD)
#   bind-now      the same as time+trace under LD_BIND_NOW=1: bound at
#                 start-up, before the wrapper is loaded, through a thunk
#   direct        the same, --no-drain: each thread writes its file itself
#   uftrace       uftrace record (PLT hooking of library calls)
#   ltrace        ltrace -e bench_work (10^4 calls: it is ~10^4x slower)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
R=${R:-7}
N=${N:-1000000}
N_LTRACE=${N_LTRACE:-10000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SIBYL=$BUILD/bin/sibyl
LOOP=$BUILD/bin/bench_call_loop
LIB=$BUILD/lib/libsibylbench.so
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

"$SIBYL" wrap "$LIB" --header "$SRC/bench/target.h" --gen funcptr,loader,caller -o "$W/pass.so" 2>/dev/null
"$SIBYL" wrap "$LIB" --header "$SRC/bench/target.h" -o "$W/trace.so" 2>/dev/null

field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for i in $(seq "$R"); do
	"$LOOP" "$N" | field ns_per_call >>"$W/baseline"
	LD_PRELOAD="$W/pass.so" "$LOOP" "$N" | field ns_per_call >>"$W/passthrough"
	audit() { LD_AUDIT="$BUILD/lib/libsibyl-audit.so" SIBYL_WRAPPERS="$W/pass.so" \
		LD_PRELOAD="$BUILD/lib/libsibyl-rt.so" "$@"; }
	audit "$LOOP" "$N" | field ns_per_call >>"$W/pass_audit"
	LD_BIND_NOW=1 audit "$LOOP" "$N" | field ns_per_call >>"$W/pass_thunk"
	"$SIBYL" trace -f -o "$W/t" --wrap "$W/trace.so" -- "$LOOP" "$N" >"$W/out"
	field ns_per_call <"$W/out" >>"$W/timetrace"
	"$SIBYL" trace --interpose preload -f -o "$W/tp" --wrap "$W/trace.so" -- "$LOOP" "$N" |
		field ns_per_call >>"$W/preload"
	LD_BIND_NOW=1 "$SIBYL" trace -f -o "$W/tn" --wrap "$W/trace.so" -- "$LOOP" "$N" |
		field ns_per_call >>"$W/bindnow"
	"$SIBYL" trace --no-drain -f -o "$W/td" --wrap "$W/trace.so" -- "$LOOP" "$N" | field ns_per_call >>"$W/direct"
	field maxrss_kb <"$W/out" >>"$W/rss_traced"
	"$LOOP" "$N" | field maxrss_kb >>"$W/rss_plain"
	"$BUILD/bin/bench_page_cost" "$W" 64 | field record_ns >>"$W/page_cost"
	"$SIBYL" trace -f -o "$W/t1k" --wrap "$W/trace.so" -- "$LOOP" 1000 | field maxrss_kb >>"$W/rss_traced_1k"
	"$LOOP" 1000 | field maxrss_kb >>"$W/rss_plain_1k"
	if command -v uftrace >/dev/null; then
		uftrace record --force -d "$W/uft" "$LOOP" "$N" 2>/dev/null | field ns_per_call >>"$W/uftrace"
	fi
	if command -v ltrace >/dev/null && [ "$i" -le 3 ]; then
		ltrace -o /dev/null -e bench_work "$LOOP" "$N_LTRACE" | field ns_per_call >>"$W/ltrace"
	fi
done

base=$(median <"$W/baseline")
added() { echo "$(median <"$W/$1") - $base" | bc -l; }
events=$(ls "$W"/t/*.events | head -1)
bytes=$(stat -c %s "$events")
committed=$(od -An -t u8 -j 40 -N 8 "$events" | tr -d ' ')
rss=$(( $(median <"$W/rss_traced" | cut -d. -f1) - $(median <"$W/rss_plain" | cut -d. -f1) ))
rss1k=$(( $(median <"$W/rss_traced_1k" | cut -d. -f1) - $(median <"$W/rss_plain_1k" | cut -d. -f1) ))

printf '\nadded cost per intercepted call, median of %d runs, %d calls each (ltrace: %d calls)\n' "$R" "$N" "$N_LTRACE"
printf '%-28s %12s   %s\n' "configuration" "ns/call" "anchor"
printf '%-28s %12.1f   %s\n' "baseline (direct call)" "$base" "-"
printf '%-28s %12.1f   %s\n' "sibyl pass-through wrapper" "$(added passthrough)" "-"
printf '%-28s %12.1f   %s\n' "  same, audit module" "$(added pass_audit)" "-"
printf '%-28s %12.1f   %s\n' "  same, audit, bind-now" "$(added pass_thunk)" "-"
printf '%-28s %12.1f   %s\n' "sibyl time+trace" "$(added timetrace)" "target <= 30 ns; paper 8200 ns"
printf '%-28s %12.1f   %s\n' "  same, --interpose preload" "$(added preload)" "-"
printf '%-28s %12.1f   %s\n' "  same, LD_BIND_NOW (thunk)" "$(added bindnow)" "-"
printf '%-28s %12.1f   %s\n' "  same, --no-drain (direct)" "$(added direct)" "-"
[ -s "$W/uftrace" ] && printf '%-28s %12.1f   %s\n' "uftrace record (libcall)" "$(added uftrace)" "~90 ns"
[ -s "$W/ltrace" ] && printf '%-28s %12.1f   %s\n' "ltrace" "$(added ltrace)" "~100000 ns"
printf '\ntrace bytes per call: %.1f (records committed: %s, file %s bytes incl. preallocated tail)\n' \
	"$(echo "($committed * 64 + 128) / $N" | bc -l)" "$committed" "$bytes"
printf 'memory: peak RSS traced - untraced = %d KiB at 1000 calls (constant part; paper: 3.9 MB), %d KiB at %d calls (the ring, 4 MiB by default, fills on its first lap)\n' "$rss1k" "$rss" "$N"
printf 'direct mode is bounded by page provisioning: fresh page-cache pages for the trace cost %.1f ns per 64-byte record here (median, same run)\n' \
	"$(median <"$W/page_cost")"
