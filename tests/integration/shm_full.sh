#!/usr/bin/env bash
# A full or small /dev/shm must never harm the traced program nor
# `sibyl trace` (docs/runtime.md): no SIGBUS, same output and exit status,
# every call recorded or counted.  Runs as root in a private mount
# namespace with a 6 MiB tmpfs on /dev/shm; skipped (status 77) otherwise.
SIBYL_NEEDS_MOUNT_NS="for a private /dev/shm"
. "$(dirname "$0")/lib.sh"

mount -t tmpfs -o size=6m tmpfs /dev/shm || fail "cannot mount a tmpfs on /dev/shm"
"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
LIFE="$TARGETS_BIN/lifecycle"

# traced NAME MODE N K: trace lifecycle, compare with an untraced run.
traced() {
	local name=$1 plain_rc=0 rc=0
	shift
	"$LIFE" "$@" >"$WORK/$name.plain" 2>&1 || plain_rc=$?
	"$SIBYL" trace -o "$WORK/$name" --wrap "$WORK/libwrap-test.so" -- "$LIFE" "$@" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
	expect_eq "$name: exit status" "$plain_rc" "$rc"
	cmp -s "$WORK/$name.plain" "$WORK/$name.out" || fail "$name: output differs"
	"$SIBYL" report --json "$WORK/$name" >"$WORK/$name.json" || fail "$name: report"
}
# recorded + dropped + lost calls of a report
seen() {
	json 'j["calls"] + sum(t["dropped"] for t in j["threads"]) + j.get("lost_calls", 0)' "$1"
}

# /dev/shm completely full: no ring can get its header page.
dd if=/dev/zero of=/dev/shm/fill bs=64k 2>/dev/null || true
traced full threads 2000 4
expect_eq "full /dev/shm: calls" 8000 "$(seen "$WORK/full.json")"

# The drainer meets a ring file whose header page was never provided.
# (The command waits for GO at most 10 s, so that it never outlives a failure.)
"$SIBYL" trace -o "$WORK/sparse" -- sh -c "for i in \$(seq 500); do [ -e '$WORK/go' ] && break; sleep 0.02; done" \
	2>"$WORK/sparse.err" &
tracer=$!
for _ in $(seq 500); do ring_dir=$(ls -d /dev/shm/sibyl-* 2>/dev/null) && break; sleep 0.02; done
[ -n "$ring_dir" ] || fail "no ring directory in /dev/shm"
truncate -s $((4096 + 4194304)) "$ring_dir/99999.0-99999.ring"
sleep 0.3
touch "$WORK/go"
rc=0
wait $tracer || rc=$?
expect_eq "sparse ring header: sibyl trace's exit status" 0 "$rc"
"$SIBYL" report "$WORK/sparse" >/dev/null || fail "sparse ring header: report"

# /dev/shm fills up while 8 threads record into 4 MiB rings.
rm -f /dev/shm/fill
traced filling threads 20000 8
expect_eq "filling /dev/shm: calls recorded, dropped or lost" 160000 "$(seen "$WORK/filling.json")"
echo "ok: shm_full"
