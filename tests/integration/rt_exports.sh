#!/usr/bin/env bash
# What the preloaded libraries export (docs/runtime.md, docs/worksize.md):
# libsibyl-rt.so, preloaded into every traced program, sibyl_ symbols and
# the exit and wait functions it interposes to see how each process ended;
# libsibyl-regions.so, preloaded only for worksize.fast, the allocation
# functions it must interpose and its one sibyl_ entry point;
# libsibyl-audit.so, in LD_AUDIT, only the rtld-audit(7) entry points.
. "$(dirname "$0")/lib.sh"

exports() { nm -D --defined-only "$1" | awk '{print $3}' | sort -u; }

exports "$TARGETS_LIB/libsibyl-rt.so" >"$WORK/rt.txt"
[ -s "$WORK/rt.txt" ] || fail "nm -D found no exports in libsibyl-rt.so"
cat >"$WORK/rt.interposed" <<'SYMS'
_Exit
_exit
wait
wait3
wait4
waitid
waitpid
SYMS
grep -v '^sibyl_' "$WORK/rt.txt" >"$WORK/rt.other" || true
diff "$WORK/rt.interposed" "$WORK/rt.other" ||
	fail "libsibyl-rt.so exports other symbols than sibyl_ ones and the exit and wait functions"
grep -qx sibyl_rt_refill "$WORK/rt.txt" || fail "libsibyl-rt.so does not export sibyl_rt_refill"
echo "ok: libsibyl-rt.so exports $(wc -l <"$WORK/rt.txt") symbols: sibyl_ ones, exit and wait"

cat >"$WORK/regions.expected" <<'SYMS'
aligned_alloc
calloc
free
malloc
memalign
mmap
mmap64
mremap
munmap
posix_memalign
pthread_create
realloc
reallocarray
sibyl_regions_full_enter
sibyl_regions_full_exit
sibyl_regions_worksize
valloc
SYMS
exports "$TARGETS_LIB/libsibyl-regions.so" >"$WORK/regions.txt"
diff "$WORK/regions.expected" "$WORK/regions.txt" || fail "libsibyl-regions.so exports other symbols"
echo "ok: libsibyl-regions.so exports the allocation functions and sibyl_regions_*"

printf 'la_objclose\nla_objopen\nla_symbind64\nla_version\n' >"$WORK/audit.expected"
exports "$TARGETS_LIB/libsibyl-audit.so" >"$WORK/audit.txt"
diff "$WORK/audit.expected" "$WORK/audit.txt" || fail "libsibyl-audit.so exports other symbols"
echo "ok: libsibyl-audit.so exports only its la_* entry points"
