#!/bin/bash
# Arguments users control: -A fixes a scalar or picks a buffer's
# generator; scalars the signature names as sizes follow the buffers.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args/sizes.cl"
arg() {	# arg FILE NAME [after]: an argument's value or data
	json "[a.get('value', a.get('data')) for a in j['samples'][0]['${3:-args}'] if a['name'] == '$2'][0]" "$1"
}

# n names the length of every buffer: unfixed, it is that length ...
"$SIBYL" kernel "$K" -k sum_to -g 64 --dump-args --json > "$WORK/a.json"
expect_eq "n = the buffers' length" 64 "$(arg "$WORK/a.json" n)"
"$SIBYL" kernel "$K" -k sum_to -g 64 --elements 100 --dump-args --json > "$WORK/a.json"
expect_eq "n = --elements" 100 "$(arg "$WORK/a.json" n)"
# ... fixed, the buffers get at least that many elements.
"$SIBYL" kernel "$K" -k sum_to -g 4 -A n=1000 -A in=ones --dump-args --json > "$WORK/b.json"
expect_eq "fixed n" 1000 "$(arg "$WORK/b.json" n)"
expect_eq "buffers sized by n" "1000 1000" \
	"$(json "' '.join(str(len(a['data'])) for a in j['samples'][0]['args'] if 'data' in a)" "$WORK/b.json")"
expect_eq "sum of 1000 ones" 1000.0 "$(json "j['samples'][0]['after'][1]['data'][0]" "$WORK/b.json")"

# m_len names m's length only; generators per buffer; a float fixed.
"$SIBYL" kernel "$K" -k copy_m -g 4 --elements 6 -A m=arange -A out=zeros -A scale=0.5 \
	--dump-args --json > "$WORK/c.json"
expect_eq "arange" "[0, 1, 2, 3, 4, 5]" "$(arg "$WORK/c.json" m)"
expect_eq "m_len = m's length" 6 "$(arg "$WORK/c.json" m_len)"
expect_eq "zeros" "[0, 0, 0, 0, 0, 0]" "$(arg "$WORK/c.json" out)"
expect_eq "fixed float" 0.5 "$(arg "$WORK/c.json" scale)"
expect_eq "the kernel saw them (0+0+1+1+2+2)" 6 "$(json "j['samples'][0]['after'][2]['data'][0]" "$WORK/c.json")"
# A file's bytes (little-endian ints), its length the buffer's.
printf '\001\000\000\000\002\000\000\000\003\000\000\000' > "$WORK/m.bin"
"$SIBYL" kernel "$K" -k copy_m -g 4 -A "m=file:$WORK/m.bin" -A out=zeros -A scale=2 \
	--dump-args --json > "$WORK/d.json"
expect_eq "from a file" "[1, 2, 3] 3" "$(arg "$WORK/d.json" m) $(arg "$WORK/d.json" m_len)"
expect_eq "2 * (1 + 2 + 3)" 12 "$(json "j['samples'][0]['after'][2]['data'][0]" "$WORK/d.json")"
"$SIBYL" kernel "$K" -k copy_m -g 4 -A out=ones --dump-args --json > "$WORK/e.json"
expect_eq "ones" "[1, 1, 1, 1]" "$(arg "$WORK/e.json" out)"

# Refusals: one line, exit status 2.
refused() {	# refused PATTERN ARGS...
	local pattern=$1 rc=0
	shift
	"$SIBYL" kernel "$K" "$@" > /dev/null 2> "$WORK/err" || rc=$?
	expect_eq "refused $*" "2 1" "$rc $(wc -l < "$WORK/err")"
	grep -q -- "$pattern" "$WORK/err" || fail "$*: $(cat "$WORK/err")"
}
refused "expected NAME=VALUE with NAME an argument of sum_to" -k sum_to -g 4 -A nope=1
refused "'n' (int) takes a number of its type" -k sum_to -g 4 -A n=many
refused "'n' (int) takes a number of its type" -k sum_to -g 4 -A n=99999999999
refused "a buffer takes random, zeros, ones, arange or file:PATH" -k sum_to -g 4 -A in=7
refused "m.bin: No such file" -k copy_m -g 4 -A "m=file:$WORK/none/m.bin"
