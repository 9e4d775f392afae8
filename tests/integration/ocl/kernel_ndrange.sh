#!/bin/bash
# Multi-dimensional ranges: -g X,Y[,Z] and -l X,Y reach the device;
# reqd_work_group_size is honoured, and said when -l disagrees.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/ndrange/grid.cl"
after() {	# after FILE: the first buffer after the run
	json "j['samples'][0]['after'][0]['data']" "$1"
}

"$SIBYL" kernel "$K" -k where -g 4,3,2 --dump-args --json > "$WORK/w.json"
expect_eq "3-D ids" "[0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203, 10000, 10001, 10002, 10003, 10100, 10101, 10102, 10103, 10200, 10201, 10202, 10203]" \
	"$(after "$WORK/w.json")"
expect_eq "3-D shape reported" "[4, 3, 2] [4, 3, 2]" \
	"$(json "str(j['gsize']) + ' ' + str(j['samples'][0]['gsize'])" "$WORK/w.json")"
"$SIBYL" kernel "$K" -k groups -g 16,8 -l 4,2 --dump-args --json > "$WORK/g.json"
expect_eq "2-D work-groups" "{402}" "$(json "set(j['samples'][0]['after'][0]['data'])" "$WORK/g.json")"
"$SIBYL" kernel "$K" -k groups -g 16,8 -l 4,2 > "$WORK/g.txt"
grep -q "gsize 16,8, lsize 4,2" "$WORK/g.txt" || fail "text: $(cat "$WORK/g.txt")"

# -i counts every work-item of a 2-D range once (one ret each).
"$SIBYL" kernel "$K" -k groups -g 16,8 -l 4,2 -i --json > "$WORK/i.json"
expect_eq "ret per work-item, 2-D" "[128]" \
	"$(json "[r['count'] for r in j['instcounts'] if r['op'] == 'ret']" "$WORK/i.json")"

# reqd_work_group_size(8, 4, 1): the default local size, listed with
# the signature; a different -l is said and overruled.
"$SIBYL" kernel "$K" -k fixed -g 16,8 --dump-args --json > "$WORK/f.json"
expect_eq "reqd honoured" "{804} [8, 4]" \
	"$(json "str(set(j['samples'][0]['after'][0]['data'])) + ' ' + str(j['lsize'])" "$WORK/f.json")"
expect_eq "reqd listed" "[8, 4, 1]" "$(json "j['signature']['reqd_work_group_size']" "$WORK/f.json")"
"$SIBYL" kernel "$K" -k fixed -g 16,8 -l 4,4 --dump-args --json > "$WORK/f2.json" 2> "$WORK/err"
expect_eq "-l disagreeing" "sibyl: warning: kernel: fixed requires work-groups of 8,4 (reqd_work_group_size); -l 4,4 ignored" \
	"$(cat "$WORK/err")"
expect_eq "reqd wins" "{804}" "$(json "set(j['samples'][0]['after'][0]['data'])" "$WORK/f2.json")"

# Refusals, one line each, exit status 2.
refused() {	# refused PATTERN ARGS...
	local pattern=$1 rc=0
	shift
	"$SIBYL" kernel "$K" "$@" > /dev/null 2> "$WORK/err" || rc=$?
	expect_eq "refused $*" 2 "$rc"
	grep -q "$pattern" "$WORK/err" || fail "$*: $(cat "$WORK/err")"
}
refused "multiple of the local size 3,2" -k groups -g 16,8 -l 3,2
refused "more dimensions than -g" -k groups -g 16 -l 4,2
refused "expected N or N,N or N,N,N" -k groups -g 16,8,2,2
refused "expected N or N,N or N,N,N" -k groups -g 16,0
refused "multiple of the local size 8,4" -k fixed -g 16
