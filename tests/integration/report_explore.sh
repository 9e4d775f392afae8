#!/usr/bin/env bash
# The report users explore (docs/report.md, docs/export.md) on openssl:
# parents and self times agree between report, SQLite, CSV, the Chrome
# trace and the folded stacks; filters, sorting, spread, counters and
# --diff hold on a real run of two processes.  The checks compare sibyl's
# outputs with each other and with what the program must have done, never
# with fixed times.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h \
	--functions 'EVP_EncryptUpdate,EVP_DecryptUpdate,EVP_CipherUpdate,EVP_CipherFinal_ex,EVP_EncryptFinal_ex' \
	--gen time,trace,counters -o "$WORK/libwrap-crypto.so" 2>"$WORK/wrap.err" ||
	{ cat "$WORK/wrap.err"; fail "sibyl wrap"; }
head -c 3000000 /dev/urandom >"$WORK/plain.bin"
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
IV=0f0e0d0c0b0a09080706050403020100
ENC="openssl enc -aes-256-cbc -K $KEY -iv $IV"
# Two processes: encrypt, then decrypt what was encrypted.
run() {	# run TRACE
	"$SIBYL" trace -o "$1" --wrap "$WORK/libwrap-crypto.so" -- sh -c \
		"$ENC -in '$WORK/plain.bin' -out '$WORK/x.enc' && $ENC -d -in '$WORK/x.enc' -out '$WORK/x.dec'"
	cmp "$WORK/plain.bin" "$WORK/x.dec" || fail "round trip differs under tracing"
}
run "$WORK/a.trace"
run "$WORK/b.trace"

R() { "$SIBYL" report "$@"; }
R --json "$WORK/a.trace" >"$WORK/all.json"
"$SIBYL" export "$WORK/a.trace" --format sqlite -o "$WORK/a.db"
"$SIBYL" export "$WORK/a.trace" --format csv -o "$WORK/a.csv"
"$SIBYL" export "$WORK/a.trace" --format chrome -o "$WORK/a.chrome.json"
"$SIBYL" export "$WORK/a.trace" --format folded -o "$WORK/a.folded"
/usr/bin/python3 "$SIBYL_SOURCE/tests/integration/report_explore_check.py" tree \
	"$WORK/all.json" "$WORK/a.db" "$WORK/a.csv" "$WORK/a.chrome.json" "$WORK/a.folded"

# Filters: each against what the unfiltered trace says.
pids=$(json "' '.join(str(p['pid']) for p in j['processes'] if p['calls'])" "$WORK/all.json")
read -r pid1 pid2 <<<"$pids"
[ -n "$pid2" ] || fail "expected two processes with calls, got '$pids'"
R --json -F 'EVP_Cipher*' "$WORK/a.trace" >"$WORK/f.json"
R --json -N 'EVP_Cipher*@libcrypto*' "$WORK/a.trace" >"$WORK/n.json"
R --json --pid "$pid1" "$WORK/a.trace" >"$WORK/pid.json"
R --json --tid "$pid2" "$WORK/a.trace" >"$WORK/tid.json"
R --json --min-duration 20us "$WORK/a.trace" >"$WORK/min.json"
R --json --time-range "~$(json "min(p['end_ns'] for p in j['processes'] if p['pid'] == $pid1)" \
	"$WORK/all.json")" "$WORK/a.trace" >"$WORK/range.json"
for key in calls total self mean median p90 p99 stddev min max in out work bytes/s work/s; do
	R --json --sort "$key" "$WORK/a.trace" >"$WORK/sort-${key//\//_}.json"
done
R --json --top 2 --sort calls "$WORK/a.trace" >"$WORK/top.json"
/usr/bin/python3 "$SIBYL_SOURCE/tests/integration/report_explore_check.py" filters \
	"$WORK" "$pid1" "$pid2"

# The text: self column, counters said measured or not (never blank).
R --functions "$WORK/a.trace" >"$WORK/text"
grep -q '^ *Calls *Total *Self *Mean *Median *P99' "$WORK/text" || fail "no Self/Median columns"
grep -q '^# counters: .*measured: task-clock' "$WORK/text" || fail "counters not described: $(head "$WORK/text")"
R --functions --columns calls,self,p90,stddev,bytes/s,cycles "$WORK/a.trace" >"$WORK/cols"
if grep -q 'not measured:.*cycles' "$WORK/text"; then
	grep -q ' n/a  EVP_' "$WORK/cols" || fail "absent cycles counter not shown as n/a"
fi
echo "ok: text report with self time, spread and counters"

# --diff: the same program twice.
R --diff "$WORK/a.trace" "$WORK/b.trace" >"$WORK/diff.txt"
R --diff --json "$WORK/a.trace" "$WORK/b.trace" >"$WORK/diff.json"
R --json "$WORK/b.trace" >"$WORK/b.json"
/usr/bin/python3 "$SIBYL_SOURCE/tests/integration/report_explore_check.py" diff \
	"$WORK/diff.json" "$WORK/all.json" "$WORK/b.json"
grep -q 'EVP_EncryptUpdate \[libcrypto.so.3\]' "$WORK/diff.txt" || fail "diff text: $(cat "$WORK/diff.txt")"
expect_eq "--diff --top 2: functions compared" 2 \
	"$(R --diff --top 2 "$WORK/a.trace" "$WORK/b.trace" | grep -c '\[libcrypto')"

# Usage errors: one line, exit 2, nothing read.
for bad in "--sort speed" "--min-duration 3weeks" "--time-range 5ms" "-F f@" "--pid x" \
	"--columns calls,name" "--top -1" "--diff"; do
	st=0
	# shellcheck disable=SC2086
	R $bad "$WORK/a.trace" >"$WORK/out" 2>"$WORK/err" || st=$?
	expect_eq "report $bad: exit status" 2 "$st"
	[ "$(wc -l <"$WORK/err")" = 1 ] || fail "report $bad: $(cat "$WORK/err")"
done
st=0
"$SIBYL" export "$WORK/a.trace" --format folded -o "$WORK/a.folded" 2>"$WORK/err" || st=$?
expect_eq "export over an existing file: exit status" 1 "$st"
echo "report explore checks passed"
