#!/bin/bash
# Failures a batch script can use: distinct exit statuses, a JSON object
# on failure, compile errors in full under the user's file name, the
# device's compile outside --timeout, and no runner or temporary left
# when a signal ends sibyl.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels"
F="$K/failures"

status() {	# status EXPECTED WHAT COMMAND...: run it, check its exit status
	local want=$1 what=$2 got=0
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err" || got=$?
	expect_eq "$what: exit status" "$want" "$got"
}

# clang-14 refuses: every error, under the file's name; status 3.
status 3 "compile error" "$SIBYL" kernel "$F/errors.cl" -k broken -g 4
grep -q "errors.cl:5:9: error: use of undeclared identifier 'y'" "$WORK/err" || fail "first error"
grep -q "errors.cl:6:9: error: use of undeclared identifier 'z'" "$WORK/err" || fail "second error cut"
status 3 "compile error, --json" "$SIBYL" kernel "$F/errors.cl" -k broken -g 4 --json
expect_eq "json status" "compile-error compile" "$(json "j['status'] + ' ' + j['stage']" "$WORK/out")"
expect_eq "json diagnostics" 2 "$(json "j['diagnostics'].count('error: use of undeclared')" "$WORK/out")"

# The device's compiler refuses: its log in full, PoCL's temporary
# file name mapped back to the user's.
status 3 "device build error" "$SIBYL" kernel "$F/device_only.cl" -k device_only -g 4
grep -q "^$F/device_only.cl:4:2: error: the device compiler saw this file" "$WORK/err" ||
	fail "device log not mapped: $(cat "$WORK/err")"
if grep -q tempfile_ "$WORK/err"; then fail "a temporary file name shown"; fi
status 3 "device build error, --json" "$SIBYL" kernel "$F/device_only.cl" -k device_only -g 4 --json
expect_eq "json stage" build "$(json "j['stage']" "$WORK/out")"

# A kernel calling a function never defined: on the SPIR path the
# device links each kernel alone, so the file's other kernel runs, and
# the one that calls it fails with a line naming the function.
for mode in -i --spir; do
	status 0 "$mode beside a kernel that cannot link" \
		"$SIBYL" kernel "$F/undefined.cl" -k stands_alone -g 4 "$mode"
	status 3 "$mode calling an undefined function" \
		"$SIBYL" kernel "$F/undefined.cl" -k calls_undefined -g 4 "$mode" --json
	grep -q "^sibyl: kernel: building the .*'never_defined' is called but defined neither" \
		"$WORK/err" || fail "$mode: no line naming never_defined: $(cat "$WORK/err")"
	expect_eq "$mode json stage" "compile-error build" \
		"$(json "j['status'] + ' ' + j['stage']" "$WORK/out")"
done

# No kernel to run: none in the file, or not the one -k names; an
# object too.
printf 'int twice(int x) { return 2 * x; }\n' > "$WORK/none.cl"
status 1 "no kernel, --json" "$SIBYL" kernel "$WORK/none.cl" --json
expect_eq "no kernel object" "error setup" "$(json "j['status'] + ' ' + j['stage']" "$WORK/out")"
status 1 "unknown kernel, --json" "$SIBYL" kernel "$F/warns.cl" -k nosuch -g 4 --json
expect_eq "unknown kernel object" "nosuch error" "$(json "j['kernel'] + ' ' + j['status']" "$WORK/out")"
grep -q "has no kernel 'nosuch'" "$WORK/err" || fail "unknown kernel: no line"

# Warnings: only with -v.
status 0 "warning" "$SIBYL" kernel "$F/warns.cl" -k warns -g 4
if grep -q sibyl-test-warning "$WORK/err"; then fail "warning shown without -v"; fi
status 0 "warning, -v" "$SIBYL" kernel "$F/warns.cl" -k warns -g 4 -v
grep -q "warns.cl:2:2: warning: sibyl-test-warning" "$WORK/err" || fail "no warning with -v"

# Unsupported arguments: status 4, an object too.
status 4 "unsupported" "$SIBYL" kernel "$K/args/unsupported.cl" -k layers -g 4 --json
expect_eq "json unsupported" unsupported "$(json "j['status']" "$WORK/out")"

# A crash: status 5; the object has the seed and the arguments that
# crashed, the very ones --dump-args of a working run would show.
status 5 "crash" "$SIBYL" kernel "$K/args/crash.cl" -k null_deref -g 64 --seed 5 --json
expect_eq "crash object" "crash run 5 64 11" \
	"$(json "' '.join(str(j[k]) for k in ('status', 'stage', 'seed', 'gsize', 'signal'))" "$WORK/out")"
expect_eq "crash args" "a n 64" "$(json "' '.join(a['name'] for a in j['args']) + ' ' + str(len(j['args'][0]['data']))" "$WORK/out")"
status 5 "crash, --dump-args" "$SIBYL" kernel "$K/args/crash.cl" -k null_deref -g 64 --seed 5 --dump-args
"$SIBYL" kernel "$K/args/crash.cl" -k null_deref -g 64 --seed 5 --json > "$WORK/c.json" || true
expect_eq "dumped args" "$(json "json.dumps(j['args'])" "$WORK/c.json")" \
	"$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.loads(open(sys.argv[1]).read())))' "$WORK/out")"

# A hang: status 6, stage run.
status 6 "timeout" "$SIBYL" kernel "$K/args/crash.cl" -k forever -g 4 --timeout 1 --json
expect_eq "timeout object" "timeout run" "$(json "j['status'] + ' ' + j['stage']" "$WORK/out")"

# PoCL compiles the work-group function at the first launch (over a
# second for heavy.cl, cold): --timeout does not count it ...
export POCL_CACHE_DIR="$WORK/pocl"
status 0 "cold compile within --timeout 0.5" "$SIBYL" kernel "$F/heavy.cl" -k heavy -g 64 --timeout 0.5
# ... --build-timeout does.
rm -rf "$WORK/pocl"
status 6 "cold compile past --build-timeout" "$SIBYL" kernel "$F/heavy.cl" -k heavy -g 64 \
	--build-timeout 0.2 --json
expect_eq "compile timeout" "timeout True" "$(json "j['status'] + ' ' + str(j['stage'] in ('build', 'jit'))" "$WORK/out")"
grep -q -- "--build-timeout" "$WORK/err" || fail "no --build-timeout in the message"
unset POCL_CACHE_DIR

# A signal ends sibyl: its runner dies with it, nothing stays in TMPDIR.
mkdir "$WORK/tmp"
for sig in SIGTERM SIGINT SIGHUP; do
	TMPDIR="$WORK/tmp" /usr/bin/python3 - "$SIBYL" "$K/args/crash.cl" "$sig" "$WORK/tmp" <<'PY' || fail "$sig"
import os, signal, subprocess, sys, time
sibyl, cl, sig, tmp = sys.argv[1:]
p = subprocess.Popen([sibyl, 'kernel', cl, '-k', 'forever', '-g', '4', '-i', '--timeout', '0'])
kids = []
for _ in range(600):	# until the runner is there and its kernel runs
    time.sleep(0.05)
    kids = subprocess.run(['pgrep', '-P', str(p.pid)], capture_output=True, text=True).stdout.split()
    if kids and len(os.listdir(tmp)) >= 2:
        break
time.sleep(0.5)
p.send_signal(getattr(signal, sig))
rc = p.wait(timeout=30)
time.sleep(0.2)
alive = [k for k in kids if os.path.exists('/proc/' + k)]
left = os.listdir(tmp)
print(sig, 'status', rc, 'runner', kids, 'alive', alive, 'left', left)
sys.exit(0 if kids and rc == -getattr(signal, sig) and not alive and not left else 1)
PY
done
