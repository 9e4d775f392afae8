#!/usr/bin/env bash
# Nothing is lost without a word: threads whose buffer cannot be created
# are counted with their calls and reported, `sibyl trace` warns, and a
# trace is "complete" only when `sibyl trace` finished draining it.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap "$TARGETS_LIB/libsibyltest.so" --header "$SIBYL_SOURCE/tests/integration/targets/testlib.h" \
	-o "$WORK/libwrap-test.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }
LIFE="$TARGETS_BIN/lifecycle"

# A finished trace says so, and warns about nothing.
"$SIBYL" trace -o "$WORK/ok" --wrap "$WORK/libwrap-test.so" -- "$LIFE" threads 100 >/dev/null 2>"$WORK/ok.err"
"$SIBYL" report --json "$WORK/ok" >"$WORK/ok.json"
expect_eq "finished trace: complete" True "$(json 'j["complete"]' "$WORK/ok.json")"
"$SIBYL" report "$WORK/ok" | grep -i incomplete && fail "a finished trace is called incomplete"
[ -s "$WORK/ok.err" ] && fail "warnings for a finished trace: $(cat "$WORK/ok.err")"

# 1 GiB rings under `ulimit -v`: only the first thread's ring fits; the
# others must still be recorded (8 threads must not become 1).
"$SIBYL" trace -o "$WORK/vm" --ring-kb 1048576 --wrap "$WORK/libwrap-test.so" -- \
	sh -c "ulimit -v 1600000 && exec '$LIFE' threads 1000 8" >"$WORK/vm.out" 2>"$WORK/vm.err" ||
	fail "ulimit -v: exit status $?"
expect_eq "ulimit -v: output" "threads 8 x 1000" "$(cat "$WORK/vm.out")"
"$SIBYL" report --json "$WORK/vm" >"$WORK/vm.json" || fail "ulimit -v: report"
expect_eq "ulimit -v: calls recorded or lost" 8000 "$(json 'j["calls"] + j["lost_calls"]' "$WORK/vm.json")"
expect_eq "ulimit -v: threads recorded or lost" 8 "$(json 'len(j["threads"]) + j["lost_threads"]' "$WORK/vm.json")"

# No descriptor left for any thread's buffer: every thread is lost, and
# counted with its calls; the program's output and status do not change.
"$LIFE" nofd 1000 8 >"$WORK/nofd.plain" 2>&1 || fail "nofd: untraced run failed"
rc=0
"$SIBYL" trace -o "$WORK/nofd" --wrap "$WORK/libwrap-test.so" -- "$LIFE" nofd 1000 8 \
	>"$WORK/nofd.out" 2>"$WORK/nofd.err" || rc=$?
expect_eq "nofd: exit status" 0 "$rc"
cmp -s "$WORK/nofd.plain" "$WORK/nofd.out" || fail "nofd: output differs"
grep -q "8 threads" "$WORK/nofd.err" || fail "nofd: no warning from sibyl trace: $(cat "$WORK/nofd.err")"
"$SIBYL" report --json "$WORK/nofd" >"$WORK/nofd.json" || fail "nofd: report"
expect_eq "nofd: lost threads" 8 "$(json 'j["lost_threads"]' "$WORK/nofd.json")"
expect_eq "nofd: lost calls" 8000 "$(json 'j["lost_calls"]' "$WORK/nofd.json")"
expect_eq "nofd: complete" False "$(json 'j["complete"]' "$WORK/nofd.json")"
"$SIBYL" report "$WORK/nofd" >"$WORK/nofd.txt"
grep -q "incomplete.*8 threads" "$WORK/nofd.txt" || fail "nofd: report does not say so: $(head -5 "$WORK/nofd.txt")"

# A trace directory the runtime cannot use (its files' paths would not fit
# in PATH_MAX): refused before the program runs, not traced into silence.
deep=$WORK
for _ in $(seq 20); do deep=$deep/$(printf 'd%.0s' $(seq 200)); done
mkdir -p "$deep"
rc=0
"$SIBYL" trace -o "$deep/t" -- touch "$WORK/ran" 2>"$WORK/deep.err" || rc=$?
[ "$rc" != 0 ] || fail "a trace path of ${#deep} bytes accepted"
[ ! -e "$WORK/ran" ] || fail "the program ran under a trace path too long"
grep -q "path too long" "$WORK/deep.err" || fail "no clear error: $(cut -c1-100 "$WORK/deep.err")"
expect_eq "too long a trace path: error lines" 1 "$(wc -l <"$WORK/deep.err")"

# `sibyl trace` killed while the program runs: the trace is incomplete.
"$SIBYL" trace -o "$WORK/killed" --wrap "$WORK/libwrap-test.so" -- sh -c \
	"'$LIFE' threads 1000 >'$WORK/killed.1'
	 for i in \$(seq 500); do [ -e '$WORK/go' ] && break; sleep 0.02; done
	 '$LIFE' threads 1000 >'$WORK/killed.2'" &
tracer=$!
for _ in $(seq 500); do [ -s "$WORK/killed.1" ] && break; sleep 0.02; done
kill -KILL $tracer
wait $tracer 2>/dev/null || true
touch "$WORK/go"
for _ in $(seq 500); do [ -s "$WORK/killed.2" ] && break; sleep 0.02; done
[ -s "$WORK/killed.2" ] || fail "killed tracer: the program did not finish"
# The drainer never removed its ring directory (docs/runtime.md).
ring_dir=$(dd if="$WORK/killed/drain.ctl" bs=1 skip=64 count=448 2>/dev/null | tr -d '\0')
case "$ring_dir" in /dev/shm/sibyl-*) rm -rf "$ring_dir" ;; esac
"$SIBYL" report --json "$WORK/killed" >"$WORK/killed.json" || fail "killed tracer: report"
expect_eq "killed tracer: complete" False "$(json 'j["complete"]' "$WORK/killed.json")"
"$SIBYL" report "$WORK/killed" | grep -c "incomplete" >/dev/null || fail "killed tracer: report does not say incomplete"
# A writer killed between creating a file and writing its header leaves
# it empty: it holds no record, and the rest of the trace still reads.
: >"$WORK/ok/4194303.0-4194303.events"
: >"$WORK/ok/4194303.0.proc"
"$SIBYL" report --json "$WORK/ok" >"$WORK/ok2.json" || fail "an empty .events file made the trace unreadable"
expect_eq "empty files: calls" "$(json 'j["calls"]' "$WORK/ok.json")" "$(json 'j["calls"]' "$WORK/ok2.json")"
echo "ok: incomplete"
